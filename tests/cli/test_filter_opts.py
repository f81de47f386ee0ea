"""The shared filter options, ``--where`` above all, in show, check, stats and export."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from rpcspy.cli import main
from tests.render.sample import write_sample

WHERE = "type == 'prompt' || _kind == 'exit'"


@pytest.fixture(scope="module")
def sample(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_sample(tmp_path_factory.mktemp("where") / "sample.jsonl")


def run(*args: str):
    return CliRunner().invoke(main, list(args), env={"COLUMNS": "120"})


def test_show(sample: Path) -> None:
    res = run("show", str(sample), "--where", WHERE)
    assert res.exit_code == 0, res.output
    rows = [line for line in res.output.splitlines() if line.startswith("  ")]
    assert len(rows) == 2 and "prompt #p1" in rows[0] and "exit 0" in rows[1]
    assert "[--where \"type == 'prompt'" in res.output  # the header says what selected them
    raw = run("show", str(sample), "--raw", "--where", "_dir == 'err'")
    assert raw.exit_code == 0 and len(raw.output.splitlines()) == 2 and "Debugger" in raw.output


def test_check_keeps_findings_about_passing_frames(sample: Path) -> None:
    res = run("check", "--format", "json", str(sample), "--where", "assistantMessageEvent.type == 'text_delta'")
    findings = [json.loads(x) for x in res.stdout.splitlines()]
    assert findings and {f["frame"] for f in findings} <= {14, 16, 19}
    by_rule = run("check", "--format", "json", str(sample), "--where", "rule == 'framing.line_separator'")
    assert [json.loads(x)["rule"] for x in by_rule.stdout.splitlines()] == ["framing.line_separator"]


def test_stats(sample: Path) -> None:
    res = run("stats", "--format", "json", str(sample), "--where", "type == 'prompt'")
    assert res.exit_code == 0, res.output
    report = json.loads(res.stdout)
    assert report["frames"]["c2a"]["count"] == 1 and report["frames"]["a2c"]["count"] == 0


def test_export(sample: Path, tmp_path: Path) -> None:
    out = tmp_path / "p.html"
    res = run("export", str(sample), "-o", str(out), "--where", "_dir == 'err'")
    assert res.exit_code == 0, res.output
    page = out.read_text()
    assert "Debugger listening" in page and "say hello" not in page


@pytest.mark.parametrize("cmd", ["show", "check", "stats", "export"])
def test_a_bad_expression_is_a_usage_error_with_its_position(sample: Path, cmd: str) -> None:
    res = run(cmd, str(sample), "--where", "type == 'prompt")
    assert res.exit_code == 2
    assert "bad --where expression at column 9: Unclosed ' delimiter" in res.output
    assert "--where EXPR" in run(cmd, "--help").output
