"""``rpcspy stats``: rich tables and JSON."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from rpcspy.cli import main
from tests.render.sample import write_sample

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def sample(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_sample(tmp_path_factory.mktemp("stats") / "sample.jsonl")


def stats(*args: str):
    return CliRunner().invoke(main, ["stats", *args], env={"COLUMNS": "100"})


def test_json(sample: Path) -> None:
    res = stats(str(sample), "--format", "json")
    assert res.exit_code == 0, res.output
    report = json.loads(res.output)
    assert report["commands"]["prompt"]["p50_ms"] == 100.0
    assert report["runs"][0]["ttft_ms"] == 150.0
    assert report["findings"]["total"] == 3


def test_tables(sample: Path) -> None:
    res = stats(str(sample))
    assert res.exit_code == 0, res.output
    out = res.output
    for title in ("Commands (response latency)", "Runs (agent_start .. agent_end)", "Agent → client by type",
                  "Client → agent by type", "Findings (3)"):
        assert title in out
    assert "snapshots in them: partial" in out and "exit 0" in out and "\x1b" not in out


def test_filters_select_what_is_counted(sample: Path) -> None:
    only_client = json.loads(stats(str(sample), "--dir", "c2a", "--format", "json").output)
    assert only_client["frames"]["a2c"]["count"] == 0 and only_client["frames"]["c2a"]["count"] == 5
    assert only_client["findings"]["total"] == 0  # all three findings are about agent frames
    flagged = json.loads(stats(str(sample), "--with-findings", "--format", "json").output)
    assert flagged["frames"]["a2c"]["count"] == 3 and flagged["findings"]["total"] == 3


def test_partial_snapshots_on_a_073_transcript() -> None:
    path = ROOT / "tests/golden/inputs/pi073_10_streaming_steer_followup_queue.jsonl"
    report = json.loads(stats(str(path), "--format", "json").output)
    mu = report["message_update"]
    assert mu["partial_bytes"] > 0 and mu["partial_bytes"] == mu["message_bytes"]
    assert 0.5 < mu["snapshot_share"] < 0.9
    newer = json.loads(stats(str(ROOT / "tests/golden/inputs/pi087_01_basic_text_prompt.jsonl"),
                             "--format", "json").output)
    assert newer["message_update"]["partial_bytes"] == 0  # 0.87 sends deltas only


def test_missing_file() -> None:
    res = stats("/nonexistent/x.jsonl")
    assert res.exit_code == 2 and "no such file" in res.output
