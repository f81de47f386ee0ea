"""Writing a whole output file (export, fixture, schema, replay's report) without harming what is there.

A new path or a regular file is replaced atomically: the content goes to a
temporary file beside it, renamed over it at the end, so a reader never sees
half a file and a failure leaves the old one. A symlink is followed (the file it
points to is replaced, the link stays). Anything else already at the path (a
FIFO, ``/dev/null``, ``/dev/full``, a terminal) is written in place: renaming
over it would turn a device or a pipe into a regular file.
"""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Iterator

_TMP_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC


def is_special(path: str) -> bool:
    """Something other than a regular file is at ``path`` (after symlinks): a FIFO, a device, a socket."""
    try:
        return not stat.S_ISREG(os.stat(path).st_mode)
    except OSError:  # nothing there (or a dangling link): a new file will be made
        return False


@contextlib.contextmanager
def output_fd(path: str, *, make_dirs: bool = False) -> Iterator[int]:
    """A descriptor to write ``path``'s whole new content to; committed when the block ends
    without an exception. Raises OSError (with the path) when the output cannot be written."""
    if is_special(path):
        fd = os.open(path, os.O_WRONLY | os.O_NOCTTY | os.O_CLOEXEC)
        try:
            yield fd
        finally:
            os.close(fd)
        return
    target = os.path.realpath(path) if os.path.islink(path) else path
    parent = os.path.dirname(target)
    if make_dirs and parent and not os.path.lexists(parent):  # a file in the way fails below: not a directory
        os.makedirs(parent, exist_ok=True)
    tmp = f"{target}.{os.getpid()}.tmp"
    try:
        fd = os.open(tmp, _TMP_FLAGS, 0o600)
    except FileExistsError:  # left by a crashed run of the same pid (never followed: O_NOFOLLOW, O_EXCL)
        os.unlink(tmp)
        fd = os.open(tmp, _TMP_FLAGS, 0o600)
    try:
        try:
            yield fd
        finally:
            os.close(fd)
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def write_whole(path: str, data: bytes) -> None:
    """``path``'s content becomes ``data`` (see :func:`output_fd`)."""
    with output_fd(path) as fd:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
