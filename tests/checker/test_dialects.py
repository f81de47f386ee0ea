"""Issue 12: what today's agents (pi >= 0.99, omp 18.3) do on clean traffic is not flagged, and
real violations still are, at the right frame. omp 18.3 frames are written from its sources."""

from __future__ import annotations

from tests.checker.helpers import A, C, assistant, check, cmd, err, ev, hits, ok, rules, run_close, run_open, text

READY = A(ev("ready", protocolVersion=1, supportedProtocolVersions=[1, 2], maxFrameBytes=1048576,
             maxReassembledFrameBytes=67108864))
ABOVE_INFO = {"error", "warning"}


def loud(findings: list) -> list[tuple[str, int | None]]:
    return [(f.rule, f.frame) for f in findings if f.severity in ABOVE_INFO]


def settled_close(aborted: bool = False) -> list:
    """The end of a pi >= 0.99 run: turn_end, agent_end (willRetry), agent_settled (aborted)."""
    final = assistant(text("ok"))
    return [A(ev("turn_end", message=final, toolResults=[])), A(ev("agent_end", messages=[final], willRetry=False)),
            A(ev("agent_settled", aborted=aborted))]


# --- pi >= 0.99: dispositions ---------------------------------------------------------------
def test_a_handled_prompt_starts_no_run_so_the_next_prompt_is_fine() -> None:
    items = [C(cmd("prompt", "p1", message="!handled-by-an-input-handler")),
             A(ok("prompt", "p1", {"disposition": "handled"})),
             C(cmd("prompt", "p2", message="next")), A(ok("prompt", "p2", {"disposition": "started"})),
             *run_open(), *settled_close()]
    assert loud(check(*items)) == []
    # the same pair answered "started" twice (pi's back-to-back drop) is still flagged, at the second prompt
    items[1] = A(ok("prompt", "p1", {"disposition": "started"}))
    assert hits(check(*items), "misuse.prompt_while_starting") == [3]


def test_a_prompt_accepted_during_a_run_is_flagged_unless_queued() -> None:
    def session(answer: dict) -> list:
        return [C(cmd("prompt", "p1", message="a")), A(ok("prompt", "p1", {"disposition": "started"})), *run_open(),
                C(cmd("prompt", "p2", message="b")), A(answer), *settled_close()]

    [f] = [f for f in check(*session(ok("prompt", "p2", {"disposition": "started"})))
           if f.rule == "misuse.prompt_while_streaming"]
    assert (f.frame, f.related, f.severity) == (7, 8, "warning") and "accepted" in f.message
    assert hits(check(*session(ok("prompt", "p2", {"disposition": "queued"}))), "misuse.prompt_while_streaming") == []
    # pi 0.87 (no disposition) drops it silently too
    old = [C(cmd("prompt", "p1", message="a")), A(ok("prompt", "p1")), *run_open(),
           C(cmd("prompt", "p2", message="b")), A(ok("prompt", "p2")), *run_close()]
    assert hits(check(*old), "misuse.prompt_while_streaming") == [7]


# --- omp 18.3: prompt_result, set_event_filter, the retry saga --------------------------------
def test_prompt_result_closes_a_prompt_that_never_started_a_run() -> None:
    aborted = A(ev("prompt_result", id="p1", agentInvoked=True, status="aborted", sessionSettled=True))
    items = [READY, C(cmd("prompt", "p1", message="a")), A(ok("prompt", "p1")), C(cmd("abort", "a1")),
             A(ok("abort", "a1")), aborted, C(cmd("prompt", "p2", message="b")), A(ok("prompt", "p2")), *run_open(),
             *run_close()]
    assert loud(check(*items)) == []
    without = [f for f in items if f is not aborted]
    assert hits(check(*without), "misuse.prompt_while_starting") == [6]


def test_the_clients_event_filter_is_not_an_imbalance() -> None:
    final = assistant(text("ok"))
    run = [C(cmd("prompt", "p1", message="a")), A(ok("prompt", "p1")), A(ev("agent_end", messages=[final])),
           A(ev("prompt_result", id="p1", agentInvoked=True, status="completed", sessionSettled=True))]
    flt = [C(cmd("set_event_filter", "f", events=["agent_end", "prompt_result"])),
           A(ok("set_event_filter", "f", {"events": ["agent_end", "prompt_result"]}))]
    assert loud(check(READY, *flt, *run)) == []
    assert hits(check(READY, *run), "lifecycle.run_unbalanced") == [4]
    # lifted: pairing is checked again from the next run on
    lift = [C(cmd("set_event_filter", "g", events=None)), A(ok("set_event_filter", "g", {"events": None}))]
    later = check(READY, *flt, *run, *lift, A(ev("turn_start")), A(ev("agent_start")), A(ev("agent_start")))
    assert hits(later, "lifecycle.run_unbalanced") == [12]


def test_omps_retry_saga_runs_inside_one_run() -> None:
    failed = assistant(stop="error")
    retry = A(ev("auto_retry_start", attempt=1, maxAttempts=3, delayMs=244.71141790865218,
                 errorMessage="503 Service Unavailable"))
    saga = [*run_open(), A(ev("message_start", message=failed)), A(ev("message_end", message=failed)),
            A(ev("turn_end", message=failed, toolResults=[])), retry, *run_open(),
            A(ev("auto_retry_end", success=True, attempt=1)), *run_close()]
    assert loud(check(READY, *saga)) == []
    # pi's invariant still holds for pi: a retry belongs after the failed run's agent_end
    pi = check(A(ev("agent_settled")), *saga, dialect="pi-0.84")
    assert ("lifecycle.retry_unbalanced", 9) in loud(pi) and ("lifecycle.run_unbalanced", 10) in loud(pi)


# --- unknown frames: info for the agent, errors for the client -------------------------------
def test_an_agent_frame_no_dialect_knows_is_info_and_strict_makes_it_an_error() -> None:
    items = [A(ev("agent_settled", aborted=False)), A(ev("tomorrows_event", id="x", detail=1))]
    [f] = check(*items)
    assert (f.rule, f.severity, f.frame) == ("schema.unknown_agent_type", "info", 2)
    assert f.message == "unknown frame type 'tomorrows_event' in pi-0.99: a newer agent?"
    [f] = check(*items, strict_unknown=True)
    assert (f.rule, f.severity, f.frame) == ("schema.unknown_agent_type", "error", 2)
    # a client frame of an unknown type stays an error
    client = [A(ev("agent_settled")), C(cmd("tomorrows_command", "t")),
              A(err("tomorrows_command", "t", "Unknown command: tomorrows_command"))]
    assert [(f.rule, f.severity, f.frame) for f in check(*client)] == [("schema.unknown_type", "error", 2)]


def test_an_unknown_field_is_info_and_strict_unknown_makes_it_a_warning() -> None:
    items = [A(ev("agent_settled", aborted=False)), A(ev("session_settled_soon", n=1)), A(ev("agent_settled", x=1))]
    assert [(f.rule, f.severity) for f in check(*items)] == [("schema.unknown_agent_type", "info"),
                                                             ("schema.unknown_field", "info")]
    assert [(f.rule, f.severity) for f in check(*items, strict_unknown=True)] == [
        ("schema.unknown_agent_type", "error"), ("schema.unknown_field", "warning")]


# --- checker defects on older traffic -----------------------------------------------------
def test_the_echo_of_a_non_string_type_is_a_warning_about_the_clients_frame() -> None:
    items = [A(ev("agent_settled")), C({"id": "x", "type": 5}),
             A({"id": "x", "type": "response", "command": 5, "success": False, "error": "Unknown command: 5"})]
    findings = check(*items)
    assert [(f.rule, f.severity, f.frame) for f in findings if f.severity != "info"] == [
        ("schema.wrong_type", "error", 2), ("correlation.echoed_type", "warning", 3)]
    [echo] = [f for f in findings if f.rule == "correlation.echoed_type"]
    assert echo.related == 2


def test_a_response_whose_command_is_an_object_does_not_break_the_checker() -> None:
    items = [A(ev("agent_settled")), C({"id": "x", "type": {"a": 1}}),
             A({"id": "x", "type": "response", "command": {"a": 1}, "success": False, "error": "Unknown command"}),
             C({"id": "y", "type": ["steer"]}),
             A({"id": "y", "type": "response", "command": ["steer"], "success": False, "error": "Unknown command"})]
    for frames in (items, items[1:]):  # dialect known, and still undecided
        found = rules(check(*frames))
        assert "checker.internal_error" not in found
        assert "correlation.echoed_type" in found
