"""Proof of ``diff --compat``: a scripted session recorded with pi 0.87.1 (``rpcspy drive``), re-run with
``replay --client`` against pi 1.5.2: pi 1.5.2's new dispositions come out as safe additions."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.integration.test_drive_agents import SCRIPT as DRIVE_SCRIPT
from tests.support.agents import REPO_ROOT

pytestmark = pytest.mark.agents

SCRIPT = [*DRIVE_SCRIPT[:5], {"id": "m", "type": "get_last_assistant_text"}]


def rpcspy(agent, *args: str) -> subprocess.CompletedProcess[str]:  # type: ignore[no-untyped-def]
    env = dict(agent.env)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO_ROOT), env.get("PYTHONPATH")]))
    return subprocess.run([sys.executable, "-m", "rpcspy", *args], capture_output=True, text=True, env=env,
                          cwd=agent.cwd, timeout=300)


def test_pi_1_5_dispositions_are_safe_additions(_agent_specs, agent_home: Path, fake_llm, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from tests.conftest import _installed, _runnable

    old_pi = _runnable(_installed("pi-0.87.1", _agent_specs), agent_home)
    new_pi = _runnable(_installed("pi-1.5.2", _agent_specs), agent_home)
    steps, old, new = tmp_path / "steps.jsonl", tmp_path / "old.jsonl", tmp_path / "new.jsonl"
    steps.write_text("".join(json.dumps(s) + "\n" for s in SCRIPT))
    recorded = rpcspy(old_pi, "drive", str(steps), "-o", str(old), "--", *old_pi.argv)
    assert recorded.returncode == 0, recorded.stderr
    replayed = rpcspy(new_pi, "replay", "--client", str(old), "-o", str(new), "--", *new_pi.argv)
    assert replayed.returncode == 0, replayed.stderr
    done = rpcspy(new_pi, "diff", "--compat", "--format", "json", str(old), str(new))
    report = json.loads(done.stdout)
    assert not report["client_differs"]
    groups = {(g["type"], g["path"]): g for g in report["groups"]}
    prompt = groups[("response/prompt", "$.data")]
    assert (prompt["level"], prompt["kind"], prompt["count"]) == ("safe", "new field", 2)
    assert prompt["example"]["b"] == {"disposition": "started"}
    follow_up = groups[("response/follow_up", "$.data")]
    assert (follow_up["level"], follow_up["kind"]) == ("safe", "new field")
    assert follow_up["example"]["b"] == {"disposition": "queued"}
    assert not [g for g in report["groups"] if "disposition" in json.dumps(g) and g["level"] != "safe"]
    assert done.returncode == (1 if report["breaking"] else 0)
    text = rpcspy(new_pi, "diff", "--compat", str(old), str(new)).stdout
    assert 'response/prompt: new field $.data x2  e.g. B#' in text and '{"disposition":"started"}' in text
    assert "(in 0/2 old, 2/2 new)" in text


SAME_STEPS = [*DRIVE_SCRIPT[:6], {"id": "p4", "type": "prompt", "message": "tools: echo one ;; echo two ;; echo three"},
              {"id": "m", "type": "get_messages"}]
"""Text, a follow-up injected mid-stream, one tool call, three parallel ones: what varies with timing."""


@pytest.mark.parametrize("name", ["pi-1.5.2", "pi-1.6.0"])
def test_two_runs_of_one_agent_compare_as_nothing_breaking_no_warning(
        name: str, _agent_specs, agent_home: Path, fake_llm, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """Whether pi's usage snapshot already holds reasoning when a delta is written, in which order parallel
    tool calls end: two runs of the same agent and steps differ in that, and --compat says so as timing."""
    from tests.conftest import _installed, _runnable

    pi = _runnable(_installed(name, _agent_specs), agent_home)
    steps = tmp_path / "steps.jsonl"
    steps.write_text("".join(json.dumps(s) + "\n" for s in SAME_STEPS))
    runs = [tmp_path / "one.jsonl", tmp_path / "two.jsonl"]
    for run in runs:
        done = rpcspy(pi, "drive", str(steps), "-o", str(run), "--", *pi.argv)
        assert done.returncode == 0, done.stderr
    for a, b in (runs, runs[::-1]):
        done = rpcspy(pi, "diff", "--compat", "--format", "json", str(a), str(b))
        report = json.loads(done.stdout)
        assert (report["breaking"], report["warning"], done.returncode) == (0, 0, 0), done.stdout
        assert not report["client_differs"]
        assert {g["level"] for g in report["groups"]} <= {"safe", "timing"}
