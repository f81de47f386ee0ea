"""``rpcspy conform --agent ... --agent ...``: a matrix of real agents in one call, and conformance baselines."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from rpcspy.conform.cases import CASES
from rpcspy.conform.matrix import against_baseline, dump_baseline, load_baseline, to_junit
from rpcspy.conform.report import Row
from rpcspy.conform.script import Verdict
from tests.support.agents import REPO_ROOT, AgentInstallError, ensure_agent

PAIR = ("pi-1.5.2", "pi-1.6.0")
CASE_IDS = ("framing.lf", "framing.null")


def _conform(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "rpcspy", "conform", "--no-model", "--jobs", "2",
                           *[a for c in CASE_IDS for a in ("--case", c)], *args],
                          capture_output=True, text=True, timeout=600, env=env)


@pytest.mark.agents
def test_a_matrix_of_two_real_agents_and_its_baseline(tmp_path: Path) -> None:
    try:
        specs = [ensure_agent(name) for name in PAIR]
    except AgentInstallError as exc:
        pytest.skip(f"agents unavailable: {exc}")
    agents = []
    for spec in specs:
        agents += ["--agent", " ".join([*spec.argv_prefix, "--mode", "rpc"])]
    env = specs[0].environ(PYTHONPATH=str(REPO_ROOT))
    base = tmp_path / "conform-baseline.json"
    first = _conform(*agents, "--format", "json", "--write-baseline", str(base), env=env)
    doc = json.loads(first.stdout)
    assert doc["agents"] == ["pi 1.5.2", "pi 1.6.0"]  # labels: the agent and version the command line names
    statuses = {c["id"]: {a: r["status"] for a, r in c["results"].items()} for c in doc["cases"]}
    assert statuses["framing.lf"] == {"pi 1.5.2": "passed", "pi 1.6.0": "passed"}
    assert statuses["framing.null"] == {"pi 1.5.2": "failed", "pi 1.6.0": "failed"}  # docs/conformance.md
    assert first.returncode == 1
    accepted = _conform(*agents, "--baseline", str(base), env=env)
    assert accepted.returncode == 0, accepted.stderr  # the known failure is accepted
    assert "framing.null" in accepted.stdout and "pi 1.6.0" in accepted.stdout.splitlines()[1]


def _rows(statuses: dict[str, str]) -> list[Row]:
    by_id = {c.id: c for c in CASES}
    return [Row(by_id[case], Verdict(status, "detail")) for case, status in statuses.items()]  # type: ignore[arg-type]


def test_baseline_new_failures_and_stale_entries() -> None:
    before = {"a": _rows({"framing.lf": "passed", "framing.null": "failed", "framing.crlf": "deviation"})}
    accepted = load_baseline(dump_baseline(before))
    assert accepted == {("a", "framing.null"): "failed", ("a", "framing.crlf"): "deviation"}
    after = {"a": _rows({"framing.lf": "failed", "framing.null": "failed", "framing.crlf": "passed"})}
    verdict = against_baseline(after, accepted)
    assert [(a, r.case.id) for a, r in verdict.new] == [("a", "framing.lf")]
    assert verdict.stale == [("a", "framing.crlf", "deviation")]


def test_junit_has_a_suite_per_agent() -> None:
    xml = to_junit({"a": _rows({"framing.lf": "passed"}), "b": _rows({"framing.lf": "failed"})})
    from xml.etree import ElementTree as ET

    root = ET.fromstring(xml)
    assert [s.get("name") for s in root] == ["rpcspy conform: a", "rpcspy conform: b"]
    assert root.get("failures") == "1" and root.get("tests") == "2"


@pytest.mark.parametrize("args", [["--agent", "x", "--", "y"], ["--agent", "a=x", "--agent", "a=y"],
                                  ["--agent", "l='unclosed"], ["--baseline", "/nonexistent/b.json", "--", "x"]])
def test_matrix_usage_errors(args: list[str]) -> None:
    from click.testing import CliRunner

    from rpcspy.cli import main

    assert CliRunner().invoke(main, ["conform", "--no-model", "--case", "framing.lf", *args]).exit_code == 2
