"""A disk-backed FIFO so a slow observer never slows forwarding, in constant memory.

In the observer process a reader thread drains the proxy's pipe into an unlinked
temporary file as fast as the proxy writes; the dispatcher reads it back at its own
pace. When the reader catches up the file is truncated, so it only ever holds the
backlog. Memory stays flat; a backlog costs disk (page cache) instead.
"""

from __future__ import annotations

import os
import select
import tempfile
import threading

_SPLICE_FLAGS = getattr(os, "SPLICE_F_NONBLOCK", 0) | getattr(os, "SPLICE_F_MOVE", 0)


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
        self._splice = hasattr(os, "splice")
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

    def fill_from(self, fd: int, size: int = 1 << 20) -> int:
        """Append what the pipe ``fd`` holds (waiting for some); 0 at EOF.

        Uses splice(2), so the bytes go from the pipe to the file inside the kernel:
        the process never copies them. Falls back to read + write where splice is
        refused.
        """
        select.select([fd], [], [])
        if self._splice:
            with self._cond:
                try:
                    n = os.splice(fd, self._fd, size, offset_dst=self._written, flags=_SPLICE_FLAGS)
                except BlockingIOError:
                    return -1  # woken without data after all: the caller tries again
                except OSError:
                    self._splice = False
                else:
                    self._written += n
                    self.peak_backlog = max(self.peak_backlog, self._written - self._read)
                    self._cond.notify()
                    return n
        data = os.read(fd, size)
        if data:
            self.put(data)
        return len(data)

    def close(self) -> None:
        """No more data: ``get`` returns b"" once the backlog is read."""
        with self._cond:
            self._closed = True
            self._cond.notify()

    def get(self, size: int = 1 << 20, timeout: float | None = None) -> bytes | None:
        """Up to ``size`` bytes in order; b"" after close and drain; None if ``timeout`` passed first."""
        with self._cond:
            if not self._cond.wait_for(lambda: self._written > self._read or self._closed, timeout):
                return None
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
