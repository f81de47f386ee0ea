"""Lifecycle pairing, and the known legitimate gaps that must not be reported as errors."""

from __future__ import annotations

import pytest

from tests.checker.helpers import (
    A,
    C,
    assistant,
    check,
    cmd,
    ev,
    hits,
    ok,
    rules,
    run_close,
    run_open,
    text,
    tool_call,
    upd,
    user,
)

COMPACT_DATA = {"summary": "s", "firstKeptEntryId": "e", "tokensBefore": 0}
PROMPT = [C(cmd("prompt", "p", message="hi")), A(ok("prompt", "p"))]


def errors(findings: list) -> list:  # type: ignore[type-arg]
    """Non-info findings outside the schema group (these frames are terse, not schema-perfect)."""
    return [(f.rule, f.frame) for f in findings if f.severity != "info" and f.group != "schema"]


def test_a_complete_run_is_clean() -> None:
    final = assistant(text("ab"))
    items = [*PROMPT, *run_open(), A(ev("message_start", message=assistant(stop="pending"))),
             A(upd("text_start", 0)), A(upd("text_delta", 0, delta="ab")), A(upd("text_end", 0, content="ab")),
             A(ev("message_end", message=final)), *run_close(final)]
    assert errors(check(*items)) == []


@pytest.mark.parametrize("command", ["compact", "new_session", "switch_session", "fork", "clone"])
def test_pi073_session_command_mid_run_orphans_the_run_quietly(command: str) -> None:
    """T52/T82: the run's closing events never come; only an info finding."""
    items = [*PROMPT, *run_open(), A(ev("message_start", message=assistant(stop="pending"))),
             A(upd("text_start", 0)), C(cmd(command, "x")), A(ok(command, "x")),
             *PROMPT, *run_open(), *run_close()]
    findings = check(*items, dialect="pi-0.73")
    assert errors(findings) == []
    assert hits(findings, "lifecycle.run_abandoned") == [9]  # the command that ended it


def test_pi084_session_command_closes_the_run_first() -> None:
    """N82: closing events come before the response; nothing is abandoned."""
    items = [*PROMPT, *run_open(), C(cmd("new_session", "n")),
             *run_close(assistant(text(""), stop="aborted")), A(ev("agent_settled")),
             A(ok("new_session", "n", {"cancelled": False}))]
    findings = check(*items, dialect="pi-0.84")
    assert errors(findings) == [] and "lifecycle.run_abandoned" not in rules(findings)


def test_pi084_compaction_overlapping_a_run_is_fine() -> None:
    """N53: compact and prompt in one write: the run streams while compaction completes."""
    items = [C(cmd("prompt", "p", message="hi")), C(cmd("compact", "c")),
             A(ev("compaction_start", reason="manual")), A(ok("prompt", "p")), *run_open(),
             A(ev("compaction_end", reason="manual", result=COMPACT_DATA, aborted=False, willRetry=False)),
             A(ok("compact", "c", COMPACT_DATA)), *run_close()]
    assert errors(check(*items, dialect="pi-0.84")) == []


def test_pi073_compact_racing_a_prompt_loses_the_opening_events_quietly() -> None:
    """T53: the stream starts at a bare message_update."""
    final = assistant(text("ab"))
    items = [C(cmd("prompt", "p", message="hi")), C(cmd("compact", "c")), A(ok("prompt", "p")),
             A(upd("text_delta", 0, delta="b")), A(ev("compaction_start", reason="manual")),
             A(ev("compaction_end", reason="manual", result=COMPACT_DATA, aborted=False, willRetry=False)),
             A(ok("compact", "c", COMPACT_DATA)),
             A(upd("text_end", 0, content="ab")), A(ev("message_end", message=final)), *run_close(final),
             *PROMPT, *run_open(), *run_close()]
    assert errors(check(*items, dialect="pi-0.73")) == []


def test_leniency_ends_at_the_next_agent_start() -> None:
    items = [C(cmd("compact", "c")), A(ok("compact", "c", COMPACT_DATA)),
             A(ev("agent_start")), A(ev("agent_end", messages=[])), A(ev("turn_end", message={}, toolResults=[]))]
    assert hits(check(*items, dialect="pi-0.73"), "lifecycle.turn_unbalanced") == [5]


def test_abort_mid_stream_is_clean() -> None:
    aborted = assistant(text("wo"), stop="aborted")
    items = [*PROMPT, *run_open(), A(ev("message_start", message=assistant(stop="pending"))),
             A(upd("text_start", 0)), A(upd("text_delta", 0, delta="wo")), C(cmd("abort", "a")),
             A(upd("text_end", 0, content="wo")), A(ev("message_end", message=aborted)), *run_close(aborted),
             A(ok("abort", "a"))]
    assert errors(check(*items)) == []


def test_auto_retry_runs_are_clean() -> None:
    """T42/N42: failed run, agent_end, auto_retry_start, a new run without user message."""
    failed = assistant(stop="error")
    retry = [A(ev("auto_retry_start", attempt=1, maxAttempts=2, delayMs=300, errorMessage="503"))]
    items = [*PROMPT, *run_open(), A(ev("message_start", message=failed)), A(ev("message_end", message=failed)),
             A(ev("turn_end", message=failed, toolResults=[])), A(ev("agent_end", messages=[failed], willRetry=True)),
             *retry, A(ev("agent_start")), A(ev("turn_start")),
             A(ev("message_start", message=assistant(text("ok")))), A(ev("message_end", message=assistant(text("ok")))),
             A(ev("auto_retry_end", success=True, attempt=1)), *run_close(), A(ev("agent_settled"))]
    assert errors(check(*items)) == []


def test_will_retry_without_retry_is_flagged() -> None:
    items = [A(ev("agent_start")), A(ev("agent_end", messages=[], willRetry=True)), A(ev("agent_settled"))]
    assert hits(check(*items), "lifecycle.retry_unbalanced") == [3]
    items = [A(ev("agent_start")), A(ev("agent_end", messages=[], willRetry=False)),
             A(ev("auto_retry_start", attempt=1, maxAttempts=2, delayMs=1, errorMessage="e"))]
    assert hits(check(*items), "lifecycle.retry_unbalanced") == [3]


def test_custom_message_outside_a_run_is_fine_but_user_is_not() -> None:
    custom = {"role": "custom", "customType": "x", "content": "hi", "display": True, "timestamp": 1}
    assert errors(check(A(ev("message_start", message=custom)), A(ev("message_end", message=custom)))) == []
    assert hits(check(A(ev("message_start", message=user())), A(ev("message_end", message=user()))),
                "lifecycle.message_unbalanced") == [1]


def test_nested_and_mismatched_messages() -> None:
    items = [*run_open(), A(ev("message_start", message=user())), A(upd("text_delta", 0, delta="x")),
             A(ev("message_end", message=assistant()))]
    assert hits(check(*items), "lifecycle.message_unbalanced") == [6, 7]


def test_tool_lifecycle() -> None:
    call = assistant(tool_call("c1", {"command": "ls"}), stop="toolUse")
    start = A(ev("tool_execution_start", toolCallId="c1", toolName="bash", args={"command": "ls"}))
    end = A(ev("tool_execution_end", toolCallId="c1", toolName="bash", result={"content": []}, isError=False))
    base = [*run_open(), A(ev("message_start", message=call)), A(ev("message_end", message=call))]
    assert errors(check(*base, start, end, *run_close())) == []
    findings = check(*base, start, start, *run_close())
    assert hits(findings, "lifecycle.tool_unbalanced") == [8, 9]  # second start, then turn_end with it open


def test_compaction_pairs_and_reasons() -> None:
    start = A(ev("compaction_start", reason="threshold"))
    assert hits(check(start, A(ev("compaction_end", reason="overflow", aborted=False, willRetry=False))),
                "lifecycle.compaction_unbalanced") == [2]
    assert hits(check(start, start), "lifecycle.compaction_unbalanced") == [2]
    omp = [A(ev("auto_compaction_start", reason="threshold", action="compact")),
           A(ev("auto_compaction_end", action="compact", aborted=False, willRetry=False))]
    assert hits(check(*omp), "lifecycle.compaction_unbalanced") == []


def test_stray_settled_after_back_to_back_prompts() -> None:
    """N80: the second prompt is dropped and pi 0.87 emits agent_settled inside the run."""
    items = [C(cmd("prompt", "p1", message="a")), C(cmd("prompt", "p2", message="b")),
             A(ok("prompt", "p1")), A(ok("prompt", "p2")), A(ev("agent_start")), A(ev("agent_settled")),
             A(ev("turn_start")), A(ev("turn_end", message=assistant(), toolResults=[])),
             A(ev("agent_end", messages=[], willRetry=False)), A(ev("agent_settled"))]
    findings = check(*items)
    assert hits(findings, "misuse.prompt_while_starting") == [2]
    assert hits(findings, "lifecycle.settled_while_running") == [6]
    assert hits(findings, "lifecycle.turn_unbalanced") == []


def test_events_may_not_carry_ids_but_some_frames_do() -> None:
    assert hits(check(A({"type": "turn_start", "id": "x"})), "lifecycle.event_with_id") == [1]
    allowed = [A({"type": "extension_ui_request", "id": "q", "method": "notify", "message": "m"}),
               A({"type": "prompt_result", "id": "p", "agentInvoked": True, "status": "completed",
                  "sessionSettled": True})]
    assert hits(check(*allowed), "lifecycle.event_with_id") == []


def test_malformed_role_does_not_break_the_lifecycle_rules() -> None:
    """Found by hypothesis: a list-valued role made message_start raise (unhashable)."""
    from rpcspy.checker import Checker
    from rpcspy.events import Frame

    checker = Checker()
    found = checker.feed(Frame(1, 0.0, "a2c", b'{"message": {"type": null, "id": null, "role": []}, '
                                               b'"type": "message_start"}'))
    assert not [f for f in found if f.rule == "checker.internal_error"]
