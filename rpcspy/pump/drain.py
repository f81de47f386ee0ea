"""The observers' pipe, emptied into a disk spool by a process that does nothing else.

The proxy waits on observers only at a bound, and only while they progress, if its
message pipe is emptied at once, whatever the observers are doing. A thread cannot promise that (a checker or the
recorder holds the GIL for as long as one big frame takes), so a small drain
process, forked by the observer process before it starts any thread, splices the
pipe onto the end of an unlinked spool file inside the kernel and publishes how
far it got in a page of shared memory. The dispatcher reads the spool at its own
pace and punches out what it has read.

Two bounds: the drain process stops taking from the pipe while the spool holds
:data:`SPOOL_BOUND` unread bytes (the pipe then fills and the proxy's relays wait
while the observers progress, and record a gap once they stall: see
:mod:`rpcspy.backpressure`), and if the spool's disk fails (full, quota) it stops for
good: the dispatcher reads what the spool holds, then the pipe directly, and says so
once. A drain process whose observer process died leaves (at its next wake-up, or
while it waits at the bound), so the pipe closes and the proxy stops recording
instead of waiting for a reader that will never come.
"""

from __future__ import annotations

import ctypes
import mmap
import os
import select
import tempfile
import time

from rpcspy.pump.tape import RELEASE_STEP, load_u64, punch

SPOOL_BOUND = 256 << 20
"""The most the spool holds for the observers before the drain process stops taking."""
RUNNING, ENDED, FAILED, DIRECT = 0, 1, 2, 3
"""The drain process's state; DIRECT: no splice(2) here, the reader takes from the pipe itself."""
_PAUSE = 0.01
"""While the spool is at its bound, the drain process looks again this often."""


class PipeSpool:
    """Single producer (the drain process), single consumer (:meth:`get`), ordered bytes."""

    def __init__(self, pipe: int, directory: str | None = None) -> None:
        self.pipe = pipe
        self._marks = mmap.mmap(-1, 32)  # shared with the drain process after fork
        self._written = ctypes.c_uint64.from_buffer(self._marks, 0)
        self._read = ctypes.c_uint64.from_buffer(self._marks, 8)
        self._state = ctypes.c_uint64.from_buffer(self._marks, 16)
        self._errno = ctypes.c_uint64.from_buffer(self._marks, 24)
        self.fd = -1
        try:
            self.fd, path = tempfile.mkstemp(prefix="rpcspy-spool-", dir=directory)
            os.unlink(path)
        except OSError as exc:  # no spool at all: the reader takes the pipe itself, and says why
            self._errno.value = exc.errno or 0
            self._state.value = FAILED
        self._wake_r, self._wake_w = os.pipe()
        self._released = 0
        self.pid: int | None = None
        self.peak_backlog = 0

    # --- the drain process --------------------------------------------------------------
    def start(self) -> None:
        """Fork the drain process (call before starting threads).

        It keeps only the pipe, the spool and its wake-up pipe open (standard descriptors
        on /dev/null), so it holds no one else's pipe open and never writes to a terminal.
        """
        if self._state.value == FAILED:
            return
        if not hasattr(os, "splice"):
            self._state.value = DIRECT
            return
        parent = os.getpid()
        pid = os.fork()
        if pid == 0:
            code = 0
            try:
                _keep_only((self.pipe, self.fd, self._wake_w))
                os.set_blocking(self._wake_w, False)
                self._drain(parent)
            except BaseException:  # noqa: BLE001 - never return into the caller's code
                code = 70
            os._exit(code)
        self.pid = pid
        os.close(self._wake_w)

    def _drain(self, parent: int) -> None:
        written = 0
        while True:
            while written - load_u64(self._read) >= SPOOL_BOUND:
                if os.getppid() != parent:  # the observer process died: nobody will read the spool
                    return
                time.sleep(_PAUSE)  # the observers are far behind: let the pipe fill (the proxy waits for them)
            select.select([self.pipe], [], [])
            try:
                n = os.splice(self.pipe, self.fd, 1 << 20, offset_dst=written, flags=os.SPLICE_F_NONBLOCK)
            except BlockingIOError:
                continue
            except OSError as exc:  # disk full, quota, I/O error: what is left stays in the pipe
                self._errno.value = exc.errno or 0
                self._state.value = FAILED
                self._wake()
                return
            if n == 0:
                self._state.value = ENDED
                self._wake()
                return
            written += n
            self._written.value = written
            self._wake()

    def _wake(self) -> None:
        try:
            os.write(self._wake_w, b"!")
        except BlockingIOError:
            pass  # a wake-up is already waiting

    # --- the reader ---------------------------------------------------------------------
    @property
    def failure(self) -> str | None:
        """Why the drain process stopped early (its disk failed), or None."""
        if self._state.value != FAILED:
            return None
        return os.strerror(self._errno.value) if self._errno.value else "unknown error"

    def get(self, size: int = 1 << 20, timeout: float | None = None) -> bytes | None:
        """Up to ``size`` bytes in order; b"" at the end; None if ``timeout`` passed first."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            read, written = self._read.value, load_u64(self._written)
            if read < written:
                return self._take(read, min(size, written - read))
            state = self._state.value
            if state == ENDED:
                if load_u64(self._written) == read:  # written is final once the state says ENDED
                    return b""
                continue
            if state in (FAILED, DIRECT):
                return self._from_pipe(size, deadline)
            left = None if deadline is None else max(0.0, deadline - time.monotonic())
            if not select.select([self._wake_r], [], [], left)[0]:
                return None
            os.read(self._wake_r, 4096)

    def _take(self, read: int, count: int) -> bytes:
        data = os.pread(self.fd, count, read)
        end = read + len(data)
        self.peak_backlog = max(self.peak_backlog, load_u64(self._written) - read)
        self._read.value = end
        if end - self._released >= RELEASE_STEP and punch(self.fd, self._released, end - self._released):
            self._released = end
        return data

    def _from_pipe(self, size: int, deadline: float | None) -> bytes | None:
        """After a disk failure: straight from the pipe (the proxy records gaps if this falls behind)."""
        left = None if deadline is None else max(0.0, deadline - time.monotonic())
        if not select.select([self.pipe], [], [], left)[0]:
            return None
        return os.read(self.pipe, size)

    @property
    def backlog(self) -> int:
        """Bytes the spool holds that the reader has not taken yet."""
        return load_u64(self._written) - self._read.value

    def dispose(self) -> None:
        if self.pid is not None:
            try:
                os.waitpid(self.pid, 0)
            except ChildProcessError:
                pass
        for fd in (self.fd, self._wake_r):
            try:
                os.close(fd)
            except OSError:
                pass


def _keep_only(keep: tuple[int, ...]) -> None:
    """Close every descriptor but ``keep``; put /dev/null on 0, 1 and 2."""
    null = os.open(os.devnull, os.O_RDWR)
    for std in (0, 1, 2):
        if std not in keep:
            os.dup2(null, std)
    low = 3
    for fd in sorted(k for k in keep if k >= 3):
        os.closerange(low, fd)
        low = fd + 1
    os.closerange(low, os.sysconf("SC_OPEN_MAX") if os.sysconf("SC_OPEN_MAX") > 0 else 65536)
