"""Linux zero-copy pipe operations: tee(2) through ctypes, splice(2) from the os module.

With them the proxy forwards the agent's output without copying it into Python:
``tee`` duplicates what the agent's pipe holds into the observers' side pipe, then
``splice`` moves the same bytes to the client. Where either is unavailable or refused
(not Linux, a client stdout that splice does not accept), callers fall back to
read + write.
"""

from __future__ import annotations

import ctypes
import errno
import os
import select

AVAILABLE = hasattr(os, "splice")
_tee = None
if AVAILABLE:
    try:
        _libc = ctypes.CDLL(None, use_errno=True)
        _tee = _libc.tee
        _tee.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_size_t, ctypes.c_uint]
        _tee.restype = ctypes.c_ssize_t
    except (OSError, AttributeError):
        AVAILABLE = False


def tee(fd_in: int, fd_out: int, size: int) -> int:
    """Duplicate up to ``size`` bytes from pipe ``fd_in`` into pipe ``fd_out`` (blocking); 0 at EOF."""
    assert _tee is not None
    while True:
        n = _tee(fd_in, fd_out, size, 0)  # ctypes releases the GIL during the call
        if n >= 0:
            return n
        err = ctypes.get_errno()
        if err == errno.EINTR:
            continue
        raise OSError(err, os.strerror(err))


def splice_exactly(fd_in: int, fd_out: int, count: int) -> None:
    """Move exactly ``count`` bytes from pipe ``fd_in`` to ``fd_out``.

    Raises :class:`SpliceRefused` (carrying how many bytes are still to move) when
    the kernel will not splice into ``fd_out``; other OS errors propagate.
    """
    left = count
    while left:
        try:
            n = os.splice(fd_in, fd_out, left)
        except BlockingIOError:
            select.select([], [fd_out], [])
            continue
        except OSError as exc:
            if exc.errno in (errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP):
                raise SpliceRefused(left) from exc
            raise
        if n == 0:
            raise OSError(errno.EPIPE, "pipe emptied while splicing")
        left -= n


class SpliceRefused(OSError):
    def __init__(self, left: int) -> None:
        super().__init__(errno.EINVAL, "splice refused")
        self.left = left
