"""Standard descriptors that were closed when rpcspy started.

A closed stdin, stdout or stderr leaves its number free, and the next pipe or
file rpcspy opens would take it: the client relay would then read rpcspy's own
pipe (a hang), or the observers' pipe would become "stdout". So before opening
anything, each closed one is filled with ``/dev/null``, and the session is told
which were closed: a closed stdin is an immediate end of input, a closed stdout a
client that is already gone.
"""

from __future__ import annotations

import errno
import fcntl
import os

STD_NAMES = {0: "stdin", 1: "stdout", 2: "stderr"}


def is_closed(fd: int) -> bool:
    try:
        fcntl.fcntl(fd, fcntl.F_GETFD)
    except OSError as exc:
        return exc.errno == errno.EBADF
    return False


_filled: set[int] = set()
"""Descriptors this process found closed and filled, so a later call still reports them."""


def fill_closed_std_fds(fds: tuple[int, ...] = (0, 1, 2)) -> set[int]:
    """Put ``/dev/null`` on every standard descriptor that is closed; return which of ``fds``
    were closed at start (now or at an earlier call: the CLI calls this before opening anything)."""
    for fd in fds:  # in order: opening /dev/null takes the lowest free number, which is this one
        if is_closed(fd):
            null = os.open(os.devnull, os.O_RDONLY if fd == 0 else os.O_WRONLY)
            if null != fd:
                os.dup2(null, fd)
                os.close(null)
            _filled.add(fd)
    return {fd for fd in fds if fd in _filled}
