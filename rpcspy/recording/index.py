"""A recording read in steps, with the file offset of every frame, for browsing.

:class:`RecordingIndex` reads the entries that were appended since the last
:meth:`~RecordingIndex.poll` (so it follows a recording that is still being
written: :class:`~rpcspy.recording.follow.Tail`) and remembers where each frame's line starts,
8 bytes per entry, so a frame is decoded again only when it is looked at. Transcripts, which have no
such lines, are read once and their frames kept in memory.
"""

from __future__ import annotations

import os
from array import array
from typing import Any

from rpcspy.events import Frame
from rpcspy.recording.follow import POLL_BYTES, Tail
from rpcspy.recording.format import FrameEntry
from rpcspy.recording.reader import open_recording


class RecordingIndex:
    """Entries of one recording as it grows; frames on demand by seq."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.rec = open_recording(path)  # RecordingError for what is not a recording
        self.path = self.rec.path
        self._mem: dict[int, Frame] | None = None if self.rec.kind == "rpcspy" else {}
        self._tail: Tail | None = Tail(self.rec) if self._mem is None else None
        self._read_once = False
        self._base = -1
        self._offsets = array("q")

    @property
    def size(self) -> int:
        """Bytes read so far."""
        return self._tail.size if self._tail is not None else 0

    def poll(self, limit: int = POLL_BYTES) -> tuple[list[Any], bool]:
        """Entries appended since the last poll (up to about ``limit`` bytes) and whether more are waiting."""
        if self._tail is None:
            assert self._mem is not None
            if self._read_once:
                return [], False
            entries = list(self.rec.entries())
            for e in entries:
                if isinstance(e, FrameEntry):
                    self._mem[e.seq] = e.to_frame()
            self._read_once = True
            return entries, False
        got = self._tail.poll(limit)
        for entry, offset in zip(got.entries, got.offsets, strict=True):
            if isinstance(entry, FrameEntry):
                self._remember(entry.seq, offset)
        return got.entries, got.more

    def _remember(self, seq: int, offset: int) -> None:
        if self._base < 0:
            self._base = seq
        i = seq - self._base
        if i < 0:
            return
        if i >= len(self._offsets):
            self._offsets.extend([-1] * (i + 1 - len(self._offsets)))
        self._offsets[i] = offset

    def frame(self, seq: int) -> Frame | None:
        """The frame with this seq, read and decoded again; None if there is none."""
        if self._tail is None:
            return self._mem.get(seq) if self._mem is not None else None
        i = seq - self._base
        if self._base < 0 or not 0 <= i < len(self._offsets) or self._offsets[i] < 0:
            return None
        entry = self._tail.entry_at(self._offsets[i])
        return entry.to_frame() if isinstance(entry, FrameEntry) else None

    def close(self) -> None:
        if self._tail is not None:
            self._tail.close()
