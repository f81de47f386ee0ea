"""rpcspy.offline: one pipeline from a recording file to the events an offline command renders."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from rpcspy.events import Finding, Frame
from rpcspy.filters import build_filter
from rpcspy.offline import RecordingError, entry_size, findings_passing, open_reading, selected
from tests.paths import DATA
from tests.render.sample import write_sample


def test_a_reading_is_its_recordings_header_kind_and_dialect(tmp_path: Path) -> None:
    reading = open_reading(write_sample(tmp_path / "s.jsonl"))
    assert reading.kind == "rpcspy" and reading.header.argv == ["pi", "--mode", "rpc"]
    assert reading.dialect()[0] != "auto"
    assert reading.directions() == {"c2a", "a2c"} and reading.absent_sides() == frozenset()
    with pytest.raises(RecordingError, match="is a directory"):
        open_reading(tmp_path)


def test_the_progress_wrapper_sees_the_main_pass_only(tmp_path: Path) -> None:
    """The wrapper is handed the entries and the file's size; the first passes (dialect, --with-findings)
    and the frames alone go around it."""
    path = write_sample(tmp_path / "s.jsonl")
    told: list[int] = []
    seen: list[Any] = []

    def wrap(entries: Iterator[Any], total: int) -> Iterator[Any]:
        told.append(total)
        for e in entries:
            seen.append(e)
            yield e

    reading = open_reading(path, wrap)
    reading.dialect()
    reading.flagged(build_filter(only_findings=True))
    list(reading.frames())
    assert told == []
    events = list(reading.events())
    assert told == [path.stat().st_size] and len(seen) == len(list(open_reading(path).rec.entries()))
    assert sum(map(entry_size, seen)) > 0 and len(events) >= len(seen)


def test_check_replaces_the_recorded_findings(tmp_path: Path) -> None:
    reading = open_reading(write_sample(tmp_path / "s.jsonl"))
    recorded = {e.rule for e in reading.events() if isinstance(e, Finding)}
    fresh = {e.rule for e in reading.events(check=True) if isinstance(e, Finding)}
    assert "stream.partial_ahead" in recorded and "stream.partial_ahead" not in fresh and "framing.crlf" in fresh


def test_selected_keeps_the_frames_the_filter_passes_and_their_findings(tmp_path: Path) -> None:
    reading = open_reading(write_sample(tmp_path / "s.jsonl"))
    everything = list(reading.events())
    assert list(selected(reading.events(), build_filter())) == everything
    only = list(selected(reading.events(), build_filter(dirs=["a2c"])))
    frames = [e for e in only if isinstance(e, Frame)]
    assert frames and all(f.dir == "a2c" for f in frames)
    kept = {f.seq for f in frames}
    assert all(e.frame in kept for e in only if isinstance(e, Finding) and e.frame is not None)
    flagged = reading.flagged(build_filter(only_findings=True))
    assert flagged
    with_findings = [e for e in selected(reading.events(), build_filter(only_findings=True), flagged)
                     if isinstance(e, Frame)]
    assert {f.seq for f in with_findings} == flagged & {e.seq for e in everything if isinstance(e, Frame)}


def test_a_transcript_says_which_side_it_lacks() -> None:
    reading = open_reading(f"{DATA}/transcripts/05_null_frame_crash.jsonl")
    assert reading.kind == "raw-transcript" and reading.directions() <= {"c2a", "a2c", "err"}


def test_findings_passing_warns_when_the_frames_cannot_be_read_again(tmp_path: Path) -> None:
    reading = open_reading(write_sample(tmp_path / "s.jsonl"))
    findings = [e for e in reading.events() if isinstance(e, Finding)]
    assert findings_passing(build_filter(), findings, reading.path) == (findings, None)
    about = [f for f in findings if f.frame is not None]
    kept, problem = findings_passing(build_filter(types=["finding"]), about, str(tmp_path / "gone.jsonl"))
    assert kept == about and problem is not None and "cannot read frame types" in problem
