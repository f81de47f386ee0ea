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

A byte may be released only once both readers are past it: the client (the
relay's ``sendfile`` position, :attr:`Tape.forwarded`) and the observers
(:attr:`Tape.consumed`). Both positions live in a page of memory shared across
the fork, so each process sees the other's progress without a message; so does
:attr:`Tape.dispatched`, the messages the observer process has dispatched, which
shows the proxy's relays that its observers are working between two reads.
"""

from __future__ import annotations

import array
import ctypes
import errno
import fcntl
import mmap
import os
import select
import struct
import tempfile
import termios
from typing import Any

_FALLOC_FL_KEEP_SIZE, _FALLOC_FL_PUNCH_HOLE = 0x01, 0x02
RELEASE_STEP = 8 << 20
"""The reader gives read bytes back to the system in steps of this size."""
BACKLOG_BOUND = 256 << 20
"""The most the tape ever holds for the observers (:attr:`Tape.bound` is at most this)."""
BOUND_FLOOR = 16 << 20
"""The least :attr:`Tape.bound` becomes, however slow the observers are measured."""
BOUND_START = 32 << 20
""":attr:`Tape.bound` until the observers' rate is measured (a burst's first samples raise it)."""

AVAILABLE = hasattr(os, "splice") and hasattr(os, "sendfile")

_fallocate: Any
try:
    _fallocate = ctypes.CDLL(None, use_errno=True).fallocate
    _fallocate.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_longlong, ctypes.c_longlong]
    _fallocate.restype = ctypes.c_int
except (OSError, AttributeError):
    _fallocate = None


def punch(fd: int, start: int, length: int) -> bool:
    """Give the bytes ``[start, start+length)`` of file ``fd`` back to the system (a hole); False if refused."""
    if _fallocate is None:
        return False
    return _fallocate(fd, _FALLOC_FL_PUNCH_HOLE | _FALLOC_FL_KEEP_SIZE, start, length) == 0


def load_u64(cell: ctypes.c_uint64) -> int:
    """An aligned 8-byte load from memory another process writes; read until two agree (never torn)."""
    while (a := cell.value) != cell.value:
        pass
    return a


def pipe_holds(fd: int, into: array.array[int] | None = None) -> int:
    """How many bytes pipe ``fd`` holds now (FIONREAD); 0 at EOF or when unknown.

    ``into``: an ``array("i", [0])`` of the caller's, filled in place (no object per call)."""
    try:
        if into is not None:
            fcntl.ioctl(fd, termios.FIONREAD, into)
            return into[0]
        return struct.unpack("i", fcntl.ioctl(fd, termios.FIONREAD, b"\0\0\0\0"))[0]
    except OSError:
        return 0


CLIENT_GONE = (1 << 63) - 1
"""The client's position once it has gone away: it holds nothing back any more."""


def release_point(forwarded: int, consumed: int, released: int, step: int = RELEASE_STEP) -> int | None:
    """Where to release the tape up to, or None for not yet.

    Nothing before the slower of the two readers (client, observers) may go, and
    it goes in whole steps of at least ``step`` bytes so punching stays rare.
    """
    upto = min(forwarded, consumed)
    return upto if upto - released >= step else None


class SendRefused(OSError):
    """The kernel will not ``sendfile`` into this destination; ``left`` bytes are still to send."""

    def __init__(self, left: int) -> None:
        super().__init__(errno.EINVAL, "sendfile refused")
        self.left = left


def count_dispatched(tape: Tape | None) -> None:
    """The observer process takes on one more message (it alone counts them; no tape: nobody looks)."""
    if tape is not None:
        tape._dispatched.value += 1


class Tape:
    """An append-only byte tape on an unlinked temporary file."""

    def __init__(self, directory: str | None = None) -> None:
        fd, path = tempfile.mkstemp(prefix="rpcspy-tape-", dir=directory)
        os.unlink(path)
        self.fd = fd
        self.written = 0
        """Writer side: bytes appended so far (the next append goes here)."""
        self.ends_line = False
        """Writer side: the last byte appended is LF. Kept at append time: once both readers are past
        it, it may be released, and the tape reads zeros there."""
        self.released = 0
        """Reader side: bytes given back (punched out) so far."""
        self._can_release = _fallocate is not None
        self._marks = mmap.mmap(-1, 32)  # MAP_SHARED | MAP_ANONYMOUS: inherited across fork, shared
        self._forwarded = ctypes.c_uint64.from_buffer(self._marks, 0)
        self._consumed = ctypes.c_uint64.from_buffer(self._marks, 8)
        self._dispatched = ctypes.c_uint64.from_buffer(self._marks, 16)
        self._bound = ctypes.c_uint64.from_buffer(self._marks, 24)
        self._bound.value = min(BOUND_START, BACKLOG_BOUND)

    # --- positions shared by the two processes -----------------------------------------
    @property
    def forwarded(self) -> int:
        """How far the client has been sent the tape (CLIENT_GONE once it went away)."""
        return load_u64(self._forwarded)

    @forwarded.setter
    def forwarded(self, offset: int) -> None:
        self._forwarded.value = offset

    @property
    def bound(self) -> int:
        """How far the observers may fall behind the writer: about WORK_HORIZON seconds of their measured
        work (:class:`rpcspy.backpressure.WorkBound`, which the observers run and set here)."""
        return load_u64(self._bound)

    @bound.setter
    def bound(self, size: int) -> None:
        self._bound.value = size

    @property
    def over_bound(self) -> bool:
        """The observers are :attr:`bound` behind the writer: the tape takes no more for now."""
        return self.written - self.consumed >= self.bound

    @property
    def consumed(self) -> int:
        """How far the observers have read the tape."""
        return load_u64(self._consumed)

    @consumed.setter
    def consumed(self, offset: int) -> None:
        self._consumed.value = offset

    @property
    def dispatched(self) -> int:
        """How many messages the observer process has dispatched (it alone counts them)."""
        return load_u64(self._dispatched)

    @property
    def progress(self) -> int:
        """The observers' position for :class:`rpcspy.backpressure.Backpressure`: it moves when they
        read the tape and when they dispatch a message (a starved observer process still does that)."""
        return self.consumed + self.dispatched

    # --- the proxy's side -------------------------------------------------------------
    def append_from(self, pipe: int, size: int) -> int:
        """Move up to ``size`` bytes waiting in ``pipe`` onto the tape; 0 at EOF.

        Blocks until the pipe has data. Nothing is consumed from the pipe unless it
        lands on the tape; an error (disk full, a file system that refuses splice)
        propagates with the pipe untouched. Notes :attr:`ends_line` while the bytes
        are still there (nobody has been told of them yet).
        """
        n = os.splice(pipe, self.fd, size, offset_dst=self.written)
        if n:
            self.ends_line = os.pread(self.fd, 1, self.written + n - 1) == b"\n"
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
        """The observers have read everything before ``upto``: give back what the client has too."""
        self.consumed = upto
        point = release_point(self.forwarded, upto, self.released)
        if point is None or not self._can_release:
            return
        if not punch(self.fd, self.released, point - self.released):
            self._can_release = False  # this file system keeps the bytes until the tape is closed
            return
        self.released = point

    def close(self) -> None:
        try:
            os.close(self.fd)
        except OSError:
            pass
