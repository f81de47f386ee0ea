"""The fake agent over real pipes: playback, ids, pacing, dialogs, divergence, EOF and exit."""

from __future__ import annotations

import time

import msgspec
import pytest

from rpcspy.recording.reader import open_recording
from rpcspy.recording.writer import RecordingWriter, make_header
from tests.paths import DATA
from tests.replay.driver import LiveReplay
from tests.replay.helpers import Rec, basic_session

T = str(DATA / "transcripts")


def test_prelude_then_answers_with_live_ids(tmp_path):
    live = LiveReplay(basic_session().write(tmp_path / "r.jsonl"))
    assert live.read_json()["type"] == "ready"  # sent at start, before any command
    live.send({"id": 7, "type": "get_state"})
    assert live.read_json() == {"id": 7, "type": "response", "command": "get_state", "success": True,
                                "data": {"sessionId": "01a20213-d398-77e8-928f-7e42015cc8a7"}}
    live.send({"type": "prompt", "message": "hi"})
    frames = live.read_until("agent_end")
    assert frames[0] == {"type": "response", "command": "prompt", "success": True}  # no id sent, none echoed
    assert [f["type"] for f in frames] == ["response", "agent_start", "message_update", "agent_end"]
    code, rest, err = live.finish()
    assert code == 0
    assert [msgspec.json.decode(x)["type"] for x in rest] == ["extension_ui_request"]  # the recorded epilogue
    assert b"some warning\n" in err and b"diverg" not in err


def test_raw_bytes_preserved(tmp_path):
    live = LiveReplay(basic_session().write(tmp_path / "r.jsonl"))
    live.read()
    live.send({"id": "s1", "type": "get_state"})
    live.read()
    live.send({"id": "p1", "type": "prompt", "message": "hi"})
    lines = [live.read() for _ in range(4)]
    assert "\u2028".encode() in lines[2]  # raw U+2028 goes out as recorded
    live.finish()


def test_divergence_gets_failure_response_and_report(tmp_path):
    report = tmp_path / "report.json"
    live = LiveReplay(basic_session().write(tmp_path / "r.jsonl"), report=str(report))
    live.read()
    live.send({"id": "x", "type": "prompt", "message": "something else"})
    resp = live.read_json()
    assert resp["id"] == "x" and resp["command"] == "prompt" and resp["success"] is False
    assert resp["error"].startswith("rpcspy replay: no recorded match (--match exact); closest: seq 4 (prompt")
    assert resp["error"].endswith("differs at $.message")
    mid = msgspec.json.decode(report.read_bytes())
    assert mid["final"] is False and len(mid["divergences"]) == 1  # written as it happens
    code, _, err = live.finish()
    assert code == 0
    text = err.decode()
    assert "1 divergence(s)" in text and "not consumed: seq 2 (get_state" in text
    final = msgspec.json.decode(report.read_bytes())
    assert final["final"] and final["divergences"][0]["path"] == "$.message"
    assert [u["command"] for u in final["unconsumed"]] == ["get_state", "prompt"]


def test_strict_exits_at_first_divergence(tmp_path):
    live = LiveReplay(basic_session().write(tmp_path / "r.jsonl"), strict=True)
    live.read()
    live.send({"id": "x", "type": "abort"})
    assert live.read_json()["success"] is False
    live.thread.join(5)
    assert live.code == 3
    live.finish()


def test_pacing_follows_recording_and_speed(tmp_path):
    r = Rec()
    r.at(1.0).c({"id": "p", "type": "prompt", "message": "x"})
    r.a({"id": "p", "type": "response", "command": "prompt", "success": True}, dt=0.0)
    r.a({"type": "agent_start"}, dt=0.3)
    r.a({"type": "agent_end"}, dt=0.3)
    path = r.write(tmp_path / "r.jsonl")
    for speed, low, high in ((1.0, 0.55, 2.0), (2.0, 0.27, 0.9), (0.0, 0.0, 0.3)):
        live = LiveReplay(path, speed=speed)
        t0 = time.monotonic()
        live.send({"id": "p", "type": "prompt", "message": "x"})
        live.read_until("agent_end")
        took = time.monotonic() - t0
        assert low <= took <= high, (speed, took)
        live.finish()


def test_dialog_waits_for_answer_and_maps_ids(tmp_path):
    r = Rec()
    r.at(1.0).c({"id": "c1", "type": "prompt", "message": "/pick"})
    r.a({"type": "extension_ui_request", "id": "u-rec", "method": "select", "title": "Pick", "options": ["A", "B"]})
    r.at(1.5).c({"type": "extension_ui_response", "id": "u-rec", "value": "A"})
    r.a({"type": "extension_ui_request", "id": "n-rec", "method": "notify", "message": "got A"})
    r.a({"id": "c1", "type": "response", "command": "prompt", "success": True})
    path = r.write(tmp_path / "r.jsonl")

    live = LiveReplay(path, reuse=True, new_id=lambda: "fresh")
    live.send({"id": "L1", "type": "prompt", "message": "/pick"})
    req = live.read_json()
    assert req["id"] == "u-rec" and req["method"] == "select"
    assert live.quiet(0.2)  # nothing more until the client answers
    live.send({"type": "extension_ui_response", "id": "u-rec", "value": "A"})
    assert live.read_json()["method"] == "notify"
    assert live.read_json() == {"id": "L1", "type": "response", "command": "prompt", "success": True}
    # again (reuse): the re-sent dialog gets a fresh id, the answer maps back
    live.send({"id": "L2", "type": "prompt", "message": "/pick"})
    assert live.read_json()["id"] == "fresh"
    live.send({"type": "extension_ui_response", "id": "fresh", "value": "A"})
    assert live.read_json()["method"] == "notify"
    assert live.read_json()["id"] == "L2"
    # a wrong answer is not answered (pi never answers them) but is a divergence
    live.send({"type": "extension_ui_response", "id": "fresh", "value": "B"})
    assert live.quiet(0.2)
    code, _, err = live.finish()
    assert code == 0 and b"1 divergence(s)" in err


def test_dialog_timeout_plays_recorded_answer(tmp_path):
    r = Rec()
    r.at(1.0).c({"id": "c1", "type": "prompt", "message": "/pick"})
    r.a({"type": "extension_ui_request", "id": "u", "method": "confirm", "title": "?", "message": "?", "timeout": 300})
    r.at(1.1).c({"type": "extension_ui_response", "id": "u", "confirmed": True})
    r.a({"id": "c1", "type": "response", "command": "prompt", "success": True})
    live = LiveReplay(r.write(tmp_path / "r.jsonl"), speed=1.0)
    t0 = time.monotonic()
    live.send({"id": "c1", "type": "prompt", "message": "/pick"})
    assert live.read_json()["method"] == "confirm"
    resp = live.read_json(timeout=60)
    assert resp["id"] == "c1" and 0.25 <= time.monotonic() - t0 <= 1.5
    _code, _, err = live.finish()
    assert b"not answered within its 300 ms timeout" in err


def test_agent_exit_mid_session_ends_replay(tmp_path):
    live = LiveReplay(f"{T}/structured/05_null_frame_crash.jsonl")
    src = open_recording(f"{T}/structured/05_null_frame_crash.jsonl")
    for f in src.frames():
        if f.dir == "c2a":
            live.send(f.data)
    live.thread.join(5)
    assert live.code == 1  # like pi: the null line crashed it
    _code, _, err = live.finish()
    assert b"TypeError" in err


def test_records_replay_session(tmp_path):
    out = tmp_path / "replayed.jsonl"
    w = RecordingWriter(str(out), make_header(["rpcspy", "replay"], mode="replay", source="r.jsonl"), warn=print)
    live = LiveReplay(basic_session().write(tmp_path / "r.jsonl"), recorder=w)
    live.read()
    live.send({"id": "q", "type": "nope"})
    live.read()
    live.finish()
    rec = open_recording(out)
    assert rec.header.mode == "replay"
    kinds = [type(e).__name__ for e in rec.entries()]
    assert kinds[-1] == "Exit" and "Eof" in kinds and "Note" in kinds
    dirs = [f.dir for f in rec.frames()]
    assert dirs[:3] == ["a2c", "c2a", "a2c"]


@pytest.mark.parametrize("name", ["01_basic_text_prompt", "02_tool_call", "20_bash_and_abort_bash",
                                  "30_session_ops_no_session", "60_extension_ui", "O1_omp_18.2.3_basic"])
def test_transcript_replays_to_recorded_frames(name):
    """The recorded client's own lines, sent back, get the recorded agent frames (ids equal here)."""
    path = f"{T}/structured/{name}.jsonl"
    frames = list(open_recording(path).frames())
    live = LiveReplay(path, match="sequence")
    for f in frames:
        if f.dir == "c2a":
            live.send(f.raw().rstrip(b"\n"))
    _code, rest, err = live.finish()
    expected = [f.data for f in frames if f.dir == "a2c"]
    assert rest == expected
    assert b"diverg" not in err and b"not consumed" not in err


def test_failure_response_waits_behind_earlier_answers(tmp_path):
    r = Rec()
    r.at(1.0).c({"id": "p", "type": "prompt", "message": "x"})
    r.a({"id": "p", "type": "response", "command": "prompt", "success": True})
    r.a({"type": "agent_start"}, dt=0.2)
    r.a({"type": "agent_end"}, dt=0.2)
    live = LiveReplay(r.write(tmp_path / "r.jsonl"), speed=1.0)
    live.send({"id": "p", "type": "prompt", "message": "x"})
    live.send({"id": "q", "type": "bogus"})
    got = [live.read_json(timeout=60) for _ in range(4)]
    assert [g.get("id", g["type"]) for g in got] == ["p", "agent_start", "agent_end", "q"]
    live.finish()
