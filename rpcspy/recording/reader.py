"""Streaming reader for recordings (and for the shared raw transcripts).

Reads in fixed-size chunks and splits on LF only, so recordings of any size load
in constant memory. Three inputs are understood, sniffed from the first line:

* rpcspy recordings (``{"format":"rpcspy-recording",...}``);
* structured transcripts (``{"t":..,"dir":"in|out|err|note","raw":..}`` per line);
* raw transcripts (``>> `` client lines, bare agent lines, ``!! `` stderr, ``## `` notes).

The last two are converted to the same entries so every tool reads them alike.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import BinaryIO

import msgspec

from rpcspy.events import Frame
from rpcspy.framing import LineFramer, read_lines
from rpcspy.recording.decode import BadEntry, decode_entry, unreadable_reason
from rpcspy.recording.format import (
    FORMAT_NAME,
    FORMAT_VERSION,
    FrameEntry,
    Header,
)
from rpcspy.recording.transcripts import raw_records, structured_records, transcript_entries

CHUNK = 1 << 20
_header_decoder = msgspec.json.Decoder(Header)


class RecordingError(Exception):
    """A file that is not a readable recording; the message says why."""


@dataclass(frozen=True)
class Problem:
    """A line the reader could not read (and skipped); ``str()`` is the message for people."""

    path: str
    line: int
    reason: str
    truncated: bool = False
    """The last line, without LF: the writer stopped mid-line (killed, disk full)."""

    def __str__(self) -> str:  # "FILE:N" is a frame number everywhere; a line of the file is said in words
        return f"{self.path}: line {self.line}: {self.reason}"


def _iter_lines(f: BinaryIO) -> Iterator[tuple[bytes, bool]]:
    return read_lines(f.read, CHUNK)


@dataclass
class Recording:
    """An opened recording: its header now, its entries streamed on demand."""

    path: str
    header: Header
    kind: str
    """"rpcspy", "structured-transcript" or "raw-transcript"."""
    problems: list[Problem] = field(default_factory=list)
    """Lines that could not be read (a truncated last line after a crash, ...)."""

    def entries(self) -> Iterator[msgspec.Struct]:
        """Every entry after the header, in file order, streamed."""
        with open(self.path, "rb") as f:
            lines = _iter_lines(f)
            if self.kind == "rpcspy":
                next(lines, None)
                yield from self._native(lines)
            elif self.kind == "structured-transcript":
                yield from transcript_entries(structured_records(lines, self._skip))
            else:
                yield from transcript_entries(raw_records(lines))

    def frames(self) -> Iterator[Frame]:
        """Only the frames, as :class:`Frame` events."""
        for entry in self.entries():
            if isinstance(entry, FrameEntry):
                yield entry.to_frame()

    def _skip(self, lineno: int, reason: str, had_lf: bool) -> None:
        where = "truncated last line" if not had_lf else "unreadable line"
        self.problems.append(Problem(self.path, lineno, f"{where}: {reason}", truncated=not had_lf))

    def _native(self, lines: Iterator[tuple[bytes, bool]]) -> Iterator[msgspec.Struct]:
        for lineno, (line, had_lf) in enumerate(lines, start=2):
            if not line.strip():
                continue
            try:
                yield decode_entry(line)
            except BadEntry as exc:
                self._skip(lineno, str(exc) if exc.kind is None else f"bad {exc.kind or 'entry'}: {exc}", had_lf)


_UNREADABLE = (ValueError, RecursionError)
"""What decoding a damaged line raises: msgspec.DecodeError and UnicodeDecodeError are ValueErrors;
msgspec gives up with RecursionError near 1000 levels of nesting, even for a skipped value."""

FIRST_LINE_MAX = 64 << 20
"""Line 1 (a header, or a transcript's first record) is looked for no further than this."""


def _first_line(path: str, f: BinaryIO) -> bytes:
    framer = LineFramer()
    seen = 0
    while chunk := f.read(CHUNK):
        for line in framer.feed(chunk):
            return line
        seen += len(chunk)
        if seen > FIRST_LINE_MAX:
            raise RecordingError(f"{path}:1: no line break in the first {FIRST_LINE_MAX >> 20} MiB: not a recording")
    return framer.finish() or b""


def open_recording(path: str | os.PathLike[str]) -> Recording:
    """Open a recording or transcript; raise :class:`RecordingError` with a reason."""
    path = os.fspath(path)
    try:
        with open(path, "rb") as f:
            if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):  # /dev/zero would be read forever
                raise RecordingError(f"{path}: not a regular file (a recording is read more than once: "
                                     "save it to a file first)")
            first = _first_line(path, f)
    except FileNotFoundError:
        raise RecordingError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise RecordingError(f"{path}: is a directory, not a recording") from None
    except OSError as exc:
        raise RecordingError(f"{path}: cannot read: {exc.strerror}") from None
    if not first.strip():
        raise RecordingError(f"{path}: empty file, not a recording")
    return Recording(path, *_sniff(path, first))


def _sniff(path: str, first: bytes) -> tuple[Header, str]:
    try:
        obj = msgspec.json.decode(first)
    except _UNREADABLE:
        obj = None
    if isinstance(obj, dict) and obj.get("format") == FORMAT_NAME:
        version = obj.get("version")
        if not isinstance(version, int) or version > FORMAT_VERSION:
            raise RecordingError(
                f"{path}: recording format version {version!r} is newer than this rpcspy reads "
                f"(up to {FORMAT_VERSION}); upgrade rpcspy"
            )
        try:
            return _header_decoder.decode(first), "rpcspy"
        except _UNREADABLE as exc:
            raise RecordingError(f"{path}:1: bad recording header: {unreadable_reason(exc)}") from None
    if isinstance(obj, dict) and {"t", "dir", "raw"} <= obj.keys():
        return _transcript_header(path, obj.get("raw", "")), "structured-transcript"
    if first.startswith((b">> ", b"## ", b"!! ")) or (isinstance(obj, dict) and "type" in obj):
        return _transcript_header(path, first.decode("utf-8", "replace")), "raw-transcript"
    raise RecordingError(
        f"{path}: not an rpcspy recording (line 1 has no \"format\":\"{FORMAT_NAME}\" header) "
        "and not a pi transcript"
    )


def _transcript_header(path: str, note: str) -> Header:
    argv: list[str] = []
    if isinstance(note, str) and note.startswith(("spawn: ", "## spawn: ")):
        argv = note.split("spawn: ", 1)[1].split("  (", 1)[0].split()
    return Header(rpcspy="transcript", argv=argv, cwd="", started="", started_unix=0.0, pid=0,
                  mode="transcript", source=os.path.basename(path))


def read_frames(path: str | os.PathLike[str]) -> Iterator[Frame]:
    """Shortcut: the frames of a recording, streamed."""
    return open_recording(path).frames()
