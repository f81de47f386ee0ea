"""bench/count_frames.py: a flood through the real proxy, counted back from its recording."""

from __future__ import annotations

from pathlib import Path

from tests.paths import REPO
from tests.support.bench_scripts import load_bench


def test_a_flood_is_counted_frame_for_frame(tmp_path: Path) -> None:
    cf = load_bench("count_frames")
    stream, rec = tmp_path / "stream.jsonl", tmp_path / "rec.jsonl"
    size = cf.generate(str(stream), 300_000, small=True)
    sent = stream.read_bytes().count(b"\n")
    cf.flood(str(REPO), str(stream), str(rec), [])
    assert cf.counted(str(rec)) == (sent, size, 0, 0)  # every frame, every byte, no gap


def test_table_and_summary() -> None:
    cf = load_bench("count_frames")
    rows = [("this tree", 1, 100, 100, 0, 0, 1.0), ("old", 1, 100, 90, 2, 500, 0.5),
            ("this tree", 2, 100, 100, 0, 0, 1.0), ("old", 2, 100, 100, 0, 0, 0.5)]
    assert "| old | 1 | 100 | 90 | 0.900 | 2 | 500 | 0.50 |" in cf.table(rows).splitlines()
    assert cf.summary(rows) == ["this tree: recorded 100 to 100 of 100 frames; whole in 2 of 2 runs",
                                "old: recorded 90 to 100 of 100 frames; whole in 1 of 2 runs"]
