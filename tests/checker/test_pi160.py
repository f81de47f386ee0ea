"""pi 1.6.0's changes a checker must know (protocol-notes 12), on frames written from the notes and on
recordings of the real agent with an extension (tests/data/recordings/pi-1.6.0-*.jsonl, made with
tests/data/extensions/pi160.js; tests/integration/test_extension_agents.py records them afresh)."""

from __future__ import annotations

from rpcspy.checker import Checker
from rpcspy.diagnose.explain import diagnose_entries
from rpcspy.events import Exit
from rpcspy.recording import open_recording
from tests.checker.helpers import A, C, assistant, check, cmd, ev, ok, tool_call, ui_req, ui_resp
from tests.paths import DATA

RECORDINGS = DATA / "recordings"
ENTRY = {"type": "custom", "customType": "probe", "data": {"reason": "startup"}, "id": "e1", "parentId": None,
         "timestamp": "2026-11-27T21:59:12.000Z"}


def _above_info(*items, **kw):  # type: ignore[no-untyped-def]
    return [(f.rule, f.frame, f.message) for f in check(*items, dialect="pi-0.99", **kw) if f.severity != "info"]


def test_session_start_events_come_first_and_before_a_session_operations_response() -> None:
    items = [A(ev("entry_appended", entry=ENTRY)), A(ui_req("n1", "notify", message="session_start startup")),
             C(cmd("new_session", "ns")), A(ev("entry_appended", entry={**ENTRY, "id": "e2"})),
             A(ui_req("n2", "notify", message="session_start new")),
             A(ui_req("d1", "confirm", title="start?", message="?")), C(ui_resp("d1", confirmed=True)),
             A(ok("new_session", "ns", {"cancelled": False}))]
    assert _above_info(*items) == []


def test_extension_error_from_a_pi_events_handler() -> None:
    error = {"type": "extension_error", "extensionPath": "/x/probe.js", "event": "events:rpcspy:boom",
             "error": "probe handler failed"}
    items = [C(cmd("prompt", "b", message="/boom")), A(error), A(ok("prompt", "b", {"disposition": "handled"}))]
    assert [f for f in check(*items, dialect="pi-0.99") if f.group in ("schema", "correlation", "lifecycle")] == []


def test_an_aborted_batch_closes_every_call_operation_aborted() -> None:
    calls = [tool_call(f"c{i}", {}, "slow_step") for i in (1, 2, 3)]
    aborted = {"content": [{"type": "text", "text": "Operation aborted"}], "details": {}}
    items = [A(ev("agent_start")), A(ev("turn_start")),
             A(ev("message_start", message={**assistant(stop="stop"), "content": []})),  # 1.6.0: always empty
             A(ev("message_end", message=assistant(*calls, stop="toolUse")))]
    for i, call in enumerate(calls, start=1):
        result = aborted if i > 1 else {"content": [{"type": "text", "text": "slow step aborted"}], "details": {}}
        end = ev("tool_execution_end", toolCallId=call["id"], toolName="slow_step", result=result, isError=True)
        if i == 1:
            end["durationMs"] = 519
        msg = {"role": "toolResult", "toolCallId": call["id"], "toolName": "slow_step", "content": result["content"],
               "isError": True, "timestamp": 3}
        items += [A(ev("tool_execution_start", toolCallId=call["id"], toolName="slow_step", args={})), A(end),
                  A(ev("message_start", message=msg)), A(ev("message_end", message=msg))]
    items += [A(ev("turn_end", message=assistant(*calls, stop="toolUse"), toolResults=[])),
              A(ev("agent_end", messages=[], willRetry=False)), A(ev("agent_settled", aborted=True))]
    found = [(f.rule, f.frame) for f in check(*items, dialect="pi-0.99") if f.group in ("lifecycle", "stream")
             or f.severity != "info"]
    assert found == []


def _check(path):  # type: ignore[no-untyped-def]
    rec = open_recording(path)
    checker = Checker()
    found, last, code = [], 0.0, None
    for entry in rec.entries():
        if isinstance(entry, Exit):
            code = entry.code
    for frame in rec.frames():
        found += checker.feed(frame)
        last = frame.t
    return checker, found + checker.finish(last, exit_code=code)


def test_the_real_extension_session_is_clean() -> None:
    checker, found = _check(RECORDINGS / "pi-1.6.0-extensions.jsonl")
    assert checker.dialect == "pi-0.99"
    assert sorted({(f.rule, f.severity) for f in found}) == [
        ("lifecycle.response_after_settle", "info"), ("misuse.queued_while_idle", "info")]
    d = diagnose_entries(open_recording(RECORDINGS / "pi-1.6.0-extensions.jsonl").entries(), dialect="pi-0.99")
    assert [i.kind for i in d.outstanding] == ["queued"] and "no run is active" in d.outstanding[0].text


def test_the_real_session_start_dialog_answered_with_a_stray_id() -> None:
    _, found = _check(RECORDINGS / "pi-1.6.0-session-start-dialog.jsonl")
    assert [f.rule for f in found if f.severity != "info"] == ["correlation.ui_unknown_id", "correlation.unanswered"]
    d = diagnose_entries(open_recording(RECORDINGS / "pi-1.6.0-session-start-dialog.jsonl").entries())
    command, dialog = d.outstanding
    assert "session_start handlers before it answers a session operation" in command.text
    assert "which the agent never asked for" in dialog.text


def test_a_run_cut_off_by_sigterm_is_named_so() -> None:
    """pi exits 143 itself after SIGTERM (the run cut off without agent_end); 1.6.0 also when stdin closed after it."""
    items = [C(cmd("prompt", "p", message="hi")), A(ok("prompt", "p", {"disposition": "started"})), A(ev("agent_start"))]
    [f] = [f for f in check(*items, dialect="pi-0.99", exit_code=143) if f.rule == "lifecycle.run_cut_off"]
    assert "(the agent exited with code 143, the status of SIGTERM)" in f.message
    [f] = [f for f in check(*items, dialect="pi-0.99", exit_code=0) if f.rule == "lifecycle.run_cut_off"]
    assert "(the agent exited with code 0)" in f.message
