"""The REPL's session state, folded from real transcripts and from hand-made frames."""

from __future__ import annotations

import json

from rpcspy.events import Exit, Finding, Frame
from rpcspy.interactive.state import SessionState
from rpcspy.recording import open_recording
from rpcspy.recording.entries import events
from tests.paths import REPO

INPUTS = REPO / "tests" / "golden" / "inputs"


def fold(name: str, upto: int | None = None) -> SessionState:
    state = SessionState()
    for event in events(open_recording(INPUTS / name).entries()):
        if upto is not None and event.seq > upto:
            break
        state.feed(event)
    return state


def f(seq: int, direction: str, obj: dict, t: float | None = None) -> Frame:
    return Frame(seq, seq / 10 if t is None else t, direction, json.dumps(obj).encode())


def test_queue_and_streaming_follow_the_run() -> None:
    mid = fold("pi073_10_streaming_steer_followup_queue.jsonl", upto=28)
    assert mid.streaming and mid.abort_command() == "abort"
    assert [len(x) for x in mid.queue] == [3, 2]
    assert ("yellow", "queue: 3 steer, 2 follow-up") in mid.status_parts()
    end = fold("pi073_10_streaming_steer_followup_queue.jsonl")
    assert not end.streaming and end.queue == ([], []) and not end.pending
    assert end.status_parts()[0] == ("", "idle")


def test_dialogs_open_close_and_time_out() -> None:
    name = "pi073_60_extension_ui.jsonl"
    opened = fold(name, upto=8)
    (dialog,) = opened.take_opened()
    assert dialog.request["method"] == "select" and opened.is_open(dialog.id)
    assert opened.take_opened() == [], "each dialog is handed out once"
    assert opened.statuses == {"rpc-demo": "Turns: 0"} and opened.title == "pi RPC Demo"
    after_timeout = fold(name, upto=9)  # the notify 0.8 s later: the select's 800 ms are over
    assert not after_timeout.is_open(dialog.id)
    confirm = fold(name, upto=18)  # an answer with a wrong id closes nothing
    assert [d.request["title"] for d in confirm.dialogs.values()] == ["Sure?"]
    assert not fold(name, upto=19).dialogs
    misc = fold(name, upto=42)
    assert misc.statuses == {"rpc-demo": "Turns: 0", "s1": "busy"} and misc.widgets["w2"] == ["x"]
    assert "w1" not in misc.widgets and fold(name, upto=43).statuses == {"rpc-demo": "Turns: 0"}


def test_omp_cancel_closes_a_dialog() -> None:
    state = SessionState()
    state.feed(f(1, "a2c", {"type": "extension_ui_request", "id": "d", "method": "input", "title": "x"}))
    assert state.is_open("d")
    state.feed(f(2, "a2c", {"type": "extension_ui_request", "id": "c", "method": "cancel", "targetId": "d"}))
    assert not state.is_open("d") and state.take_opened() == []


def test_what_ctrl_c_stops() -> None:
    state = SessionState()
    assert state.abort_command() is None and not state.busy
    state.feed(f(1, "c2a", {"id": "b1", "type": "bash", "command": "sleep 9"}))
    assert state.abort_command() == "abort_bash" and "waiting: bash b1" in state.status_parts()[1][1]
    state.feed(f(2, "a2c", {"id": "b1", "type": "response", "command": "bash", "success": True}))
    state.feed(f(3, "a2c", {"type": "agent_end", "messages": []}))
    state.feed(f(4, "a2c", {"type": "auto_retry_start", "attempt": 1, "maxAttempts": 2, "delayMs": 9, "errorMessage": ""}))
    assert state.abort_command() == "abort_retry"
    state.feed(f(5, "a2c", {"type": "agent_start"}))
    assert state.abort_command() == "abort" and not state.retrying
    state.feed(f(6, "a2c", {"type": "agent_end", "messages": []}))
    state.feed(f(7, "a2c", {"type": "compaction_start", "reason": "manual"}))
    assert state.abort_command() == "abort" and ("yellow", "compacting (manual)") in state.status_parts()
    state.feed(f(8, "a2c", {"type": "compaction_end", "reason": "manual", "aborted": False, "willRetry": False}))
    assert state.abort_command() is None


def test_findings_and_exit() -> None:
    state = SessionState()
    state.feed(Finding(1, 0.1, "schema.x", "error", "schema", "bad"))
    state.feed(Finding(2, 0.1, "schema.y", "warning", "schema", "meh"))
    assert ("bold red", "findings: 1 error(s), 1 warning(s)") in state.status_parts()
    state.feed(f(3, "a2c", {"type": "extension_ui_request", "id": "d", "method": "confirm", "title": "t",
                            "message": "m"}))
    state.feed(Exit(4, 0.5, 3))
    assert state.exit_code == 3 and not state.dialogs
    assert state.status_parts()[0] == ("bold", "agent exited (3)")


def test_garbage_is_ignored() -> None:
    state = SessionState()
    for data in (b"not json", b"[1]", b'{"type": 5}', b'{"type":"response","id":{"a":1}}', b"\xff"):
        state.feed(Frame(1, 0.1, "a2c", data))
        state.feed(Frame(2, 0.1, "c2a", data))
    assert not state.busy
    # the client's `{"type":"response",...}` is a command to the agent (pi answers it with an error),
    # still waiting, as check and stats count it; the other lines are no commands
    assert [(p.type, p.id) for p in state.pending] == [("response", {"a": 1})]


def test_why_a_dialog_closed() -> None:
    state = SessionState()
    for i, method in enumerate(("input", "confirm", "select", "editor")):
        state.feed(f(i, "a2c", {"type": "extension_ui_request", "id": f"d{i}", "method": method, "title": "t",
                                "timeout": 500}, t=0.0))
    state.feed(f(10, "c2a", {"type": "extension_ui_response", "id": "d0", "value": "x"}, t=0.1))
    state.feed(f(11, "a2c", {"type": "extension_ui_request", "id": "c", "method": "cancel", "targetId": "d1"}, t=0.2))
    state.give_up("d3", "given up")
    state.feed(f(12, "a2c", {"type": "agent_start"}, t=0.6))
    assert [state.why_closed(f"d{i}") for i in range(4)] == [
        "answered", "cancelled by the agent", "timed out: the agent went on with its default", "given up"]
    assert state.why_closed("never-seen") == "closed"


def test_commands_pair_as_everywhere_else() -> None:
    """An id-less ``bash`` is running too; the id-less answer goes to the id-less command (issue 11)."""
    state = SessionState()
    state.feed(f(1, "c2a", {"type": "bash", "command": "sleep 9"}))
    assert state.busy and state.abort_command() == "abort_bash"
    assert ("", "waiting: bash") in state.status_parts()
    state.feed(f(2, "c2a", {"id": "g", "type": "get_commands"}))
    state.feed(f(3, "c2a", {"type": "get_commands"}))
    state.feed(f(4, "a2c", {"type": "response", "command": "get_commands", "success": True}))
    assert [(p.type, p.id) for p in state.pending][1:] == [("get_commands", "g")]
    state.feed(f(5, "a2c", {"type": "response", "command": "bash", "success": True}))
    state.feed(f(6, "a2c", {"id": "g", "type": "response", "command": "get_commands", "success": True}))
    assert not state.pending and not state.busy
