"""rpcspy.recording.follow: the entries appended to a recording, a poll at a time."""

from __future__ import annotations

from pathlib import Path

from rpcspy.recording.follow import Tail
from rpcspy.recording.format import FrameEntry
from rpcspy.recording.reader import open_recording
from tests.paths import DATA

FIRST = DATA / "recordings" / "versions" / "v1-first-writer.jsonl"


def test_a_tail_reads_whole_lines_as_they_are_appended(tmp_path: Path) -> None:
    head, *lines = FIRST.read_bytes().split(b"\n")
    path = tmp_path / "growing.jsonl"
    path.write_bytes(head + b"\n" + lines[0] + b"\n" + lines[1][:10])  # a line being written
    tail = Tail(open_recording(path))
    try:
        first = tail.poll()
        assert [type(e).__name__ for e in first.entries] == ["Start"] and first.read and not first.more
        assert tail.poll().read == 0  # nothing new
        with path.open("ab") as f:
            f.write(lines[1][10:] + b"\n" + b"\n".join(lines[2:]))
        rest = tail.poll()
        assert rest.entries == list(open_recording(FIRST).entries())[1:]
        assert tail.size == path.stat().st_size
        frames = [(e, at) for e, at in zip(rest.entries, rest.offsets, strict=True) if isinstance(e, FrameEntry)]
        assert frames and all(tail.entry_at(at) == e for e, at in frames)
    finally:
        tail.close()


def test_a_small_limit_reads_in_steps(tmp_path: Path) -> None:
    tail = Tail(open_recording(FIRST))
    try:
        entries = []
        while (got := tail.poll(100)).read:
            entries += got.entries
            assert got.more or got.read < 100
        assert entries == list(open_recording(FIRST).entries())
    finally:
        tail.close()
