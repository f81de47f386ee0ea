"""Proof with the real agents (pi 0.73.1, pi 0.87.1, omp 18.2.3): record through the proxy,
replay, drive the replay with the same client.

The client gets the same frames from the replay as from the real agent, byte for
byte once the command ids (the replay run uses different ones) are mapped back.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from rpcspy.recording import open_recording
from tests.support.agents import REPO_ROOT
from tests.support.driver import AgentProcess, is_response
from tests.support.scenarios import prompt

RUNS = 60.0


def env_with_repo(env: dict[str, str]) -> dict[str, str]:
    env = dict(env)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO_ROOT), env.get("PYTHONPATH")]))
    return env


def script(ap: AgentProcess, dialect: str, tag: str) -> int:
    """A client session: state, text and tool prompts, bash, bad input, messages, abort mid-stream."""
    ap.request({"id": f"{tag}s1", "type": "get_state"}, timeout=RUNS)
    prompt(ap, dialect, "hello", f"{tag}p1", timeout=RUNS)
    prompt(ap, dialect, "tool: printf 'a\\nb'", f"{tag}p2", timeout=RUNS)
    ap.request({"id": f"{tag}b1", "type": "bash", "command": "echo hi"}, timeout=RUNS)
    ap.send(b"not json\n")
    ap.read_until(lambda m: m.get("type") == "response" and m.get("command") == "parse", timeout=RUNS)
    ap.request({"id": f"{tag}m1", "type": "get_messages"}, timeout=RUNS)
    ap.send({"id": f"{tag}p3", "type": "prompt", "message": "slow: 400"})
    ap.read_until(lambda m: m.get("assistantMessageEvent", {}).get("type") == "text_delta", timeout=RUNS)
    ap.send({"id": f"{tag}a1", "type": "abort"})
    ap.read_until(is_response(f"{tag}a1"), timeout=RUNS)
    ap.request({"id": f"{tag}s2", "type": "get_state"}, timeout=RUNS)
    return ap.finish(timeout=30)


def test_replay_gives_the_client_what_the_real_agent_gave(agent, fake_llm, tmp_path: Path) -> None:
    rec = tmp_path / "session.jsonl"
    env = env_with_repo(agent.env)
    with AgentProcess([sys.executable, "-m", "rpcspy", "-o", str(rec), "--", *agent.argv], env=env,
                      cwd=agent.cwd) as real:
        real_code = script(real, agent.dialect, "R")
    assert real_code == 0

    report = tmp_path / "report.json"
    argv = [sys.executable, "-m", "rpcspy", "replay", "--speed", "1", "--report", str(report), str(rec)]
    with AgentProcess(argv, env=env, cwd=tmp_path) as fake:
        fake_code = script(fake, agent.dialect, "L")
    assert fake_code == real_code

    mapped = [f.replace(b'"id":"L', b'"id":"R') for f in fake.frames]
    assert len(mapped) == len(real.frames)
    assert mapped == real.frames
    rep = json.loads(report.read_text())
    assert rep["final"] and rep["divergences"] == [] and rep["unconsumed"] == [], rep
    assert rep["matched"] == sum(1 for s in real.sent if s.strip())


def test_fixture_replay_still_matches_the_live_client(pi_agent, fake_llm, tmp_path: Path) -> None:
    """Volatile values replaced in the fixture; live commands still match; frames equal modulo volatile values."""
    from rpcspy.normalise.normaliser import Normaliser

    rec, fx = tmp_path / "session.jsonl", tmp_path / "fixture.jsonl"
    env = env_with_repo(pi_agent.env)
    with AgentProcess([sys.executable, "-m", "rpcspy", "-o", str(rec), "--", *pi_agent.argv], env=env,
                      cwd=pi_agent.cwd) as real:
        script(real, pi_agent.dialect, "R")
    subprocess.run([sys.executable, "-m", "rpcspy", "fixture", str(rec), "-o", str(fx), "--usage",
                    "--compact-partials"], env=env, check=True, capture_output=True)
    assert b"sessionId" in fx.read_bytes() and not set(_uuids(rec)) & set(_uuids(fx))
    report = tmp_path / "report.json"
    with AgentProcess([sys.executable, "-m", "rpcspy", "replay", "--speed", "0", "--report", str(report), str(fx)],
                      env=env, cwd=tmp_path) as fake:
        script(fake, pi_agent.dialect, "L")
    rep = json.loads(report.read_text())
    assert rep["divergences"] == [] and rep["unconsumed"] == [], rep

    def tokens(frames: list[bytes]) -> list[bytes]:
        from rpcspy.normalise.normaliser import NormaliseOptions

        n = Normaliser(NormaliseOptions(usage=True, compact_partials=True), stable=False)
        return [n.frame(f.replace(b'"id":"L', b'"id":"R')) for f in frames]

    assert tokens(fake.frames) == tokens(real.frames)


def _uuids(path: Path) -> list[str]:
    import re

    return re.findall(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", path.read_text())


def test_client_replay_against_the_real_agent_diffs_clean(pi_agent, fake_llm, tmp_path: Path) -> None:
    """`replay --client` re-runs a recorded session on the agent; `diff` finds nothing but volatile values."""
    rec, new = tmp_path / "session.jsonl", tmp_path / "again.jsonl"
    env = env_with_repo(pi_agent.env)
    with AgentProcess([sys.executable, "-m", "rpcspy", "-o", str(rec), "--", *pi_agent.argv], env=env,
                      cwd=pi_agent.cwd) as real:
        script(real, pi_agent.dialect, "R")
    p = subprocess.run([sys.executable, "-m", "rpcspy", "replay", "--client", str(rec), "-o", str(new),
                        "--timeout", "30", "--", *pi_agent.argv], env=env, cwd=pi_agent.cwd, capture_output=True,
                       timeout=300)
    assert p.returncode == 0, p.stderr.decode()[-2000:]
    assert b"waiting" not in p.stderr, p.stderr.decode()
    d = subprocess.run([sys.executable, "-m", "rpcspy", "diff", "--usage", "--format", "json", str(rec), str(new)],
                       env=env, capture_output=True, timeout=120)
    result = json.loads(d.stdout)
    assert result["directions"]["c2a"]["equal"] and result["exit"]["equal"]
    # Streaming is timing-dependent in a real agent: pi 0.73's partial snapshots may already hold the next
    # delta, pi >= 0.84's assistant message_start may hold the first chunk, and bash output may arrive in
    # one tool_execution_update or two. And the abort lands wherever the slow reply is at that moment
    # (replay --client paces by responses, not by the text_delta the recorded client waited for), so the
    # aborted run (between the slow prompt and the next get_state) may hold more, less or no text.
    # Anything else must be identical.
    timing = {"message_start/assistant", "tool_execution_update"}
    aborted = _seq_range(rec, "Rp3", "Rs2")
    odd = [it for it in result["directions"]["a2c"]["items"]
           if it["type"] not in timing and not it["type"].startswith("message_update/")
           and not (it.get("a") and it["a"]["seq"] in aborted)]
    assert odd == [], odd


def _seq_range(path: Path, start: str, end: str) -> range:
    """Seqs strictly between the client commands with ids ``start`` and ``end``."""
    ids = {}
    for f in open_recording(path).frames():
        if f.dir == "c2a":
            try:
                obj = json.loads(f.data)
            except ValueError:
                continue
            if isinstance(obj, dict):
                ids[obj.get("id")] = f.seq
    return range(ids[start] + 1, ids[end])


@pytest.mark.agents
def test_upgrade_regression_073_to_087(agent_home: Path, fake_llm, tmp_path: Path) -> None:
    """A session recorded on pi 0.73.1, re-run on pi 0.87.1 with `replay --client --diff`: the upgrade shows."""
    from tests.support.agents import ensure_agent
    from tests.support.homes import agent_args, agent_env

    def runnable(name: str) -> tuple[list[str], dict[str, str]]:
        spec = ensure_agent(name)
        return [*spec.argv_prefix, *agent_args(spec.dialect)], env_with_repo(agent_env(agent_home, spec.environ()))

    old_argv, old_env = runnable("pi-0.73.1")
    new_argv, new_env = runnable("pi-0.87.1")
    rec, new = tmp_path / "old.jsonl", tmp_path / "new.jsonl"
    with AgentProcess([sys.executable, "-m", "rpcspy", "-o", str(rec), "--", *old_argv], env=old_env,
                      cwd=agent_home / "project") as ap:
        ap.request({"id": "s1", "type": "get_state"}, timeout=RUNS)
        prompt(ap, "pi-0.73", "hello", "p1", timeout=RUNS)
        ap.send({"id": "u1", "type": "no_such_command"})
        ap.read_until(lambda m: m.get("type") == "response" and m.get("command") == "no_such_command", timeout=RUNS)
        ap.finish(timeout=30)
    p = subprocess.run([sys.executable, "-m", "rpcspy", "replay", "--client", str(rec), "-o", str(new), "--timeout",
                        "10", "--diff", "--", *new_argv], env=new_env, cwd=agent_home / "project",
                       capture_output=True, timeout=300)
    out = p.stdout.decode()
    assert p.returncode == 1, out + p.stderr.decode()
    assert "agent_settled" in out  # 0.87's new terminal event
    assert "message_start/system" in out  # 0.87's system-role messages
    d = subprocess.run([sys.executable, "-m", "rpcspy", "diff", "--format", "json", str(rec), str(new)],
                       env=new_env, capture_output=True, timeout=120)
    items = json.loads(d.stdout)["directions"]["a2c"]["items"]
    unknown = [it for it in items if it["type"] == "response/no_such_command"]
    assert unknown and unknown[0]["op"] == "changed"
    assert any(c["path"] == "$.id" and c.get("b") == "u1" for c in unknown[0]["changes"])  # 0.87 echoes the id
