"""scripts/probe-agent: the standard session against a real agent, and what the checker did not know."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.agents import REPO_ROOT, AgentInstallError, ensure_agent

pytestmark = pytest.mark.agents
SCRIPT = REPO_ROOT / "scripts" / "probe-agent"


def probe(*args: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONPATH=str(REPO_ROOT))
    return subprocess.run([sys.executable, str(SCRIPT), *args], env=env, capture_output=True, text=True, timeout=300)


@pytest.fixture(scope="module")
def pi152() -> None:
    try:
        ensure_agent("pi-1.5.2")
    except AgentInstallError as exc:
        if os.environ.get("RPCSPY_SKIP_AGENTS") == "1":
            pytest.skip(f"pi-1.5.2 unavailable: {exc}")
        raise


def test_a_known_agent_leaves_nothing_unknown(pi152: None, tmp_path: Path) -> None:
    rec = tmp_path / "probe.jsonl"
    p = probe("--agent", "pi-1.5.2", "-o", str(rec))
    assert p.returncode == 0, p.stdout + p.stderr[-3000:]
    assert "unknown to the dialect (0):\n  nothing" in p.stdout
    assert "other findings above info (0):\n  nothing" in p.stdout
    assert rec.stat().st_size > 10_000  # the whole rich session was recorded


def test_an_older_dialect_lists_what_the_newer_agent_added(pi152: None) -> None:
    p = probe("--agent", "pi-1.5.2", "--dialect", "pi-0.84")
    assert p.returncode == 1, p.stdout + p.stderr[-3000:]
    for line in ("a2c schema.unknown_field $.aborted", "a2c schema.unknown_field $.message.durationMs",
                 "a2c schema.unknown_field $.message.usage.cost.totalFromProvider"):
        assert line in p.stdout, p.stdout


def test_usage_errors() -> None:
    assert probe().returncode == 2
    assert probe("--dialect", "pi-9", "--", "true").returncode == 2
