"""`why` on what it used to get wrong: an agent ended by SIGTERM, a queue while no run is active, a dialog
answered with an id the agent never asked for (issue 22)."""

from __future__ import annotations

from rpcspy.diagnose.explain import diagnose_entries, explain
from rpcspy.diagnose.tracker import Tracker
from rpcspy.events import Eof, Exit, Note
from rpcspy.recording.format import FrameEntry
from tests.checker.helpers import to_frames
from tests.diagnose.helpers import RUN, SETTLE, A, C, kinds, why

PROMPT = [C({"id": "p", "type": "prompt", "message": "hi"}),
          A({"id": "p", "type": "response", "command": "prompt", "success": True, "data": {"disposition": "started"}})]


def test_sigterm_mid_run_is_blamed_on_the_signal_not_on_stdin_eof() -> None:
    """pi exits 143 itself after SIGTERM (an orderly shutdown), also when the client closed stdin after it."""
    d = why(*PROMPT, *[A(e) for e in RUN], eof=True, exit_code=143)
    run = next(i for i in d.outstanding if i.kind == "run")
    assert "SIGTERM cuts a run in progress off" in run.text
    assert "stdin EOF" not in run.text
    assert "ended by SIGTERM (exit code 143" in run.text
    assert any("ended by SIGTERM" in c for c in d.context)


def test_sigterm_from_the_recording_names_the_forwarded_signal() -> None:
    def entry(seq: int, obj: bytes, direction: str = "a2c") -> FrameEntry:
        return FrameEntry(seq=seq, t=seq * 0.1, dir=direction, text=obj.decode())  # type: ignore[arg-type]

    entries = [entry(1, b'{"id":"p","type":"prompt","message":"hi"}', "c2a"),
               entry(2, b'{"id":"p","type":"response","command":"prompt","success":true}'),
               entry(3, b'{"type":"agent_start"}'),
               Note(seq=4, t=0.4, level="info", text="forwarded SIGTERM to the agent's process group"),
               Eof(seq=5, t=0.5, dir="c2a"), Exit(seq=6, t=0.6, code=143)]
    d = diagnose_entries(entries, dialect="pi-0.99")
    run = next(i for i in d.outstanding if i.kind == "run")
    assert "ended by SIGTERM (exit code 143, frame 6), which the proxy forwarded to it at frame 4" in run.text
    assert "stdin EOF" not in run.text


def test_a_kill_by_signal_is_named_from_the_exit_entry() -> None:
    tr = Tracker()
    for frame in to_frames([*PROMPT, A({"type": "agent_start"})]):
        tr.feed(frame)
    tr.exited(4, 1.0, 137, signal=9)
    run = next(i for i in explain(tr).outstanding if i.kind == "run")
    assert "ended by SIGKILL (exit code 137" in run.text and "SIGKILL cuts a run in progress off" in run.text


def test_eof_alone_is_still_the_cause_of_a_plain_exit() -> None:
    d = why(*PROMPT, *[A(e) for e in RUN], eof=True, exit_code=0)
    run = next(i for i in d.outstanding if i.kind == "run")
    assert "pi cuts a run in progress off at stdin EOF" in run.text


def test_steer_while_idle_is_queued_and_waits_for_the_next_prompt() -> None:
    """pi >= 0.99 answers `disposition:"queued"` and starts nothing (protocol-notes 3, T12)."""
    d = why(C({"id": "s", "type": "steer", "message": "later"}),
            A({"type": "queue_update", "steering": ["later"], "followUp": []}),
            A({"id": "s", "type": "response", "command": "steer", "success": True,
               "data": {"disposition": "queued"}}))
    assert kinds(d.outstanding) == ["queued"]
    text = d.outstanding[0].text
    assert "no run is active" in text and "waits for the next prompt" in text
    assert "delivered when the run reaches them" not in text
    assert d.outstanding[0].frames == (1, 2)


def test_follow_up_while_idle_without_queue_update() -> None:
    d = why(C({"id": "f", "type": "follow_up", "message": "later"}),
            A({"id": "f", "type": "response", "command": "follow_up", "success": True,
               "data": {"disposition": "queued"}}))
    assert kinds(d.outstanding) == ["queued"]
    assert 'disposition "queued"' in d.outstanding[0].text and "no run is active" in d.outstanding[0].text


def test_queue_during_a_run_is_still_delivered_by_that_run() -> None:
    d = why(*PROMPT, *[A(e) for e in RUN], C({"id": "s", "type": "steer", "message": "x"}),
            A({"type": "queue_update", "steering": ["x"], "followUp": []}),
            A({"id": "s", "type": "response", "command": "steer", "success": True,
               "data": {"disposition": "queued"}}))
    queued = next(i for i in d.outstanding if i.kind == "queued")
    assert "delivered when the run reaches them" in queued.text


def test_idle_queue_is_delivered_by_the_next_prompt() -> None:
    idle = [C({"id": "s", "type": "steer", "message": "later"}),
            A({"id": "s", "type": "response", "command": "steer", "success": True, "data": {"disposition": "queued"}})]
    steer_msg = {"type": "message_start", "message": {"role": "user", "content": [{"type": "text", "text": "later"}]}}
    d = why(*idle, *PROMPT, *[A(e) for e in RUN], A(steer_msg), *[A(e) for e in SETTLE])
    assert d.outstanding == []


def test_dialog_answered_with_an_id_never_asked_for_is_named() -> None:
    d = why(C({"id": "p", "type": "prompt", "message": "/deploy"}),
            A({"type": "extension_ui_request", "id": "d-1", "method": "confirm", "title": "Deploy?", "message": "?"}),
            C({"type": "extension_ui_response", "id": "d-2", "confirmed": True}))
    dialog = next(i for i in d.outstanding if i.kind == "dialog")
    assert "answered id 'd-2', which the agent never asked for" in dialog.text
    assert dialog.frames == (2, 3)
    (stray,) = [p for p in d.pitfalls if p.kind == "pitfall.stray_dialog_answer"]
    assert "id 'd-2'" in stray.text and "'d-1'" in stray.text


def test_an_answer_to_a_known_dialog_is_no_pitfall() -> None:
    d = why(A({"type": "extension_ui_request", "id": "d-1", "method": "confirm", "title": "?", "message": "?"}),
            C({"type": "extension_ui_response", "id": "d-1", "confirmed": True}),
            C({"type": "extension_ui_response", "id": "d-1", "confirmed": True}))  # a duplicate is not a stray
    assert d.outstanding == [] and d.pitfalls == []
