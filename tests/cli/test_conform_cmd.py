"""``rpcspy conform`` against the real agents (a subset of cases, to keep the suite quick)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from click.testing import CliRunner

from rpcspy.cli import main
from tests.support.agents import REPO_ROOT

CASES = ["framing.blank_line", "framing.null", "id.unknown_command", "lifecycle.run", "lifecycle.retry",
         "dialogs.answered", "shutdown.eof_idle"]
EXPECTED = {
    # what docs/conformance.md records (protocol-notes sections 1.2, 1.3, 10.2, 10.3, 12)
    "pi-0.73.1": {"framing.blank_line": "deviation", "framing.null": "failed", "id.unknown_command": "deviation",
                  "lifecycle.retry": "passed"},
    "pi-0.87.1": {"framing.blank_line": "deviation", "framing.null": "failed", "id.unknown_command": "passed",
                  "lifecycle.retry": "passed"},
    "pi-1.5.2": {"framing.blank_line": "deviation", "framing.null": "failed", "id.unknown_command": "passed",
                 "lifecycle.retry": "passed"},
    "pi-1.6.0": {"framing.blank_line": "deviation", "framing.null": "failed", "id.unknown_command": "passed",
                 "lifecycle.retry": "passed"},
    "omp-18.2.3": {"framing.blank_line": "passed", "framing.null": "passed", "id.unknown_command": "deviation",
                   "lifecycle.retry": "deviation"},
}


def test_conform_reports_each_case_against_the_real_agent(agent_spec) -> None:
    argv = [sys.executable, "-m", "rpcspy", "conform", "--format", "json", "--jobs", "2"]
    for c in CASES:
        argv += ["--case", c]
    p = subprocess.run([*argv, "--", *agent_spec.argv_prefix, "--mode", "rpc"], capture_output=True, text=True,
                       timeout=300, env=agent_spec.environ(PYTHONPATH=str(REPO_ROOT), PYTHONFAULTHANDLER="1"))  # a crash names its place
    assert p.stdout, (p.returncode, p.stderr[-4000:])  # a report always comes; if not, say why
    doc = json.loads(p.stdout)
    got = {c["id"]: c["status"] for c in doc["cases"]}
    always = {"lifecycle.run": "passed", "dialogs.answered": "passed", "shutdown.eof_idle": "passed"}
    assert got == {**EXPECTED[agent_spec.name], **always}, doc
    assert p.returncode == (1 if "failed" in got.values() else 0)


@pytest.mark.parametrize("args", [["conform"], ["conform", "--case", "nothing*", "--", "x"]])
def test_usage_errors(args: list[str]) -> None:
    assert CliRunner().invoke(main, args).exit_code == 2


def test_an_agent_that_cannot_start_fails_every_case() -> None:
    res = CliRunner().invoke(main, ["conform", "--no-model", "--case", "framing.lf", "--", "/nonexistent/agent"])
    assert res.exit_code == 1
    assert "FAILED" in res.output and "cannot start the agent" in res.output


def test_list_names_every_case() -> None:
    res = CliRunner().invoke(main, ["conform", "--list"])
    assert res.exit_code == 0 and "framing.null" in res.output and "(model)" in res.output
