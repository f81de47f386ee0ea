"""ACP for real: `omp acp` and pi-acp (on pi 1.6.0) through the proxy, driven by the official ACP SDK's
client against rpcspy's model server, check clean; the SDK-built test agent's faults fire the rules."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from rpcspy.checker import Checker
from rpcspy.recording import open_recording
from tests.conftest import _installed
from tests.support.agents import AgentSpec
from tests.support.homes import agent_env

pytest.importorskip("acp")  # PyPI agent-client-protocol (the test extra)
TIMEOUT = 180


def record(tmp_path: Path, agent_argv: list[str], prompts: list[str], *flags: str,
           env: dict[str, str] | None = None, cwd: Path | None = None) -> tuple[list[str], Path]:
    """Run the SDK client against ``rpcspy run -o REC -- AGENT``; (its stopReason lines, REC)."""
    rec = tmp_path / f"acp-{len(list(tmp_path.glob('acp-*.jsonl')))}.jsonl"
    argv = [sys.executable, "-m", "tests.support.acp_client", *flags, *(a for p in prompts for a in ("--prompt", p)),
            "--", sys.executable, "-m", "rpcspy", "run", "-o", str(rec), "--", *agent_argv]
    repo = str(Path(__file__).resolve().parents[2])
    base = dict(env or os.environ)
    base["PYTHONPATH"] = os.pathsep.join(filter(None, [repo, base.get("PYTHONPATH")]))
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=TIMEOUT, env=base, cwd=cwd or tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc.stdout.split(), rec


def findings(rec: Path) -> list[tuple[str, str]]:
    checker = Checker()
    out = checker.feed_many(open_recording(rec).frames())
    out += checker.finish(0.0)
    assert checker.dialect == "acp-v1"
    return [(f.rule, f.severity) for f in out]


def problems(rec: Path) -> list[tuple[str, str]]:
    return [f for f in findings(rec) if f[1] != "info"]


def _agent(name: str, request: pytest.FixtureRequest) -> AgentSpec:
    return _installed(name, request.getfixturevalue("_agent_specs"))


@pytest.mark.agents
def test_omp_acp_turn_with_a_permission_checks_clean(request: pytest.FixtureRequest, agent_home: Path,
                                                     tmp_path: Path) -> None:
    """omp 18.2.3's own ACP mode against rpcspy's model server: a text turn, then a shell command it asks
    permission for."""
    omp = _agent("omp-18.2.3", request)
    stops, rec = record(tmp_path, [*omp.argv_prefix, "acp"], ["hello", "tool: echo hi-from-acp"],
                        env=agent_env(agent_home, omp.environ()), cwd=agent_home / "project")
    assert stops == ["stopReason=end_turn"] * 2
    assert problems(rec) == []
    methods = [json.loads(f.data).get("method") for f in open_recording(rec).frames() if f.dir != "err"]
    assert "session/request_permission" in methods and methods[0] == "initialize"


@pytest.mark.agents
def test_pi_acp_on_pi_160_checks_clean(request: pytest.FixtureRequest, agent_home: Path, tmp_path: Path) -> None:
    """pi-acp 0.0.34 runs the command in PI_ACP_PI_COMMAND (`CMD --mode rpc ...`): pi 1.6.0 on the fake model."""
    adapter, pi = _agent("pi-acp-0.0.34", request), _agent("pi-1.6.0", request)
    wrapper = tmp_path / "pi"
    wrapper.write_text("#!/bin/sh\nexec " + " ".join(pi.argv_prefix) + ' "$@" --provider fake --model fake-model\n')
    wrapper.chmod(0o755)
    env = agent_env(agent_home, adapter.environ())
    env["PI_ACP_PI_COMMAND"] = str(wrapper)
    stops, rec = record(tmp_path, adapter.argv_prefix, ["hello", "tool: echo hi-from-acp"], env=env,
                        cwd=agent_home / "project")
    assert stops == ["stopReason=end_turn"] * 2
    assert problems(rec) == []


AGENT = [sys.executable, "-m", "tests.support.acp_agent"]


def test_the_test_agent_s_clean_behaviour(tmp_path: Path) -> None:
    """A denied permission, an fs read the client allowed, a cancel honoured: nothing to report."""
    data = tmp_path / "file.txt"
    data.write_text("file body\n")
    stops, rec = record(tmp_path, AGENT, ["hello", "deny", f"fs: {data}", "cancel"], "--fs", "--permission", "deny",
                        "--cancel-on-tool")
    assert stops == ["stopReason=end_turn"] * 3 + ["stopReason=cancelled"]
    assert problems(rec) == []


def test_the_test_agent_s_faults_fire_the_rules(tmp_path: Path) -> None:
    """An fs read the client did not allow, a cancel ignored, a wrong id, a status going backwards, a turn
    ended over an open permission dialog (then never answered: the client left)."""
    data = tmp_path / "file.txt"
    data.write_text("file body\n")
    stops, rec = record(tmp_path, AGENT, [f"fs: {data}", "cancel-ignore", "wrong-id", "backwards", "perm-then-end"],
                        "--cancel-on-tool", "--permission-delay", "1")
    assert stops == ["stopReason=end_turn"] * 5
    assert sorted(problems(rec)) == [("acp.cancel_not_honoured", "warning"), ("acp.capability", "error"),
                                     ("acp.prompt_during_permission", "error"), ("acp.tool_status_backwards", "error"),
                                     ("acp.unanswered", "warning"), ("acp.unknown_id", "error")]
