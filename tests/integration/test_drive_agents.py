"""``rpcspy drive`` against the real pi 0.87.1 and 1.5.2 on the fake model: every step completes,
runs settle before the next step and before stdin is closed, and a follow-up is injected mid-stream."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from rpcspy.recording import open_recording
from tests.support.agents import REPO_ROOT

pytestmark = pytest.mark.agents

SCRIPT = [
    {"id": "s", "type": "get_state"},
    {"id": "p1", "type": "prompt", "message": "hello"},
    {"id": "p2", "type": "prompt", "message": "slow:60", "rpcspy": {"wait": {"deltas": 3}}},
    {"id": "f1", "type": "follow_up", "message": "and then?"},
    {"rpcspy": {"wait": "settle"}},
    {"id": "p3", "type": "prompt", "message": "tool: echo drive-tool"},
    {"id": "m", "type": "get_messages"},
]


@pytest.fixture(params=["pi-0.87.1", "pi-1.5.2"])
def drive_agent(request: pytest.FixtureRequest, _agent_specs, agent_home: Path):  # type: ignore[no-untyped-def]
    from tests.conftest import _installed, _runnable

    return _runnable(_installed(request.param, _agent_specs), agent_home)


def run_drive(agent, tmp_path: Path, script: list[dict]) -> tuple[subprocess.CompletedProcess[str], Path]:  # type: ignore[no-untyped-def]
    steps, rec = tmp_path / "steps.jsonl", tmp_path / "drive.jsonl"
    steps.write_text("".join(json.dumps(s) + "\n" for s in script))
    env = dict(agent.env)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO_ROOT), env.get("PYTHONPATH")]))
    env["XDG_RUNTIME_DIR"] = str(tmp_path)
    done = subprocess.run([sys.executable, "-m", "rpcspy", "drive", str(steps), "-o", str(rec), "--timeout", "90",
                           "--", *agent.argv], capture_output=True, text=True, env=env, cwd=agent.cwd, timeout=300)
    return done, rec


def test_drive_runs_every_step_to_its_settle(drive_agent, fake_llm, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    done, rec = run_drive(drive_agent, tmp_path, SCRIPT)
    assert done.returncode == 0, done.stderr
    assert "7/7 steps completed; agent exit status 0" in done.stderr
    frames = list(open_recording(rec).frames())
    sent = [json.loads(f.data) for f in frames if f.dir == "c2a"]
    assert sent == [{k: v for k, v in s.items() if k != "rpcspy"} for s in SCRIPT if set(s) != {"rpcspy"}]
    agent = [(f.seq, json.loads(f.data)) for f in frames if f.dir == "a2c"]
    seq_of = {m.get("id"): seq for seq, m in agent if m.get("type") == "response"}
    settles = [seq for seq, m in agent if m.get("type") == "agent_settled"]
    sent_seq = {json.loads(f.data).get("id"): f.seq for f in frames if f.dir == "c2a"}
    # each prompt's next step went out after its run settled; the follow-up went in mid-stream
    assert any(seq_of["p1"] < s < sent_seq["p2"] for s in settles)
    deltas_before_f1 = [seq for seq, m in agent if seq < sent_seq["f1"] and m.get("type") == "message_update"
                        and m["assistantMessageEvent"]["type"] == "text_delta"]
    assert len(deltas_before_f1) >= 3 and sent_seq["f1"] < settles[1]
    users = [m["message"]["content"][0]["text"] for _, m in agent
             if m.get("type") == "message_start" and m["message"]["role"] == "user"]
    assert "and then?" in users, "the follow-up was delivered in the run"
    assert any(sent_seq["p3"] < s < sent_seq["m"] for s in settles)
    assert agent[-1][1]["type"] == "response" and agent[-1][1]["id"] == "m"
    why = subprocess.run([sys.executable, "-m", "rpcspy", "why", str(rec)], capture_output=True, text=True,
                         env={**os.environ, "PYTHONPATH": str(REPO_ROOT)})
    assert why.returncode == 0, why.stdout


def test_drive_timeout_leaves_a_recording_that_why_explains(drive_agent, fake_llm, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    script = [{"id": "p", "type": "prompt", "message": "slow:2000", "rpcspy": {"timeout": 2}}]
    done, rec = run_drive(drive_agent, tmp_path, script)
    assert done.returncode == 1
    assert "line 1: prompt 'p': timeout: waited 2.0 s for its response and the end of its run: the run started" \
        in done.stderr
    why = subprocess.run([sys.executable, "-m", "rpcspy", "why", str(rec), "--format", "json"], capture_output=True,
                         text=True, env={**os.environ, "PYTHONPATH": str(REPO_ROOT)})
    assert why.returncode == 1
    (run,) = [i for i in json.loads(why.stdout)["outstanding"] if i["kind"] == "run"]
    assert "cuts a run in progress off at stdin EOF" in run["text"]


def test_handled_prompt_on_pi_1_5(_agent_specs, agent_home: Path, fake_llm, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """pi 1.5.2 answers its built-in /mcp `handled`: drive waits for no run, and why names the pitfall."""
    from tests.conftest import _installed, _runnable

    pi = _runnable(_installed("pi-1.5.2", _agent_specs), agent_home)
    done, rec = run_drive(pi, tmp_path, [{"id": "x", "type": "prompt", "message": "/mcp"}])
    assert done.returncode == 0, done.stderr
    frames = list(open_recording(rec).frames())
    (resp,) = [f for f in frames if f.dir == "a2c" and json.loads(f.data).get("type") == "response"]
    assert json.loads(resp.data)["data"] == {"disposition": "handled"}
    assert not [f for f in frames if f.dir == "a2c" and json.loads(f.data).get("type") == "agent_start"]
    why = subprocess.run([sys.executable, "-m", "rpcspy", "why", str(rec), "--at", str(resp.t + 5), "--format",
                          "json"], capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(REPO_ROOT)})
    report = json.loads(why.stdout)
    assert why.returncode == 0 and report["outstanding"] == []
    assert [p["kind"] for p in report["pitfalls"]] == ["pitfall.handled_wait"]


def test_drive_goes_on_after_an_extension_command_that_starts_no_run(_agent_specs, agent_home: Path, fake_llm,
                                                                      tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """pi 0.87.1 answers ``/hello`` (an extension command) without a disposition and starts no run: the
    drive takes it as handled after a short grace instead of waiting for a settle that never comes."""
    from tests.conftest import RunnableAgent, _installed, _runnable

    base = _runnable(_installed("pi-0.87.1", _agent_specs), agent_home)
    ext = REPO_ROOT / "tests" / "data" / "extensions" / "hello_command.js"
    agent = RunnableAgent(base.spec, [*base.argv, "-e", str(ext)], base.env, base.home, base.cwd)
    done, rec = run_drive(agent, tmp_path, [{"id": "h", "type": "prompt", "message": "/hello"},
                                            {"id": "s", "type": "get_state"}])
    assert done.returncode == 0, done.stderr
    assert "2/2 steps completed; agent exit status 0" in done.stderr
    agent_frames = [json.loads(f.data) for f in open_recording(rec).frames() if f.dir == "a2c"]
    assert not any(m.get("type") == "agent_start" for m in agent_frames), "the command ran without a run"
    assert any(m.get("type") == "extension_ui_request" and "hello from" in str(m.get("message")) for m in agent_frames)
