"""A client no one here wrote: pi's own RpcClient (JavaScript) against the real pi, then against replay.

The probe calls getState, promptAndWait (prompt + the events up to agent_end),
getLastAssistantText, bash, getMessages, getSessionStats and a failing setModel;
the results from ``rpcspy replay`` must equal those from the real agent.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.agents import REPO_ROOT, AgentInstallError, ensure_agent
from tests.support.homes import agent_args, agent_env, make_home

JS = Path(__file__).parent / "js"
CLIENTS = {
    "pi-0.73.1": "node_modules/@mariozechner/pi-coding-agent/dist/modes/rpc/rpc-client.js",
    "pi-1.5.2": "node_modules/@earendil-works/pi-coding-agent/dist/modes/rpc/rpc-client.js",
}
"""Agent -> its own RpcClient (pi 1.5.2's waits for agent_settled and reads dispositions)."""

pytestmark = pytest.mark.agents


def probe(client_js: Path, shim_argv: list[str], *, append: bool, env: dict[str, str], cwd: Path,
          args: list[str]) -> dict:
    env = dict(env)
    env["RPCSPY_SHIM_ARGV"] = json.dumps(shim_argv)
    env["RPCSPY_SHIM_APPEND"] = "1" if append else "0"
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO_ROOT), env.get("PYTHONPATH")]))
    p = subprocess.run(["node", str(JS / "rpc_client_probe.mjs"), str(client_js), str(JS / "spawn_shim.mjs"),
                        str(cwd), *args], env=env, capture_output=True, text=True, timeout=180)
    assert p.returncode == 0, p.stderr[-3000:]
    assert p.stdout.strip(), p.stderr[-3000:]
    return json.loads(p.stdout.strip().split("\n")[-1])  # not splitlines(): the text holds a raw U+2028


@pytest.mark.parametrize("agent", sorted(CLIENTS))
def test_rpc_client_gets_the_same_results_from_replay(agent: str, fake_llm, tmp_path: Path) -> None:
    try:
        spec = ensure_agent(agent)
    except AgentInstallError as exc:
        if os.environ.get("RPCSPY_SKIP_AGENTS") == "1":
            pytest.skip(f"{agent} unavailable: {exc}")
        raise
    home = make_home(tmp_path / "home", fake_llm.base_url)
    env = agent_env(home, spec.environ())
    cli_js = Path(spec.argv_prefix[-1])
    package_root = next(p for p in cli_js.parents if p.name == "node_modules").parent
    client_js = package_root / CLIENTS[agent]
    args = agent_args(spec.dialect)[2:]  # RpcClient itself passes --mode rpc
    rec = tmp_path / "session.jsonl"

    real = probe(client_js, [sys.executable, "-m", "rpcspy", "-o", str(rec), "--", *spec.argv_prefix],
                 append=True, env=env, cwd=home / "project", args=args)
    assert real["text"] == "Hello \u2028world!"
    assert real["bash"]["output"] == "hi\n"
    assert real["setModel"].startswith("Model not found")

    report = tmp_path / "report.json"
    fake = probe(client_js, [sys.executable, "-m", "rpcspy", "replay", "--speed", "1", "--report", str(report),
                             str(rec)], append=False, env=env, cwd=tmp_path, args=args)
    assert fake == real
    rep = json.loads(report.read_text())
    assert rep["divergences"] == [] and rep["unconsumed"] == [] and rep["matched"] == 9, rep
