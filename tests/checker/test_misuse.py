"""Client misuse: prompt timing, extension commands in the queue, null frames."""

from __future__ import annotations

from tests.checker.helpers import A, C, check, cmd, err, ev, hits, ok

GC = [C(cmd("get_commands", "g")),
      A(ok("get_commands", "g", {"commands": [{"name": "boom", "source": "extension", "sourceInfo": {}},
                                              {"name": "fix-tests", "source": "prompt", "sourceInfo": {}}]}))]
RUN = [C(cmd("prompt", "p1", message="hi")), A(ok("prompt", "p1")), A(ev("agent_start"))]


def test_prompts_in_sequence_are_fine() -> None:
    items = [*RUN, A(ev("agent_end", messages=[])), C(cmd("prompt", "p2", message="again"))]
    assert hits(check(*items), "misuse.prompt_while_starting") == []


def test_prompt_after_a_failed_prompt_is_fine() -> None:
    items = [C(cmd("prompt", "p1", message="a")), A(err("prompt", "p1", "No API key")),
             C(cmd("prompt", "p2", message="b"))]
    assert hits(check(*items), "misuse.prompt_while_starting") == []


def test_streaming_behavior_does_not_save_a_back_to_back_prompt() -> None:
    items = [C(cmd("prompt", "p1", message="a")), C(cmd("prompt", "p2", message="b", streamingBehavior="steer"))]
    [f] = [f for f in check(*items) if f.rule == "misuse.prompt_while_starting"]
    assert (f.frame, f.related, f.severity) == (2, 1, "error")


def test_extension_command_prompt_closes_the_window_at_its_response() -> None:
    """T60: `/ask` waits on a dialog, answers, and starts no run."""
    items = [C(cmd("prompt", "c1", message="/ask")), A(ok("prompt", "c1")), C(cmd("prompt", "c2", message="/ask"))]
    assert hits(check(*items), "misuse.prompt_while_starting") == []


def test_prompt_while_streaming_is_judged_by_the_response() -> None:
    # rejected: flagged at the prompt, related to the rejection
    findings = check(*RUN, C(cmd("prompt", "p2", message="b")), A(err("prompt", "p2", "Agent is already processing.")))
    [f] = [f for f in findings if f.rule == "misuse.prompt_while_streaming"]
    assert (f.frame, f.related) == (4, 5)
    # accepted (the run ended meanwhile, or an extension command runs at once): nothing
    assert hits(check(*RUN, C(cmd("prompt", "p2", message="/boom")), A(ok("prompt", "p2"))),
                "misuse.prompt_while_streaming") == []


def test_queue_extension_command_known_from_get_commands() -> None:
    assert hits(check(*GC, C(cmd("follow_up", "f", message="/boom"))), "misuse.queue_extension_command") == [3]
    assert hits(check(*GC, C(cmd("steer", "s", message="/fix-tests"))), "misuse.queue_extension_command") == []


def test_queue_extension_command_learned_from_the_rejection() -> None:
    """Without get_commands, pi's rejection names the problem."""
    items = [C(cmd("steer", "s", message="/boom")),
             A(err("steer", "s", 'Extension command "/boom" cannot be queued. Use prompt() or execute the command '
                                 "when not streaming."))]
    [f] = [f for f in check(*items) if f.rule == "misuse.queue_extension_command"]
    assert (f.frame, f.related) == (1, 2)
    assert hits(check(items[0], A(ok("steer", "s"))), "misuse.queue_extension_command") == []


def test_null_only_from_the_client() -> None:
    assert hits(check(C(b"null")), "misuse.null_frame") == [1]
    assert hits(check(A(b"null")), "framing.not_object") == [1]
    assert hits(check(A(b"null")), "misuse.null_frame") == []


def _queued(kind: str, id_: str) -> list:  # type: ignore[type-arg]
    return [C(cmd(kind, id_, message="later")), A(ok(kind, id_, {"disposition": "queued"}))]


def test_steer_and_follow_up_while_idle_are_said_at_info_on_their_frame() -> None:
    """pi 1.5.2/1.6.0 answer `disposition:"queued"` and start nothing (the message waits for a later prompt)."""
    found = [(f.frame, f.related, f.severity) for f in check(*_queued("steer", "s"), *_queued("follow_up", "f"),
                                                            dialect="pi-0.99")
             if f.rule == "misuse.queued_while_idle"]
    assert found == [(1, 2, "info"), (3, 4, "info")]
    [f] = [f for f in check(*_queued("steer", "s"), dialect="pi-0.99") if f.rule == "misuse.queued_while_idle"]
    assert "waits in the queue until a later prompt" in f.message and 'disposition:"queued"' in f.message


def test_queue_during_a_run_or_a_starting_prompt_or_handled_is_fine() -> None:
    assert hits(check(*RUN, *_queued("steer", "s"), dialect="pi-0.99"), "misuse.queued_while_idle") == []
    starting = [C(cmd("prompt", "p1", message="hi")), A(ok("prompt", "p1")), *_queued("follow_up", "f")]
    assert hits(check(*starting, dialect="pi-0.99"), "misuse.queued_while_idle") == []
    handled = [C(cmd("steer", "s", message="x")), A(ok("steer", "s", {"disposition": "handled"}))]
    assert hits(check(*handled, dialect="pi-0.99"), "misuse.queued_while_idle") == []
    refused = [C(cmd("steer", "s", message="x")), A(err("steer", "s", "nope"))]
    assert hits(check(*refused, dialect="pi-0.99"), "misuse.queued_while_idle") == []
