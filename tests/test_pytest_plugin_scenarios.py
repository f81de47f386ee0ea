"""The plugin's torture-kit fixture, run in an inner pytest: one test run per scenario."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

INNER = '''
import json
import subprocess
import pytest

def naive_frames(argv):
    p = subprocess.run(argv, input=b'{"id":"a","type":"get_state"}\\n', capture_output=True, timeout=60)
    return [json.loads(line) for line in p.stdout.decode().splitlines() if line]  # splits on U+2028 too

@pytest.mark.rpcspy_scenarios(["clean", "u2028", "idless-errors"])
def test_naive_client(rpcspy_scenario):
    frames = naive_frames(rpcspy_scenario.argv)
    assert [f["id"] for f in frames if f["type"] == "response"] == ["a"], rpcspy_scenario.faults()

def test_every_scenario_answers(rpcspy_scenario):
    p = subprocess.run(rpcspy_scenario.argv, input=b'{"id":"a","type":"get_state"}\\n', capture_output=True, timeout=60)
    assert p.returncode in (0, 1)  # 1: agent-crash; a clean EOF is 0 (never the recorder's SIGTERM, 143)
    assert rpcspy_scenario.report()["final"] is True
'''


def test_fixture_runs_a_test_once_per_scenario(tmp_path: Path) -> None:
    from rpcspy.replay.scenarios import SCENARIOS

    (tmp_path / "test_inner.py").write_text(INNER)
    p = subprocess.run([sys.executable, "-m", "pytest", "-q", "-rf", "-p", "no:cacheprovider", "test_inner.py"],
                       cwd=tmp_path, capture_output=True, text=True, timeout=600)
    out = p.stdout
    assert f"2 failed, {1 + len(SCENARIOS)} passed" in out, out
    assert "FAILED test_inner.py::test_naive_client[u2028]" in out  # JSONDecodeError: split at U+2028
    assert "FAILED test_inner.py::test_naive_client[idless-errors]" in out
    assert "idless-error" in out  # the failing assertion names the injected fault


def test_unknown_scenario_in_the_marker_is_a_usage_error(tmp_path: Path) -> None:
    (tmp_path / "test_inner.py").write_text(
        "import pytest\n@pytest.mark.rpcspy_scenarios(['nope'])\ndef test_x(rpcspy_scenario):\n    pass\n")
    p = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_inner.py"],
                       cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert p.returncode != 0 and "unknown scenario(s) nope" in p.stdout + p.stderr
