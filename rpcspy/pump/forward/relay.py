"""Byte relays: read a chunk, hand it to the observers' pipe, forward it whole.

Plain copies only: each chunk is read into memory and written to the peer from there. No
``splice``, ``sendfile``, ``tee`` or shared file mapping on a path whose bytes a client or agent
reads: a pipe filled by those holds references to file pages, which change under the reader
if the file is released (issue 20: NUL bytes reached slow clients).
No parsing or decoding happens here.
A blocked destination blocks the relay, so a slow reader slows the writer
(backpressure) instead of filling memory.
"""

from __future__ import annotations

import os
import select
import threading
import time
from collections.abc import Callable

from rpcspy.events import Direction
from rpcspy.pump.forward.hub import Sink

CHUNK = 1 << 20
"""The most one read takes."""
FIRST_READ = 1 << 16
"""What a read asks for until one fills it. Asking for CHUNK costs an allocation of a MiB (mmap,
page faults, mremap, munmap: about 9 us) for every read, however few bytes came: more than
forwarding a small frame costs. A read that fills its request asks for CHUNK next; one that
brings less than FIRST_READ goes back to FIRST_READ."""


def next_read_size(asked: int, got: int) -> int:
    """How much the read after one that asked for ``asked`` bytes and got ``got`` asks for."""
    if got >= asked:
        return CHUNK
    return FIRST_READ if got < FIRST_READ else asked


def write_all(fd: int, data: bytes | memoryview) -> None:
    """Write every byte, waiting on a non-blocking descriptor instead of failing."""
    try:
        n = os.write(fd, data)
    except BlockingIOError:
        n = 0
    if n == len(data):  # the usual case: one call, no view
        return
    view = memoryview(data)[n:]
    while view:
        try:
            n = os.write(fd, view)
        except BlockingIOError:
            select.select([], [fd], [])
            continue
        view = view[n:]


class Relay(threading.Thread):
    """Copies ``src`` to ``dst`` until EOF on ``src``, publishing each chunk to the hub.

    If ``dst`` breaks (the reader went away), reading goes on so the recording still
    gets everything the source wrote; ``on_dst_closed`` is told once.
    """

    def __init__(
        self,
        direction: Direction,
        src: int,
        dst: int,
        hub: Sink,
        clock: Callable[[], float],
        *,
        close_dst: Callable[[], None] | None = None,
        on_dst_closed: Callable[[Direction, OSError], None] | None = None,
        dst_lock: threading.Lock | None = None,
    ) -> None:
        super().__init__(name=f"rpcspy-relay-{direction}", daemon=True)
        self.direction = direction
        self.src, self.dst = src, dst
        self.hub, self.clock = hub, clock
        self.close_dst = close_dst
        self.on_dst_closed = on_dst_closed
        self.dst_lock = dst_lock
        self.dst_open = True
        self.bytes = 0
        self.read_error: OSError | None = None
        self._ask = FIRST_READ

    def run(self) -> None:
        clock = self.clock
        while True:
            chunk = self._read()
            t = clock()
            if not chunk:
                break
            self.bytes += len(chunk)
            self._pass(chunk, t)
        self._at_eof()

    def _read(self) -> bytes:
        """The next chunk from ``src``; b"" at end of input."""
        while True:
            try:
                return self._read_src()
            except BlockingIOError:
                select.select([self.src], [], [])
            except OSError as exc:  # EIO from a hung-up tty, EBADF after close: both mean end of input
                self.read_error = exc
                return b""

    def _read_src(self) -> bytes:
        """One read of ``src`` (OSError propagates), as much as :func:`next_read_size` says."""
        chunk = os.read(self.src, self._ask)
        self._ask = next_read_size(self._ask, len(chunk))
        return chunk

    def _pass(self, chunk: bytes, t: float) -> None:
        """Hand the chunk to the observers' pipe, then forward it.

        Publishing first keeps cause before effect in the recording: a fast agent's
        answer can never be recorded before the command it answers. Publishing is one
        write of a copy into the observers' pipe (held by the sink when the pipe is full),
        so it waits on observers only at the sink's bound. The peer gets ``chunk`` itself,
        written from memory: never a reference to a file page (issue 20).
        """
        self.hub.publish(self.direction, t, chunk)
        if self.dst_open:
            self._forward(chunk)

    def _at_eof(self) -> None:
        self.hub.publish_eof(self.direction, self.clock())
        if self.close_dst is not None and self.dst_open:
            self.dst_open = False
            try:
                self.close_dst()
            except OSError:
                pass

    def _forward(self, chunk: bytes) -> None:
        try:
            if self.dst_lock is None:
                write_all(self.dst, chunk)
            else:
                with self.dst_lock:
                    write_all(self.dst, chunk)
        except OSError as exc:
            self.dst_open = False
            if self.on_dst_closed is not None:
                self.on_dst_closed(self.direction, exc)


def monotonic_clock() -> Callable[[], float]:
    """Seconds since now, from the monotonic clock (nanosecond resolution on Linux)."""
    t0 = time.monotonic_ns()
    return lambda: (time.monotonic_ns() - t0) / 1e9
