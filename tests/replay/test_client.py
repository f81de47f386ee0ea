"""The client side (`replay --client`): plans, waiting, dialog mapping, round trip through the fake agent."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

from rpcspy.pump.commands.fake_client import ClientRun
from rpcspy.recording.reader import open_recording
from rpcspy.recording.writer import RecordingWriter, make_header
from rpcspy.replay.client import Said, map_answer, plan
from tests.paths import DATA
from tests.replay.helpers import Rec

T = str(DATA / "transcripts/structured")
REPLAY = [sys.executable, "-m", "rpcspy", "replay"]


def test_plan_collects_what_came_before_each_client_frame():
    r = Rec()
    r.at(0.1).a({"type": "ready"})
    r.at(1.0).c({"id": "p", "type": "prompt"})
    r.a({"id": "p", "type": "response", "command": "prompt", "success": True})
    r.a({"type": "extension_ui_request", "id": "u1", "method": "confirm", "title": "?"})
    r.a({"type": "extension_ui_request", "id": "n1", "method": "notify", "message": "x"})
    r.at(2.0).c({"type": "extension_ui_response", "id": "u1", "confirmed": True})
    r.a({"type": "agent_end"})
    r.a({"type": "response", "command": "parse", "success": False, "error": "x"})
    r.at(3.0).eof().exit(0)
    steps = plan(Rec.__new__(Rec) and _entries(r))
    assert [s.data is None for s in steps] == [False, False, True]
    first, second, eof = (s.need for s in steps)
    assert first.events == {"ready": 1} and not first.responses
    assert second.responses == {b'"p"': 1} and second.requests == [b'"u1"']  # notify needs no answer
    assert eof.events == {"ready": 1, "agent_end": 1} and eof.idless == 1


def _entries(r: Rec):
    import tempfile

    with tempfile.TemporaryDirectory() as d:
        path = r.write(Path(d) / "r.jsonl")
        return list(open_recording(path).entries())


def test_missing_lists_what_is_outstanding():
    need = Said()
    need.add(b'{"id":"a","type":"response","success":true}')
    need.add(b'{"type":"agent_end"}')
    live = Said()
    assert live.missing(need) == ['response id "a"', "1 agent_end"]
    live.add(b'{"type":"response","id":"a","success":true}')  # id not first: still counted
    live.add(b'{"type":"agent_end","messages":[]}')
    assert live.missing(need) == []


def test_dialog_answers_follow_the_live_dialog_ids(tmp_path: Path):
    r = Rec()
    r.at(1.0).c({"id": "c", "type": "prompt", "message": "/pick"})
    r.a({"type": "extension_ui_request", "id": "u-rec", "method": "select", "title": "?", "options": ["A"]})
    r.at(1.2).c({"type": "extension_ui_response", "id": "u-rec", "value": "A"})
    r.a({"id": "c", "type": "response", "command": "prompt", "success": True})
    r.at(1.3).eof().exit(0)
    src = r.write(tmp_path / "src.jsonl")
    # the "live agent" is a replay of another recording whose dialog id differs
    other = Rec()
    other.at(1.0).c({"id": "c", "type": "prompt", "message": "/pick"})
    other.a({"type": "extension_ui_request", "id": "u-live", "method": "select", "title": "?", "options": ["A"]})
    other.at(1.2).c({"type": "extension_ui_response", "id": "u-live", "value": "A"})
    other.a({"id": "c", "type": "response", "command": "prompt", "success": True})
    other.at(1.3).eof().exit(0)
    agent = other.write(tmp_path / "agent.jsonl")
    out = tmp_path / "new.jsonl"
    w = RecordingWriter(str(out), make_header(["x"], mode="client", source=str(src)), warn=print)
    run = ClientRun(plan(open_recording(src).entries()), REPLAY + ["--speed", "0", str(agent)], recorder=w,
                    speed=0, timeout=5)
    assert run.run() == 0
    w.close()
    sent = [f.data for f in open_recording(out).frames() if f.dir == "c2a"]
    assert sent[1] == b'{"type":"extension_ui_response","id":"u-live","value":"A"}'
    assert run.stalls == []


def test_map_answer_readdresses_by_rank_and_leaves_the_rest():
    recorded, live = [b'"u1"', b'"u2"'], [b'"L1"', b'"L2"']
    assert map_answer(b'{"type":"extension_ui_response","id":"u2","value":"A"}\r\n', recorded, live) == (
        b'{"type":"extension_ui_response","id":"L2","value":"A"}\r\n')
    assert map_answer(b'{"type":"extension_ui_response","id":"u2"}\n', recorded, live[:1]) == (
        b'{"type":"extension_ui_response","id":"u2"}\n')  # the live dialog has not come yet
    for same in (b'{"type":"prompt","id":"u1"}\n', b'{"type":"extension_ui_response","id":"zz"}\n', b"not json\n"):
        assert map_answer(same, recorded, live) == same


def test_waits_for_responses_then_times_out_with_a_note(tmp_path: Path):
    r = Rec()
    r.at(1.0).c({"id": "a", "type": "get_state"})
    r.a({"id": "a", "type": "response", "command": "get_state", "success": True})
    r.a({"type": "agent_end"})
    r.at(1.1).c({"id": "b", "type": "get_state"})
    r.at(1.2).eof().exit(0)
    src = r.write(tmp_path / "src.jsonl")
    agent = Rec()
    agent.at(1.0).c({"id": "a", "type": "get_state"})
    agent.a({"id": "a", "type": "response", "command": "get_state", "success": True})  # no agent_end
    agent.at(1.1).c({"id": "b", "type": "get_state"})
    agent.at(1.2).eof().exit(0)
    path = agent.write(tmp_path / "agent.jsonl")
    run = ClientRun(plan(open_recording(src).entries()), REPLAY + ["--speed", "0", str(path)], recorder=None,
                    speed=0, timeout=0.5, warn=lambda m: None, exit_grace=60)  # a loaded machine is slow to exit
    t0 = time.monotonic()
    assert run.run() == 0
    assert 0.4 < time.monotonic() - t0 < 5
    assert len(run.stalls) == 1 and "1 agent_end" in run.stalls[0]



def test_an_agent_that_ignores_eof_is_terminated_after_the_exit_grace(tmp_path: Path):
    r = Rec()
    r.at(1.0).c({"id": "a", "type": "get_state"})
    r.at(1.1).eof().exit(0)
    warned: list[str] = []
    run = ClientRun(plan(open_recording(r.write(tmp_path / "src.jsonl")).entries()),
                    [sys.executable, "-c", "import time; time.sleep(120)"], recorder=None, speed=0, timeout=120,
                    warn=warned.append, exit_grace=0.2)
    assert run.run() == 128 + 15  # SIGTERM, long before the 120 s response timeout
    assert warned == ["the agent did not exit within 0.2 s of EOF; terminating it"]


@pytest.mark.parametrize("name", ["01_basic_text_prompt", "60_extension_ui", "O1_omp_18.2.3_basic"])
def test_round_trip_through_fake_agent_is_identical(tmp_path: Path, name: str):
    """Client replay of a recording against a replay of the same recording: rpcspy diff says same."""
    rec = f"{T}/{name}.jsonl"
    out = tmp_path / "new.jsonl"
    p = subprocess.run(REPLAY + ["--client", rec, "-o", str(out), "--speed", "0", "--timeout", "60", "--diff", "--",
                                 *REPLAY, "--speed", "0", rec], capture_output=True, timeout=120)
    assert p.returncode == 0, p.stdout.decode() + p.stderr.decode()
    assert b"same" in p.stdout and b"waiting" not in p.stderr
    assert open_recording(out).header.mode == "client"


def test_diff_flag_reports_a_regression(tmp_path: Path):
    src = Rec()
    src.at(1.0).c({"id": "a", "type": "get_state"})
    src.a({"id": "a", "type": "response", "command": "get_state", "success": True, "data": {"x": 1}})
    src.at(1.1).eof().exit(0)
    changed = Rec()
    changed.at(1.0).c({"id": "a", "type": "get_state"})
    changed.a({"id": "a", "type": "response", "command": "get_state", "success": True, "data": {"x": 2}})
    changed.at(1.1).eof().exit(0)
    a, b = src.write(tmp_path / "a.jsonl"), changed.write(tmp_path / "b.jsonl")
    p = subprocess.run(REPLAY + ["--client", str(a), "-o", str(tmp_path / "n.jsonl"), "--speed", "0", "--diff",
                                 "--", *REPLAY, "--speed", "0", str(b)], capture_output=True, timeout=60)
    assert p.returncode == 1 and b"$.data.x: 1 \xe2\x86\x92 2" in p.stdout


def test_spawn_failure(tmp_path: Path):
    run = ClientRun([], ["/nonexistent/agent"], recorder=None, warn=lambda m: None)
    assert run.run() == 127
