"""A disk-backed FIFO so a slow observer never slows forwarding, in constant memory.

In the observer process a reader thread drains the proxy's pipe into an unlinked
temporary file as fast as the proxy writes; the dispatcher reads it back at its own
pace. When the reader catches up the file is truncated, so it only ever holds the
backlog. Memory stays flat; a backlog costs disk (page cache) instead.
"""

from __future__ import annotations

import os
import tempfile
import threading


class Spool:
    """Single producer (``put``), single consumer (``get``), ordered bytes."""

    def __init__(self, directory: str | None = None) -> None:
        fd, path = tempfile.mkstemp(prefix="rpcspy-spool-", dir=directory)
        os.unlink(path)
        self._fd = fd
        self._cond = threading.Condition()
        self._written = 0
        self._read = 0
        self._closed = False
        self.peak_backlog = 0

    @property
    def backlog(self) -> int:
        """Bytes written but not yet read."""
        return self._written - self._read

    def put(self, data: bytes) -> None:
        view = memoryview(data)
        with self._cond:  # the consumer holds the lock only to move offsets, never during its read
            offset = self._written
            while view:
                n = os.pwrite(self._fd, view, offset)
                view = view[n:]
                offset += n
            self._written = offset
            self.peak_backlog = max(self.peak_backlog, self._written - self._read)
            self._cond.notify()

    def close(self) -> None:
        """No more data: ``get`` returns b"" once the backlog is read."""
        with self._cond:
            self._closed = True
            self._cond.notify()

    def get(self, size: int = 1 << 20) -> bytes:
        """Up to ``size`` bytes in order; blocks while empty; b"" after close and drain."""
        with self._cond:
            self._cond.wait_for(lambda: self._written > self._read or self._closed)
            if self._written == self._read:
                return b""
            start, end = self._read, min(self._written, self._read + size)
        data = os.pread(self._fd, end - start, start)  # the producer only appends past ``end``
        with self._cond:
            self._read = start + len(data)
            if self._read == self._written:  # caught up: give the disk space back
                os.ftruncate(self._fd, 0)
                self._read = self._written = 0
        return data

    def dispose(self) -> None:
        os.close(self._fd)
