"""Proof of the torture kit: pi 1.5.2's own RpcClient run through every bundled scenario.

The outcomes are the ones docs/torture.md records; a change in the client, the scenarios or
the replay that alters one fails here.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from rpcspy.replay.scenarios import BY_NAME, SCENARIOS
from tests.replay.torture_probe import client_js, outcome, run_probe
from tests.support.agents import AgentInstallError, ensure_agent

pytestmark = pytest.mark.agents

EXPECTED = {
    "u2028": "survives",
    "split-frames": "survives",
    "oversize": "survives",
    "idless-errors": "breaks",  # the id-less response reaches the event listeners: promptAndWait returns it
    "duplicate-responses": "breaks",  # the second copy reaches the event listeners too
    "reordered-responses": "survives",
    "stray-settled": "breaks",  # promptAndWait resolves at the stray agent_settled, mid-run
    "slow-agent": "survives",
    "lost-response": "detects",  # "Timeout waiting for response to get_state" after 30 s
    "auto-retry": "survives",  # waits for agent_settled, which comes after the retried run
    "agent-crash": "breaks",  # the exit rejects pending requests only: promptAndWait waits for its timeout
}


@pytest.fixture(scope="module")
def rpc_client() -> Path:
    try:
        spec = ensure_agent("pi-1.5.2")
    except AgentInstallError as exc:
        if os.environ.get("RPCSPY_SKIP_AGENTS") == "1":
            pytest.skip(f"pi-1.5.2 unavailable: {exc}")
        raise
    return client_js(spec.argv_prefix)


@pytest.fixture(scope="module")
def clean(rpc_client: Path, tmp_path_factory: pytest.TempPathFactory) -> dict:
    tmp = tmp_path_factory.mktemp("clean")
    code, result = run_probe(rpc_client, "clean", tmp / "report.json", tmp)
    assert code == 0, result
    assert result["text"] == "Hello \u2028world!" and result["bash"]["output"] == "hi\n"
    return result


def test_every_scenario_has_a_recorded_outcome() -> None:
    assert set(EXPECTED) == set(BY_NAME) - {"clean"}


@pytest.mark.parametrize("name", [s.name for s in SCENARIOS if s.name != "clean"])
def test_rpc_client_through_scenario(name: str, rpc_client: Path, clean: dict, tmp_path: Path) -> None:
    import json

    report = tmp_path / "report.json"
    code, result = run_probe(rpc_client, name, report, tmp_path)
    from tests.replay.torture_probe import strip_chaos

    differs = sorted(k for k in set(clean) | set(result) if strip_chaos(result.get(k)) != clean.get(k))
    assert outcome(name, code, result, clean) == EXPECTED[name], (code, result.get("error"), differs,
                                                                   {k: str(result.get(k))[:500] for k in differs})
    rep = json.loads(report.read_text())
    if BY_NAME[name].chaos:
        assert rep["faults"], "the scenario injected nothing"
