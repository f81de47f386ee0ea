"""Following a recording as it grows: the reader's loop for a file still being written.

:class:`Tail` reads the whole lines appended to an rpcspy recording since its last
:meth:`~Tail.poll`, each upgraded from an older format as the reader does
(:mod:`rpcspy.recording.migrate`) and decoded as one entry with the offset of its line, so a
caller can read a frame again later (:meth:`~Tail.entry_at`). A line that is no entry is
skipped, as a line still being written may look. ``rpcspy watch REC`` and ``rpcspy browse``
follow recordings with it.
"""

from __future__ import annotations

from dataclasses import dataclass

import msgspec

from rpcspy.recording.decode import entry_or_none
from rpcspy.recording.migrate import upgrade_line
from rpcspy.recording.reader import Recording

POLL_BYTES = 8 << 20
"""At most this much is read per poll by default, so a large recording shows while it loads."""


@dataclass
class Poll:
    """What one :meth:`Tail.poll` read."""

    entries: list[msgspec.Struct]
    offsets: list[int]
    """The file offset of each entry's line."""
    read: int
    """Bytes read (0: the file has not grown; some without entries: a line not yet whole)."""
    more: bool
    """The read was cut at the limit: more is waiting."""


class Tail:
    """The entries of an rpcspy recording, read from after its header a poll at a time as the file grows."""

    def __init__(self, rec: Recording) -> None:
        self.rec = rec
        self._f = open(rec.path, "rb")  # closed by close()
        self._f.readline()  # the header
        self._pos = self._f.tell()
        self._pending = b""
        self.size = self._pos
        """Bytes of whole lines read so far."""

    def fileno(self) -> int:
        return self._f.fileno()

    def poll(self, limit: int = POLL_BYTES) -> Poll:
        """The entries of the whole lines appended since the last poll (up to about ``limit`` bytes read)."""
        self._f.seek(self._pos)
        chunk = self._f.read(limit)
        if not chunk:
            return Poll([], [], 0, False)
        start = self._pos - len(self._pending)
        data = self._pending + chunk
        self._pos += len(chunk)
        entries: list[msgspec.Struct] = []
        offsets: list[int] = []
        steps = self.rec.steps
        at = 0
        while (end := data.find(b"\n", at)) >= 0:
            line = data[at:end]
            if line.strip():
                for new in upgrade_line(line, steps) if steps else (line,):
                    if (entry := entry_or_none(new)) is not None:
                        entries.append(entry)
                        offsets.append(start + at)
            at = end + 1
        self._pending = data[at:]
        self.size = self._pos - len(self._pending)
        return Poll(entries, offsets, len(chunk), len(chunk) == limit)

    def entry_at(self, offset: int) -> msgspec.Struct | None:
        """The entry of the line at ``offset`` (one :meth:`poll` gave), read again; None if it is no entry."""
        self._f.seek(offset)
        line = self._f.readline().rstrip(b"\n")
        for new in upgrade_line(line, self.rec.steps) if self.rec.steps else (line,):
            return entry_or_none(new)
        return None

    def close(self) -> None:
        self._f.close()
