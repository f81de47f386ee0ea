"""Claiming a recording path before anything is recorded: stdlib only, so the proxy can do it
before it starts the agent without importing the rest (rpcspy.recording.writer writes).
"""

from __future__ import annotations

import errno
import fcntl
import os
import stat


class RecordingRefused(Exception):
    """The recording path must not be written: a symlink, an existing file, or another rpcspy's recording."""


_OPEN_FLAGS = os.O_WRONLY | os.O_NOFOLLOW | os.O_NOCTTY | os.O_CLOEXEC


def open_recording_file(path: str, *, overwrite: bool = False) -> int:
    """Open ``path`` to record into; return the descriptor, holding an exclusive lock on the file.

    A new file is created owner-only. A symlink as the last component is never followed. An
    existing regular file is truncated (and made owner-only) only with ``overwrite``, and never
    while another rpcspy holds its lock (two proxies given the same ``-o`` would interleave). A
    FIFO or a device (``/dev/null``) is written as it is: no lock, no truncation, no chmod.
    Raises :class:`RecordingRefused` with the reason, or OSError (a read-only directory, ...).
    """
    parent = os.path.dirname(path)
    if parent:
        os.makedirs(parent, mode=0o700, exist_ok=True)
    try:
        fd = os.open(path, _OPEN_FLAGS | os.O_CREAT | os.O_EXCL, 0o600)
        created = True
    except FileExistsError:
        try:
            fd = os.open(path, _OPEN_FLAGS)
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                raise RecordingRefused(f"{path} is a symbolic link: rpcspy does not record through one "
                                       "(give the path it points to)") from None
            raise
        created = False
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return fd  # a FIFO or a device: written in place
        if not created and not overwrite:
            raise RecordingRefused(f"{path} exists: rpcspy does not overwrite it without --overwrite")
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise RecordingRefused(f"{path} is being recorded by another rpcspy: choose another file") from None
        if not created:
            os.ftruncate(fd, 0)
            os.fchmod(fd, 0o600)  # an existing file keeps its old mode otherwise
        return fd
    except BaseException:
        os.close(fd)
        raise
