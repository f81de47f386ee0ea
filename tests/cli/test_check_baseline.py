"""``check --baseline / --write-baseline`` and ``--format sarif``, as CI uses them."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
from click.testing import CliRunner

from rpcspy.cli import main

ROOT = Path(__file__).resolve().parents[2]
MISUSE = str(ROOT / "recordings" / "pi-0.73.1-misuse.jsonl")
BASIC = str(ROOT / "recordings" / "pi-0.73.1-basic.jsonl")
SARIF_SCHEMA = ROOT / "tests" / "data" / "schemas" / "sarif-2.1.0.json"


def check(*args: str):
    return CliRunner().invoke(main, ["check", *args])


def test_accepted_findings_pass_and_a_new_one_fails(tmp_path: Path) -> None:
    base = tmp_path / "baseline.json"
    wrote = check("--write-baseline", str(base), BASIC)
    assert wrote.exit_code == 0, wrote.output
    assert json.loads(base.read_text())["format"] == "rpcspy-baseline"
    again = check("--baseline", str(base), BASIC)
    assert again.exit_code == 0 and "0 new, 0 stale" in again.stderr
    grown = check("--baseline", str(base), BASIC, MISUSE, "--fail-on", "warning")
    assert grown.exit_code == 1  # the misuse recording's findings are new
    assert "framing.crlf" in grown.stdout and "framing.line_separator" not in grown.stdout.split(BASIC)[0]


def test_fixed_findings_are_reported_stale(tmp_path: Path) -> None:
    base = tmp_path / "baseline.json"
    assert check("--write-baseline", str(base), MISUSE).exit_code == 0
    doc = json.loads(base.read_text())
    doc["entries"].append({"file": MISUSE, "rule": "framing.bom", "dir": "c2a", "path": None,
                           "message": "a BOM that was fixed", "count": 1})
    base.write_text(json.dumps(doc))
    res = check("--baseline", str(base), MISUSE, "--fail-on", "info")
    assert res.exit_code == 0, res.output
    assert "1 stale" in res.stderr and "stale (fixed" in res.stderr and "framing.bom" in res.stderr


def test_an_unreadable_baseline_is_a_usage_error(tmp_path: Path) -> None:
    bad = tmp_path / "b.json"
    bad.write_text("{not json")
    res = check("--baseline", str(bad), BASIC)
    assert res.exit_code == 2 and "--baseline" in res.output
    assert check("--baseline", str(tmp_path / "missing.json"), BASIC).exit_code == 2


def test_sarif_is_valid_and_points_at_the_frame_line(tmp_path: Path) -> None:
    res = check("--format", "sarif", MISUSE, BASIC)
    assert res.exit_code == 1  # errors in the misuse recording
    log = json.loads(res.stdout)
    jsonschema.validate(log, json.loads(SARIF_SCHEMA.read_text()))
    results = log["runs"][0]["results"]
    assert results and all(r["locations"][0]["physicalLocation"]["region"]["startLine"] >= 1 for r in results)
    crlf = next(r for r in results if r["ruleId"] == "framing.crlf")
    line = crlf["locations"][0]["physicalLocation"]["region"]["startLine"]
    entry = json.loads(Path(MISUSE).read_text().splitlines()[line - 1])
    assert entry["seq"] == crlf["properties"]["frame"]
    rules = log["runs"][0]["tool"]["driver"]["rules"]
    assert rules[crlf["ruleIndex"]]["id"] == "framing.crlf"
    fingerprints = [r["partialFingerprints"]["rpcspyFinding/v1"] for r in results]
    assert len(set(fingerprints)) == len(fingerprints)
