"""Run pi 1.5.2's own RpcClient (through tests/replay/js/rpc_client_probe.mjs) against a torture scenario.

:func:`outcome` classifies the run against the clean scenario's results: ``survives`` (the
client returned what it returns on the clean session; for auto-retry: the retried answer),
``detects`` (it failed with an error naming the problem), ``breaks`` (wrong results, or an
error that does not name it, such as a timeout on a crash).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

JS = Path(__file__).parent / "js"
ROOT = Path(__file__).parents[2]
RPC_CLIENT = "node_modules/@earendil-works/pi-coding-agent/dist/modes/rpc/rpc-client.js"
PROBE_TIMEOUT_MS = 15000


def client_js(argv_prefix: list[str]) -> Path:
    entry = Path(argv_prefix[-1])
    return next(p for p in entry.parents if p.name == "node_modules").parent / RPC_CLIENT


def run_probe(rpc_client: Path, scenario: str, report: Path, cwd: Path) -> tuple[int, dict[str, Any]]:
    env = dict(os.environ)
    env["RPCSPY_SHIM_ARGV"] = json.dumps([sys.executable, "-m", "rpcspy", "replay", "--speed", "0", "--no-stderr",
                                          "--report", str(report), "--scenario", scenario])
    env["RPCSPY_SHIM_APPEND"] = "0"
    env["RPCSPY_PROBE_TIMEOUT"] = str(PROBE_TIMEOUT_MS)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    p = subprocess.run(["node", str(JS / "rpc_client_probe.mjs"), str(rpc_client), str(JS / "spawn_shim.mjs"),
                        str(cwd)], env=env, capture_output=True, text=True, timeout=240)
    last = p.stdout.strip().split("\n")[-1] if p.stdout.strip() else "{}"  # not splitlines: raw U+2028
    return p.returncode, json.loads(last)


def strip_chaos(value: Any) -> Any:
    """``value`` without the fields chaos adds (``rpcspyChaos*``), which clients must ignore."""
    if isinstance(value, dict):
        return {k: strip_chaos(v) for k, v in value.items() if not k.startswith("rpcspyChaos")}
    if isinstance(value, list):
        return [strip_chaos(v) for v in value]
    return value


def outcome(scenario: str, code: int, result: dict[str, Any], clean: dict[str, Any]) -> str:
    if scenario == "auto-retry":
        ends = [e for e in result.get("hello", []) if e.get("type") == "agent_end"]
        return "survives" if code == 0 and len(ends) >= 2 and result.get("text") == "Rate limit over." else "breaks"
    if code == 0:
        return "survives" if strip_chaos(result) == clean else "breaks"
    error = str(result.get("error", ""))
    named = {"agent-crash": "exited", "lost-response": "Timeout waiting for response"}
    return "detects" if scenario in named and named[scenario] in error else "breaks"
