"""Proof with the real agents (pi 0.73.1, pi 0.87.1, omp 18.2.3): record through the proxy,
replay, drive the replay with the same client.

The client gets the same frames from the replay as from the real agent, byte for
byte once the command ids (the replay run uses different ones) are mapped back.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

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
