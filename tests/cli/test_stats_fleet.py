"""``rpcspy stats REC...``: one report over many recordings, merged by group, on every core."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from rpcspy.cli import main

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = sorted(str(p) for p in (ROOT / "recordings").glob("*.jsonl"))


def stats(*args: str):
    return CliRunner().invoke(main, ["stats", *args], env={"COLUMNS": "120"})


def rows(output: str) -> list[dict]:
    return [json.loads(line) for line in output.splitlines()]


def test_counts_are_the_sum_of_each_recording() -> None:
    res = stats(*SAMPLES, "--format", "json", "-j", "1")
    assert res.exit_code == 0, res.output
    merged = {r["name"]: r for r in rows(res.output) if r["metric"] == "command"}
    sent: dict[str, int] = {}
    for path in SAMPLES:
        one = json.loads(stats(path, "--format", "json").output)
        for name, c in one["commands"].items():
            sent[name] = sent.get(name, 0) + c["count"]
    assert {name: r["sent"] for name, r in merged.items()} == sent
    head = next(r for r in rows(res.output) if r["metric"] == "recordings")
    assert head["count"] == len(SAMPLES) and head["unreadable"] == 0


def test_every_core_gives_the_same_report() -> None:
    one = stats(*SAMPLES, "--format", "json", "-j", "1")
    two = subprocess.run([sys.executable, "-m", "rpcspy", "stats", *SAMPLES, "--format", "json", "-j", "2"],
                         capture_output=True, text=True, timeout=120)
    assert two.returncode == 0, two.stderr
    assert two.stdout == one.output


def test_group_by_version_reads_the_command_line() -> None:
    res = stats(*SAMPLES, "--group-by", "version", "--format", "json", "-j", "1")
    groups = {r["group"] for r in rows(res.output)}
    assert groups == {"pi 0.73.1", "pi 0.87.1", "pi 1.5.2", "pi 1.6.0", "omp 18.2.3"}
    one = stats(SAMPLES[0], "--group-by", "dialect", "--format", "json")
    assert {r["group_by"] for r in rows(one.output)} == {"dialect"}  # one REC with --group-by: a fleet report


def test_an_unreadable_recording_is_listed_and_the_rest_counted(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text("this is not a recording\n")
    res = CliRunner().invoke(main, ["stats", str(bad), *SAMPLES[:2], "-j", "1"], env={"COLUMNS": "120"})
    assert res.exit_code == 2
    assert f"{bad}" in res.stderr and "2 recordings (1 unreadable)" in res.stdout


def test_filters_need_one_recording() -> None:
    res = stats(*SAMPLES[:2], "--dir", "a2c")
    assert res.exit_code == 2 and "one REC" in res.output


def test_hostile_names_reach_the_terminal_escaped(tmp_path: Path) -> None:
    rec = tmp_path / "evil.jsonl"
    evil = "\x1b]0;PWNED\x07[bold]x"
    lines = [
        {"format": "rpcspy-recording", "version": 1, "rpcspy": "0.1.0", "argv": ["pi"], "cwd": "/", "started":
         "2026-01-01T00:00:00.000000Z", "started_unix": 0.0, "pid": 1},
        {"kind": "frame", "seq": 1, "t": 0.1, "dir": "c2a", "json": {"id": "1", "type": evil}},
        {"kind": "frame", "seq": 2, "t": 0.2, "dir": "a2c", "json": {"id": "1", "type": "response", "command": evil,
                                                                     "success": False, "error": "no"}},
        {"kind": "exit", "seq": 3, "t": 0.3, "code": 0, "signal": None},
    ]
    rec.write_text("".join(json.dumps(x) + "\n" for x in lines))
    res = stats(str(rec), str(rec), "-j", "1")
    assert res.exit_code == 0, res.output
    assert "\x1b" not in res.stdout and "\x07" not in res.stdout
    assert "[bold]x" in res.stdout  # shown as text, not taken as markup


@pytest.mark.parametrize("fmt", ["table", "json"])
def test_nothing_but_unreadable_files_is_exit_2(tmp_path: Path, fmt: str) -> None:
    res = stats(str(tmp_path / "missing.jsonl"), str(tmp_path / "gone.jsonl"), "--format", fmt, "-j", "1")
    assert res.exit_code == 2
