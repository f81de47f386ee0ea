"""Writing recordings: owner-only files, one entry per line, flushed per batch.

The writer never raises into its caller: the first OS error (read-only
directory, disk full, ``/dev/full``) is reported once through ``warn`` and the
writer goes quiet, so forwarding carries on without a recording.
"""

from __future__ import annotations

import datetime as _dt
import os
from collections.abc import Callable, Sequence

import msgspec

from rpcspy.events import Direction, Eof, Event, Exit, Finding, Frame, Note, SpawnFailed, Start, frames_of
from rpcspy.recording.claim import RecordingRefused, open_recording_file
from rpcspy.recording.format import (
    SMALL_FRAME,
    Header,
    chunk_lines,
    encode_entry,
    encode_frame,
    frame_pieces,
    frames_lines,
)


def make_header(argv: Sequence[str], *, mode: str = "proxy", source: str | None = None,
                started: float | None = None, pid: int | None = None, leg: str | None = None,
                front: str | None = None) -> Header:
    """The header line; ``started`` (Unix time) and ``pid`` default to now and this process; ``leg`` and
    ``front`` for ``rpcspy run --legs``."""
    from rpcspy import __version__

    now = _dt.datetime.fromtimestamp(started, _dt.timezone.utc) if started else _dt.datetime.now(_dt.timezone.utc)
    header = Header(
        rpcspy=__version__,
        argv=list(argv),
        cwd=os.getcwd(),
        started=now.isoformat(timespec="microseconds").replace("+00:00", "Z"),
        started_unix=now.timestamp(),
        pid=pid or os.getpid(),
        mode=mode,
        source=source,
    )
    if leg:
        header.leg = leg
    if front:
        header.front = front
    return header


def event_line(event: Event) -> bytes:
    """One recording line for one event (a frame in its stored form; any other event as it is, its time
    rounded to the microsecond)."""
    if isinstance(event, Frame):
        return encode_frame(event)
    if not isinstance(event, _ENTRIES):
        raise TypeError(f"not an event: {event!r}")
    return encode_entry(msgspec.structs.replace(event, t=round(event.t, 6)))


_ENTRIES = (Finding, Start, Eof, Exit, Note, SpawnFailed)


def lines_entries(direction: Direction, t: float, first: int, lines: list[bytes],
                  injected: bool = False) -> list[bytes]:
    """The recording lines of the frames ``first``, ``first + 1``, ... of one chunk's ``lines`` (as
    :func:`~rpcspy.events.frames_of` makes them), as pieces: byte for byte what :func:`event_line`
    makes of each frame. Small embeddable frames (most of a session) are encoded together by
    :func:`~rpcspy.recording.format.chunk_lines`, with no Python object per frame; a chunk with a line
    that is not (CR LF, not JSON, whitespace, not UTF-8) or a long one takes the frames' path."""
    if not lines:
        return []
    out = chunk_lines(first, t, direction, lines, injected) if max(map(len, lines)) <= SMALL_FRAME else None
    if out is not None:
        return [out]
    return frames_lines(frames_of(first, t, direction, lines, injected))


_IOV_MAX = 512


def _writev_all(fd: int, pieces: list[bytes]) -> None:
    """Write all pieces with as few syscalls as possible and no joining copy."""
    i = 0
    while i < len(pieces):
        batch = pieces[i:i + _IOV_MAX]
        want = sum(map(len, batch))
        n = os.writev(fd, batch)
        if n < want:  # short write: finish this batch the slow way
            rest = memoryview(b"".join(batch))[n:]
            while rest:
                rest = rest[os.write(fd, rest):]
        i += _IOV_MAX


FLUSH_AT = 4 << 20
"""Buffered bytes at which the writer flushes without waiting to be asked."""


class RecordingWriter:
    """Appends lines to a recording file; degrades to a no-op on the first error."""

    def __init__(self, path: str, header: Header, *, warn: Callable[[str], None], fd: int | None = None) -> None:
        """``fd``: the file already opened (and locked) by :func:`open_recording_file`; without it the
        writer opens ``path`` itself, overwriting an existing file (a refusal is warned like an error)."""
        self.path = path
        self._warn = warn
        self._fd: int | None = None
        self._buf: list[bytes] = []
        self._buffered = 0
        self.failed = False
        try:
            self._fd = fd if fd is not None else open_recording_file(path, overwrite=True)
        except (OSError, RecordingRefused) as exc:
            self._fail(exc)
            return
        self.write(encode_entry(header))
        self.flush()

    def write(self, line: bytes) -> None:
        if self._fd is not None:
            self._add([line])

    def write_event(self, event: Event) -> None:
        if self._fd is None:
            return
        if type(event) is Frame:
            pieces = frame_pieces(event)  # the frame's bytes are not copied
            self._buf += pieces
            self._buffered += len(pieces[0]) + len(pieces[1]) + len(pieces[2])
            if self._buffered >= FLUSH_AT:
                self.flush()
        else:
            self._add([event_line(event)])

    def write_events(self, events: list[Event]) -> None:
        """Append the lines of many events, byte for byte what :meth:`write_event` writes for each."""
        if self._fd is None:
            return
        i, n = 0, len(events)
        while i < n:
            j = i
            while j < n and type(events[j]) is Frame:
                j += 1
            if j > i:  # a run of frames: encoded together
                self._add(frames_lines(events[i:j]))  # type: ignore[arg-type]
                i = j
            else:
                self._add([event_line(events[i])])
                i += 1

    def write_lines(self, direction: Direction, t: float, first: int, lines: list[bytes],
                    injected: bool = False) -> None:
        """Append the frames ``first``, ``first + 1``, ... of one chunk's ``lines`` (as
        :func:`~rpcspy.events.frames_of` makes them), byte for byte what :meth:`write_events` writes
        (:func:`lines_entries`)."""
        if self._fd is None or not lines:
            return
        self._add(lines_entries(direction, t, first, lines, injected))

    def _add(self, pieces: list[bytes]) -> None:
        self._buf.extend(pieces)
        self._buffered += sum(map(len, pieces))
        if self._buffered >= FLUSH_AT:  # a big batch: memory stays bounded whatever the caller does
            self.flush()

    def flush(self) -> None:
        """Write what is buffered; called by the pump after each batch of events."""
        if self._fd is None or not self._buf:
            return
        pieces, self._buf, self._buffered = self._buf, [], 0
        try:
            _writev_all(self._fd, pieces)
        except OSError as exc:
            self._fail(exc)

    def close(self) -> None:
        self.flush()
        if self._fd is not None:
            try:
                os.close(self._fd)
            except OSError as exc:
                self._fail(exc)
            self._fd = None

    def _fail(self, exc: OSError | RecordingRefused) -> None:
        if self._fd is not None:
            try:
                os.close(self._fd)
            except OSError:
                pass
        self._fd = None
        self._buf.clear()
        if not self.failed:
            self.failed = True
            reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
            self._warn(f"recording to {self.path} stopped: {reason}; forwarding continues")
