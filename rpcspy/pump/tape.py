"""The tape: where the agent's bulk output waits for the observers, written once, inside the kernel.

An unlinked temporary file that the proxy and its observer process share (it is
opened before the fork). The proxy's agent relay ``splice``\\ s what the agent wrote
straight from its pipe onto the end of the tape, tells the observers "the next N
bytes are on the tape" through the message pipe, then ``sendfile``\\ s the same
bytes from the tape to the client. Python never copies them, and nothing the
observers do can make the relay wait: they read the tape later, at their own pace,
and punch out what they have read so it holds only their backlog (in page cache or
on disk, never in either process's memory).

The proxy appends (one writer: the agent relay); the observer process reads and
releases. Offsets only grow: released ranges become holes in a sparse file.
"""

from __future__ import annotations

import ctypes
import errno
import fcntl
import os
import select
import struct
import tempfile
import termios

_FALLOC_FL_KEEP_SIZE, _FALLOC_FL_PUNCH_HOLE = 0x01, 0x02
RELEASE_STEP = 8 << 20
"""The reader gives read bytes back to the system in steps of this size."""

AVAILABLE = hasattr(os, "splice") and hasattr(os, "sendfile")

try:
    _fallocate = ctypes.CDLL(None, use_errno=True).fallocate
    _fallocate.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_longlong, ctypes.c_longlong]
    _fallocate.restype = ctypes.c_int
except (OSError, AttributeError):
    _fallocate = None


def pipe_holds(fd: int) -> int:
    """How many bytes pipe ``fd`` holds now (FIONREAD); 0 at EOF or when unknown."""
    try:
        return struct.unpack("i", fcntl.ioctl(fd, termios.FIONREAD, b"\0\0\0\0"))[0]
    except OSError:
        return 0


class SendRefused(OSError):
    """The kernel will not ``sendfile`` into this destination; ``left`` bytes are still to send."""

    def __init__(self, left: int) -> None:
        super().__init__(errno.EINVAL, "sendfile refused")
        self.left = left


class Tape:
    """An append-only byte tape on an unlinked temporary file."""

    def __init__(self, directory: str | None = None) -> None:
        fd, path = tempfile.mkstemp(prefix="rpcspy-tape-", dir=directory)
        os.unlink(path)
        self.fd = fd
        self.written = 0
        """Writer side: bytes appended so far (the next append goes here)."""
        self.released = 0
        """Reader side: bytes given back (punched out) so far."""
        self._can_release = _fallocate is not None

    # --- the proxy's side -------------------------------------------------------------
    def append_from(self, pipe: int, size: int) -> int:
        """Move up to ``size`` bytes waiting in ``pipe`` onto the tape; 0 at EOF.

        Blocks until the pipe has data. Nothing is consumed from the pipe unless it
        lands on the tape; an error (disk full, a file system that refuses splice)
        propagates with the pipe untouched.
        """
        n = os.splice(pipe, self.fd, size, offset_dst=self.written)
        self.written += n
        return n

    def send(self, dst: int, offset: int, count: int) -> None:
        """Write ``count`` bytes of the tape from ``offset`` to ``dst`` (waiting while it is full).

        Raises :class:`SendRefused` (with what is left) when ``dst`` does not take
        ``sendfile``; other OS errors (the reader went away) propagate.
        """
        end = offset + count
        while offset < end:
            try:
                n = os.sendfile(dst, self.fd, offset, end - offset)
            except BlockingIOError:
                select.select([], [dst], [])
                continue
            except OSError as exc:
                if exc.errno in (errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP):
                    raise SendRefused(end - offset) from exc
                raise
            if n == 0:
                raise OSError(errno.EIO, "the tape ended before the bytes sent")
            offset += n

    # --- both sides -------------------------------------------------------------------
    def read(self, offset: int, count: int) -> bytes:
        """``count`` bytes from ``offset`` (they must have been appended)."""
        data = os.pread(self.fd, count, offset)
        while len(data) < count:
            more = os.pread(self.fd, count - len(data), offset + len(data))
            if not more:
                raise EOFError(f"the tape holds {offset + len(data)} bytes, {offset + count} expected")
            data += more
        return data

    def size(self) -> int:
        """How far the writer has got, seen from either process."""
        return os.fstat(self.fd).st_size

    # --- the observers' side ----------------------------------------------------------
    def release(self, upto: int) -> None:
        """Everything before ``upto`` is read: give it back, in steps of RELEASE_STEP."""
        if not self._can_release or upto - self.released < RELEASE_STEP:
            return
        assert _fallocate is not None
        if _fallocate(self.fd, _FALLOC_FL_PUNCH_HOLE | _FALLOC_FL_KEEP_SIZE, self.released,
                      upto - self.released) != 0:
            self._can_release = False  # this file system keeps the bytes until the tape is closed
            return
        self.released = upto

    def close(self) -> None:
        try:
            os.close(self.fd)
        except OSError:
            pass
