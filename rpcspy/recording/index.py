"""A recording read in steps, with the file offset of every frame, for browsing.

:class:`RecordingIndex` reads the entries that were appended since the last
:meth:`~RecordingIndex.poll` (so it follows a recording that is still being
written) and remembers where each frame's line starts, 8 bytes per entry, so a
frame is decoded again only when it is looked at. Transcripts, which have no
such lines, are read once and their frames kept in memory.
"""

from __future__ import annotations

import os
from array import array
from typing import Any

from rpcspy.events import Frame
from rpcspy.recording.decode import entry_or_none
from rpcspy.recording.format import FrameEntry
from rpcspy.recording.reader import open_recording

POLL_BYTES = 8 << 20
"""At most this much is read per poll, so a large recording shows while it loads."""


class RecordingIndex:
    """Entries of one recording as it grows; frames on demand by seq."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.rec = open_recording(path)  # RecordingError for what is not a recording
        self.path = self.rec.path
        self._mem: dict[int, Frame] | None = None if self.rec.kind == "rpcspy" else {}
        self._f = open(self.path, "rb")
        self._f.readline()  # the header
        self._pos = self._f.tell()
        self._pending = b""
        self._base = -1
        self._offsets = array("q")
        self.size = self._pos
        """Bytes read so far."""

    def poll(self, limit: int = POLL_BYTES) -> tuple[list[Any], bool]:
        """Entries appended since the last poll (up to about ``limit`` bytes) and whether more are waiting."""
        if self._mem is not None:
            if self._pos < 0:
                return [], False
            entries = list(self.rec.entries())
            for e in entries:
                if isinstance(e, FrameEntry):
                    self._mem[e.seq] = e.to_frame()
            self._pos = -1
            return entries, False
        self._f.seek(self._pos)
        chunk = self._f.read(limit)
        more = len(chunk) == limit
        if not chunk:
            return [], False
        start = self._pos - len(self._pending)
        data = self._pending + chunk
        self._pos += len(chunk)
        entries = []
        at = 0
        while (end := data.find(b"\n", at)) >= 0:
            line = data[at:end]
            if line.strip() and (entry := entry_or_none(line)) is not None:
                entries.append(entry)
                if isinstance(entry, FrameEntry):
                    self._remember(entry.seq, start + at)
            at = end + 1
        self._pending = data[at:]
        self.size = self._pos - len(self._pending)
        return entries, more

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
        if self._mem is not None:
            return self._mem.get(seq)
        i = seq - self._base
        if self._base < 0 or not 0 <= i < len(self._offsets) or self._offsets[i] < 0:
            return None
        self._f.seek(self._offsets[i])
        entry = entry_or_none(self._f.readline())
        return entry.to_frame() if isinstance(entry, FrameEntry) else None

    def close(self) -> None:
        self._f.close()
