"""RecordingIndex: entries read in steps as the file grows, frames read back by seq."""

from __future__ import annotations

from pathlib import Path

import pytest

from rpcspy.recording import RecordingError
from rpcspy.recording.format import FrameEntry
from rpcspy.recording.index import RecordingIndex
from tests.render.sample import sample_events, write_sample


def test_reads_in_steps_and_reads_frames_back(tmp_path: Path) -> None:
    path = write_sample(tmp_path / "s.jsonl")
    index = RecordingIndex(path)
    got = []
    while True:
        entries, more = index.poll(limit=300)  # smaller than some lines: they wait for their end
        got += entries
        if not more and not entries:
            break
    assert [e.seq for e in got] == [e.seq for e in sample_events()]
    for event in sample_events():
        if type(event).__name__ == "Frame":
            assert index.frame(event.seq) == event
    finding = next(e.seq for e in sample_events() if type(e).__name__ == "Finding")
    assert index.frame(finding) is None and index.frame(10_000) is None and index.frame(-5) is None
    assert index.size == path.stat().st_size
    index.close()


def test_follows_a_growing_file_and_waits_for_whole_lines(tmp_path: Path) -> None:
    full = write_sample(tmp_path / "full.jsonl").read_bytes()
    lines = full.splitlines(keepends=True)
    path = tmp_path / "growing.jsonl"
    path.write_bytes(b"".join(lines[:5]) + lines[5][:20])  # a line half written
    index = RecordingIndex(path)
    first, more = index.poll()
    assert len(first) == 4 and not more
    assert index.poll() == ([], False)
    with open(path, "ab") as f:
        f.write(lines[5][20:] + b"".join(lines[6:]))
    rest, _ = index.poll()
    assert [e.seq for e in first + rest] == [e.seq for e in sample_events()]
    frame = next(e for e in rest if isinstance(e, FrameEntry))
    assert index.frame(frame.seq) == frame.to_frame()
    index.close()


def test_transcripts_are_read_once_into_memory(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_text('>> {"id":"1","type":"get_state"}\n{"id":"1","type":"response","command":"get_state"}\n')
    index = RecordingIndex(path)
    entries, more = index.poll()
    frames = [e for e in entries if isinstance(e, FrameEntry)]
    assert len(frames) == 2 and not more and index.poll() == ([], False)
    assert index.frame(frames[1].seq).data == b'{"id":"1","type":"response","command":"get_state"}'
    index.close()


def test_not_a_recording(tmp_path: Path) -> None:
    (tmp_path / "x.txt").write_text("hello\n")
    with pytest.raises(RecordingError):
        RecordingIndex(tmp_path / "x.txt")
