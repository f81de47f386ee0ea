"""Stored ACP recordings (tests/data/acp/, made by tests/integration/test_acp_agents.py's sessions): real
agents check clean, the SDK-built test agent's faults fire their rules, and the dialect is detected."""

from __future__ import annotations

import pytest

from rpcspy.checker import Checker
from rpcspy.recording import open_recording
from tests.paths import DATA

ACP = DATA / "acp"


def _check(name: str) -> tuple[Checker, list[str]]:
    checker = Checker()
    found = checker.feed_many(open_recording(ACP / name).frames())
    found += checker.finish(0.0)
    return checker, sorted(f.rule for f in found if f.severity != "info")


@pytest.mark.parametrize("name", ["omp-18.2.3-acp-permission.jsonl", "pi-acp-0.0.34-pi-1.6.0.jsonl"])
def test_real_agents_check_clean(name: str) -> None:
    checker, problems = _check(name)
    assert checker.dialect == "acp-v1" and "initialize" in checker.dialect_reason
    assert problems == []


@pytest.mark.parametrize(("name", "rules"), [
    ("test-agent-perm-then-end.jsonl", ["acp.prompt_during_permission", "acp.unanswered"]),
    ("test-agent-cancel-ignored.jsonl", ["acp.cancel_not_honoured"]),
])
def test_the_test_agent_s_faults(name: str, rules: list[str]) -> None:
    assert _check(name)[1] == rules
