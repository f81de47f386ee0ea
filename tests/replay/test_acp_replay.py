"""`rpcspy replay` of an ACP (JSON-RPC 2.0) recording: the official Python ACP SDK's client against the fake
agent of a real `omp acp` session (a text turn, then a shell command it asks permission for)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import msgspec
import pytest

from rpcspy.normalise.normaliser import Normaliser
from rpcspy.recording import open_recording
from rpcspy.recording.format import FrameEntry
from rpcspy.replay.engine import ReplayEngine
from rpcspy.replay.matcher import Matcher
from rpcspy.replay.model import RecordedCommand, classify
from rpcspy.replay.rpc import rpc_failure

pytest.importorskip("acp")  # PyPI agent-client-protocol (the test extra)

REPO = Path(__file__).resolve().parents[2]
OMP = REPO / "tests/data/acp/omp-18.2.3-acp-permission.jsonl"
RECORDED_SESSION = "01a21f03-1bc7-72ff-b7d3-e88906eee003"
PROMPTS = ["hello there", "tool: echo hi-from-acp"]
TIMEOUT = 60


def sdk_client(tmp_path: Path, prompts: list[str], *flags: str, replay: tuple[str, ...] = ()
               ) -> tuple[subprocess.CompletedProcess[str], Path]:
    """The SDK client (tests/support/acp_client.py) against ``rpcspy replay --speed 0 -o OUT OMP``."""
    out = tmp_path / "replayed.jsonl"
    argv = [sys.executable, "-m", "tests.support.acp_client", "--timeout", "20", *flags,
            *(a for p in prompts for a in ("--prompt", p)),
            "--", sys.executable, "-m", "rpcspy", "replay", "--speed", "0", "-o", str(out), *replay, str(OMP)]
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")]))
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=TIMEOUT, env=env, cwd=tmp_path)
    return proc, out


def frames(path: Path, direction: str) -> list[dict]:
    return [msgspec.json.decode(e.data()) for e in open_recording(path).entries()
            if isinstance(e, FrameEntry) and e.dir == direction]


def test_sdk_client_runs_a_permission_turn_against_the_replayed_omp_session(tmp_path: Path) -> None:
    proc, out = sdk_client(tmp_path, PROMPTS)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.split() == ["stopReason=end_turn", "stopReason=end_turn"]
    assert "diverged" not in proc.stderr
    played = frames(out, "a2c")
    live_session = played[1]["result"]["sessionId"]
    assert live_session != RECORDED_SESSION  # a fresh session, used consistently from then on
    recorded = json.loads(json.dumps(frames(OMP, "a2c")).replace(RECORDED_SESSION, live_session))
    assert played == recorded  # the same content, frame for frame (ids are the SDK's own, as recorded)
    sent = frames(out, "c2a")
    assert sent[1]["params"]["cwd"] == str(tmp_path)  # the live cwd stood for the recorded one
    assert [m.get("params", {}).get("sessionId") for m in sent[2:] if "method" in m] == [live_session] * 2
    assert sent[4] == {"jsonrpc": "2.0", "id": 0, "result": {"outcome": {"optionId": "allow_once",
                                                                       "outcome": "selected"}}}


def test_a_divergent_prompt_gets_a_jsonrpc_error_and_a_divergence(tmp_path: Path) -> None:
    report = tmp_path / "report.json"
    proc, out = sdk_client(tmp_path, ["goodbye"], replay=("--report", str(report)))
    assert proc.returncode != 0
    assert "RequestError: rpcspy replay: no recorded match" in proc.stderr
    error = frames(out, "a2c")[-1]
    assert error["id"] == 2 and error["error"]["code"] == -32603
    assert "differs at $.params.prompt[0].text" in error["error"]["message"]
    divergences = json.loads(report.read_text())["divergences"]
    assert [(d["command"], d["path"]) for d in divergences] == [("session/prompt", "$.params.prompt[0].text")]


def test_a_denied_permission_ends_the_prompt_with_an_error_not_a_hang(tmp_path: Path) -> None:
    """The recorded client allowed the command: a client that denies it diverges, and the session/prompt the
    recording can no longer answer gets a JSON-RPC error at once."""
    proc, out = sdk_client(tmp_path, PROMPTS, "--permission", "deny")
    assert proc.returncode != 0
    assert "cannot answer session/prompt: your answer to the agent's request diverged" in proc.stderr
    assert "TimeoutError" not in proc.stderr
    last = frames(out, "a2c")[-1]
    assert last["id"] == 3 and last["error"]["code"] == -32603
    assert "differs at $.result.outcome.optionId" in proc.stderr


def _engine() -> ReplayEngine:
    engine = ReplayEngine(Matcher("exact", normaliser=Normaliser(stable=False)), recording="mem")
    for i, line in enumerate([b'{"jsonrpc":"2.0","id":0,"method":"session/prompt","params":{"x":1}}',
                              b'{"jsonrpc":"2.0","method":"session/cancel","params":{"x":1}}']):
        engine.add_recorded(RecordedCommand(index=i, seq=i + 1, t=0.0, frame=classify(line)))
    return engine


def test_a_notification_never_stands_for_a_request_nor_the_other_way_round() -> None:
    engine = _engine()
    as_note = engine.client_line(b'{"jsonrpc":"2.0","method":"session/prompt","params":{"x":1}}', line=1,
                                 complete=True)
    assert as_note.divergence is not None and as_note.reply is None  # JSON-RPC answers no notification
    as_req = engine.client_line(b'{"jsonrpc":"2.0","id":"c","method":"session/cancel","params":{"x":1}}', line=2,
                                complete=True)
    assert as_req.divergence is not None
    assert msgspec.json.decode(as_req.reply or b"")["id"] == "c"
    assert engine.client_line(b'{"jsonrpc":"2.0","id":"z","method":"session/prompt","params":{"x":1}}', line=3,
                              complete=True).match is not None


def test_unreadable_lines_get_jsonrpc_errors_with_a_null_id() -> None:
    engine = _engine()
    bad = engine.client_line(b'{"jsonrpc":', line=1, complete=True)
    reply = msgspec.json.decode(bad.reply or b"")
    assert (reply["jsonrpc"], reply["id"], reply["error"]["code"]) == ("2.0", None, -32700)
    assert reply["error"]["message"].startswith("rpcspy replay: ")
    assert msgspec.json.decode(engine.client_line(b"[1]", line=2, complete=True).reply or b"")["error"]["code"] \
        == -32600
    assert rpc_failure(classify(b'{"jsonrpc":"2.0","id":0,"result":{}}'), "x") is None


@pytest.mark.agents
def test_acpx_as_an_independent_client_against_the_replay(request: pytest.FixtureRequest, tmp_path: Path) -> None:
    """npm acpx 0.19.1 (another ACP client implementation, in TypeScript) runs a one-shot prompt against the
    replayed omp session. Its initialize differs from the SDK client's (clientInfo, capabilities), so it is
    matched by method (--match type); the text and stopReason are the recorded ones."""
    from tests.conftest import _installed

    acpx = _installed("acpx-0.19.1", request.getfixturevalue("_agent_specs"))
    out = tmp_path / "replayed.jsonl"
    agent = f"{sys.executable} -m rpcspy replay --match type --speed 0 -o {out} {OMP}"
    (tmp_path / "project").mkdir()
    env = acpx.environ({**os.environ, "HOME": str(tmp_path / "home"),
                        "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))})
    proc = subprocess.run([*acpx.argv_prefix, "--cwd", str(tmp_path / "project"), "--approve-all", "--format", "text",
                           "--agent", agent, "exec", "hello there"],
                          capture_output=True, text=True, timeout=TIMEOUT, env=env, cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert "Hello" in proc.stdout and "world!" in proc.stdout and "end_turn" in proc.stdout
    sent = frames(out, "c2a")
    assert [m["method"] for m in sent] == ["initialize", "session/new", "session/prompt"]
    assert sent[0]["params"]["clientInfo"]["name"] == "acpx"
    assert frames(out, "a2c")[-1]["result"]["stopReason"] == "end_turn"


def test_renames_follow_the_session_and_its_directory_both_ways() -> None:
    from rpcspy.replay.rpc import Renames

    fresh = iter(["live-1", "live-2"])
    renames = Renames(lambda: next(fresh))
    recorded = [RecordedCommand(index=0, seq=1, t=0.0, frame=classify(
        b'{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/rec/proj","mcpServers":[]}}'))]
    live = renames.client_frame(classify(
        b'{"jsonrpc":"2.0","id":7,"method":"session/new","params":{"cwd":"/live/p","mcpServers":[]}}'), recorded)
    assert live.obj["params"]["cwd"] == "/rec/proj" and live.id == 7
    assert renames.agent_frame(b'{"jsonrpc":"2.0","id":7,"result":{"sessionId":"S"}}') == \
        b'{"jsonrpc":"2.0","id":7,"result":{"sessionId":"live-1"}}'
    read = renames.agent_frame(b'{"jsonrpc":"2.0","id":0,"method":"fs/read_text_file",'
                               b'"params":{"sessionId":"S","path":"/rec/proj/a.txt"}}')
    assert msgspec.json.decode(read)["params"] == {"sessionId": "live-1", "path": "/live/p/a.txt"}
    assert renames.agent_frame(b'{"path":"/rec/project2"}') == b'{"path":"/rec/project2"}'  # not under the cwd
    back = renames.client_frame(classify(b'{"jsonrpc":"2.0","id":8,"method":"session/prompt",'
                                         b'"params":{"sessionId":"live-1","prompt":[]}}'), recorded)
    assert back.obj["params"]["sessionId"] == "S"


def test_a_json_rpc_line_sent_to_a_replayed_pi_is_answered_as_pi_would() -> None:
    engine = ReplayEngine(Matcher("exact", normaliser=Normaliser(stable=False)), recording="mem")
    engine.add_recorded(RecordedCommand(index=0, seq=1, t=0.0, frame=classify(b'{"id":"a","type":"get_state"}')))
    out = engine.client_line(b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}', line=1, complete=True)
    reply = msgspec.json.decode(out.reply or b"")
    assert reply["type"] == "response" and reply["success"] is False and reply["id"] == 1
