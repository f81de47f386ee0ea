"""Claiming a recording path before anything is recorded: stdlib only, so the proxy can do it
before it starts the agent without importing the rest (rpcspy.recording.writer writes).

The rules, the same for every command that records (run, repl, drive, replay, replay --client):

* a recording is a regular file: a symlink as the last component is never followed, and a FIFO,
  a device or a socket already at the path is refused (someone else's FIFO would receive the
  whole session; ``--no-record`` records nothing);
* an existing file is kept unless ``--overwrite``; then it is *replaced* (a new owner-only file
  renamed over it), never truncated in place, so another name hard-linked to it keeps its content
  and a file another user planted does not keep its owner and mode;
* a file another rpcspy is recording to (its ``flock``) is refused;
* the directory is created owner-only when missing; one reached through a symlink that another
  user owns (``./recordings`` planted by someone else) is refused; a directory another user owns
  costs a warning (they may delete or rename the recording, not read it).
"""

from __future__ import annotations

import errno
import fcntl
import os
import stat
from collections.abc import Callable


class RecordingRefused(Exception):
    """The recording path must not be written: a symlink, an existing file, or another rpcspy's recording."""


_OPEN_FLAGS = os.O_WRONLY | os.O_NOFOLLOW | os.O_NOCTTY | os.O_CLOEXEC
_KINDS = ((stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a device"), (stat.S_ISBLK, "a device"),
          (stat.S_ISSOCK, "a socket"), (stat.S_ISDIR, "a directory"))


def open_recording_file(path: str, *, overwrite: bool = False,
                        warn: Callable[[str], None] | None = None) -> int:
    """Open ``path`` to record into; return the descriptor, holding an exclusive lock on the file.

    A new file is created owner-only; an existing regular file is replaced (see the module's
    rules) only with ``overwrite``. ``warn`` hears of a directory another user owns.
    Raises :class:`RecordingRefused` with the reason, or OSError (a read-only directory, ...).
    """
    _check_directory(os.path.dirname(path), warn)
    try:
        fd = os.open(path, _OPEN_FLAGS | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        fd = _replace_existing(path, overwrite)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:  # another rpcspy replaced it a moment ago and holds it
            raise RecordingRefused(f"{path} is being recorded by another rpcspy: choose another file") from None
        return fd
    except BaseException:
        os.close(fd)
        raise


def file_id(fd: int) -> tuple[int, int] | None:
    """The (device, inode) of an open file, to recognise it at its path later; None if unknown."""
    try:
        st = os.fstat(fd)
    except OSError:
        return None
    return st.st_dev, st.st_ino


def discard_recording(path: str, ident: tuple[int, int] | None) -> bool:
    """Remove ``path`` if it is still the file ``ident`` (:func:`file_id`): a recording of nothing (the
    agent did not start); True if removed."""
    try:
        there = os.lstat(path)
        if ident is None or (there.st_dev, there.st_ino) != ident:
            return False
        os.unlink(path)
    except OSError:
        return False
    return True


def _kind(mode: int) -> str | None:
    """What a non-regular file is ("a FIFO", ...); None for a regular file."""
    if stat.S_ISREG(mode):
        return None
    return next((name for test, name in _KINDS if test(mode)), "not a regular file")


def _replace_existing(path: str, overwrite: bool) -> int:
    """``path`` exists: refuse it, or (``overwrite``) put a new locked file in its place."""
    try:  # O_NONBLOCK: opening a FIFO nobody reads must not hang (it fails with ENXIO)
        old = os.open(path, _OPEN_FLAGS | os.O_NONBLOCK)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise RecordingRefused(f"{path} is a symbolic link: rpcspy does not record through one "
                                   "(give the path it points to)") from None
        if exc.errno in (errno.ENXIO, errno.EISDIR, errno.ENODEV, errno.EOPNOTSUPP):
            kind = _kind(os.lstat(path).st_mode)
            raise RecordingRefused(f"{path} is {kind}: a recording is a regular file "
                                   "(--no-record records nothing)") from None
        raise
    try:
        kind = _kind(os.fstat(old).st_mode)
        if kind is not None:
            raise RecordingRefused(f"{path} is {kind}: a recording is a regular file (--no-record records nothing)")
        if not overwrite:
            raise RecordingRefused(f"{path} exists: rpcspy does not overwrite it without --overwrite")
        try:
            fcntl.flock(old, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise RecordingRefused(f"{path} is being recorded by another rpcspy: choose another file") from None
        return _new_in_place_of(path)
    finally:
        os.close(old)  # its lock goes with it, once the new file holds the name


def _new_in_place_of(path: str) -> int:
    """A new owner-only file renamed over ``path`` (the old one is unlinked, not truncated)."""
    head, tail = os.path.split(path)
    tmp = os.path.join(head, f".{tail}.{os.getpid()}.rpcspy-new")
    try:
        fd = os.open(tmp, _OPEN_FLAGS | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:  # left by a crashed run of the same pid (never followed: O_NOFOLLOW, O_EXCL)
        os.unlink(tmp)
        fd = os.open(tmp, _OPEN_FLAGS | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)  # locked before it takes the name
        os.rename(tmp, path)
    except BaseException:
        os.close(fd)
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    return fd


def _check_directory(parent: str, warn: Callable[[str], None] | None) -> None:
    """Create a missing recordings directory owner-only; refuse one reached through another user's symlink."""
    where = parent or "."
    if parent and not os.path.lexists(parent):
        os.makedirs(parent, mode=0o700, exist_ok=True)
    me = os.geteuid()
    try:
        link = os.lstat(where)
    except OSError:
        return  # left to the open, which says why
    if stat.S_ISLNK(link.st_mode) and link.st_uid not in (me, 0):
        raise RecordingRefused(f"{where} is a symbolic link owned by another user (uid {link.st_uid}): rpcspy "
                               "does not record through it (remove it, or give a directory of yours)")
    try:
        real = os.stat(where)
    except OSError:
        return
    if real.st_uid not in (me, 0) and warn is not None:
        warn(f"{where} belongs to another user (uid {real.st_uid}): they can delete or rename the recording "
             "(not read it)")
