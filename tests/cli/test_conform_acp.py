"""``rpcspy conform`` against ACP agents: the SDK-built test agent, `omp acp` and pi-acp on pi 1.6.0.

One agent process serves the whole ACP battery (restarted when it dies), so a real agent's slow
start is paid once or twice, not per case."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from rpcspy.cli import main
from tests.conftest import _installed
from tests.support.agents import REPO_ROOT

pytest.importorskip("acp")  # PyPI agent-client-protocol (the test extra): the test agent is built with it
TEST_AGENT = [sys.executable, "-m", "tests.support.acp_agent"]
ALL_PASS = {c: "passed" for c in ("acp.initialize", "acp.session_new", "acp.prompt_end_turn", "acp.ids",
                                  "acp.unknown_method", "acp.invalid_params", "acp.permission_allowed",
                                  "acp.permission_denied", "acp.cancel", "acp.eof")}
EXPECTED = {
    # what docs/conformance.md records for the ACP battery
    "test-agent": {**ALL_PASS, "acp.parse_error": "deviation"},  # the Python SDK drops invalid JSON silently
    "pi-acp-0.0.34": {**ALL_PASS, "acp.parse_error": "deviation"},
    "omp-18.2.3": {**ALL_PASS, "acp.unknown_method": "deviation", "acp.invalid_params": "deviation",
                   "acp.parse_error": "failed"},  # -32603 for both; invalid JSON ends the process
}


def conform(agent: list[str], *args: str, env: dict[str, str] | None = None) -> tuple[dict, subprocess.CompletedProcess]:
    base = dict(env or os.environ)
    base["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO_ROOT), base.get("PYTHONPATH")]))
    p = subprocess.run([sys.executable, "-m", "rpcspy", "conform", "--format", "json", *args, "--", *agent],
                       capture_output=True, text=True, timeout=400, env=base)
    assert p.stdout, (p.returncode, p.stderr[-4000:])
    return json.loads(p.stdout), p


def statuses(doc: dict) -> dict[str, str]:
    return {c["id"]: c["status"] for c in doc["cases"]}


def test_the_acp_battery_against_the_sdk_test_agent() -> None:
    """Chosen by the command's name (`tests.support.acp_agent`); every case in one agent process."""
    doc, p = conform(TEST_AGENT)
    assert statuses(doc) == EXPECTED["test-agent"], doc
    assert p.returncode == 0
    details = {c["id"]: c["detail"] for c in doc["cases"]}
    assert "answered reject" in details["acp.permission_denied"] and "failed" in details["acp.permission_denied"]


def test_auto_detects_acp_from_the_answer_to_initialize(tmp_path: Path) -> None:
    """A command that does not name ACP is sent an ACP initialize: its JSON-RPC answer picks the ACP cases."""
    wrapper = tmp_path / "agent"
    wrapper.write_text(f"#!/bin/sh\nexec {sys.executable} -m tests.support.acp_agent\n")
    wrapper.chmod(0o755)
    doc, _ = conform([str(wrapper)], "--case", "acp.session_new", "--case", "framing.lf")
    assert statuses(doc) == {"acp.session_new": "passed"}


def test_auto_detects_pi_from_the_answer_to_initialize(tmp_path: Path) -> None:
    toy = Path(__file__).parents[1] / "conform" / "toy_agent.py"
    wrapper = tmp_path / "agent"
    wrapper.write_text(f"#!/bin/sh\nexec {sys.executable} {toy}\n")
    wrapper.chmod(0o755)
    doc, _ = conform([str(wrapper)], "--no-agent-args", "--case", "acp.session_new", "--case", "framing.lf")
    assert statuses(doc) == {"framing.lf": "passed"}


def test_a_forced_dialect_with_no_matching_case_is_a_usage_error() -> None:
    res = CliRunner().invoke(main, ["conform", "--dialect", "acp-v1", "--case", "framing.*", "--", "x"])
    assert res.exit_code == 2 and "no acp-v1 case matches" in res.output


def test_list_shows_both_batteries() -> None:
    res = CliRunner().invoke(main, ["conform", "--list"])
    assert res.exit_code == 0 and "# acp-v1" in res.output and "acp.cancel" in res.output


@pytest.mark.agents
def test_the_acp_battery_against_omp_acp(request: pytest.FixtureRequest) -> None:
    omp = _installed("omp-18.2.3", request.getfixturevalue("_agent_specs"))
    doc, p = conform([*omp.argv_prefix, "acp"], env=omp.environ())
    assert statuses(doc) == EXPECTED["omp-18.2.3"], doc
    assert p.returncode == 1  # invalid JSON ends omp: a failure


@pytest.mark.agents
def test_the_acp_battery_against_pi_acp_on_pi_160(request: pytest.FixtureRequest, tmp_path: Path) -> None:
    """pi-acp runs PI_ACP_PI_COMMAND; the battery's HOME makes the fake model pi's default. pi asks no
    permission itself: the battery's gate extension confirms the shell command, which pi-acp turns
    into session/request_permission."""
    specs = request.getfixturevalue("_agent_specs")
    adapter, pi = _installed("pi-acp-0.0.34", specs), _installed("pi-1.6.0", specs)
    wrapper = tmp_path / "pi"
    wrapper.write_text("#!/bin/sh\nexec " + " ".join(pi.argv_prefix) + ' "$@"\n')
    wrapper.chmod(0o755)
    doc, p = conform(adapter.argv_prefix, env={**adapter.environ(), "PI_ACP_PI_COMMAND": str(wrapper)})
    assert statuses(doc) == EXPECTED["pi-acp-0.0.34"], doc
    assert p.returncode == 0
