"""Streaming reader for recordings (and for the shared raw transcripts).

Reads in fixed-size chunks and splits on LF only, so recordings of any size load
in constant memory. Three inputs are understood, sniffed from the first line:

* rpcspy recordings (``{"format":"rpcspy-recording",...}``);
* structured transcripts (``{"t":..,"dir":"in|out|err|note","raw":..}`` per line);
* raw transcripts (``>> `` client lines, bare agent lines, ``!! `` stderr, ``## `` notes).

The last two are converted to the same entries so every tool reads them alike.
"""

from __future__ import annotations

import operator
import os
import re
import stat
from collections.abc import Callable, Generator, Iterator
from dataclasses import dataclass, field
from typing import Any, BinaryIO, Union

import msgspec

from rpcspy.events import Frame
from rpcspy.framing import DECODE_ERRORS, LineFramer, read_lines
from rpcspy.recording.decode import (
    TYPED_MAX,
    BadEntry,
    TypedBlock,
    decode_entry,
    typed_block_decoder,
    unreadable_reason,
)
from rpcspy.recording.format import (
    ENTRY_TYPES,
    FORMAT_NAME,
    FORMAT_VERSION,
    FrameEntry,
    Header,
)
from rpcspy.recording.migrate import MigrationError, Step, steps_from, upgrade_header, upgrade_line
from rpcspy.recording.transcripts import raw_records, structured_records, transcript_entries

CHUNK = 1 << 20
FIRST_READ = 64 << 10
"""A file's first read; each next one doubles, up to :data:`CHUNK`: a pass that stops early (the header,
the dialect's detection, usually within the first 200 KiB) reads and decodes little more than it needs."""
_LONG_LINE = 2048
"""A block whose lines are this long on average is decoded line by line rather than as one array."""
BLOCK = 16 << 10
"""The lines of a read are decoded in blocks of about this many bytes (up to the end of the line
holding that byte): a block that stays in the CPU's cache decodes faster than the whole 1 MiB read."""

_GLUE = re.compile(rb"\][ \t\r]*,[ \t\r]*\[")
"""What :func:`_wrapped` puts between lines, as JSON reads it: found inside a line, the line might hold two
values glued so that a value over two lines elsewhere in the block evens the count (read line by line)."""
_block_decoder = msgspec.json.Decoder(list[tuple[Union[ENTRY_TYPES]]])  # type: ignore[valid-type]
"""A block of lines as ``[[line],[line],...]``: each line must hold exactly one entry (see :func:`_wrapped`)."""
_first = operator.itemgetter(0)
_header_decoder = msgspec.json.Decoder(Header)
_raw_object = msgspec.json.Decoder(dict[str, msgspec.Raw])


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


def batched(entries: Iterator[Any], size: int = 1024) -> Iterator[list[Any]]:
    """Items a list at a time."""
    batch: list[Any] = []
    for e in entries:
        batch.append(e)
        if len(batch) >= size:
            yield batch
            batch = []
    if batch:
        yield batch


def _short(chunk: bytes, start: int, end: int) -> bool:
    """Whether the lines of ``chunk[start:end]`` are under ``_LONG_LINE`` bytes on average: enough LFs are
    found (memchr), not all of them counted (which cost as much as a call a line on long lines)."""
    for _ in range((end - start) // _LONG_LINE + 1):
        start = chunk.find(b"\n", start, end) + 1
        if not start:
            return False
    return True


def _wrapped(chunk: bytes, start: int, end: int) -> bytes:
    """The whole lines ``chunk[start:end]`` as a JSON array of one-item arrays, one a line: decoded as
    ``list[tuple[T]]`` it is refused unless every line holds exactly one value. A LF inside a value
    becomes ``],[`` inside it (no JSON), two values on a line make a two-item array and a blank line an
    empty one (not a ``tuple[T]``): such a block is read line by line, which says which line is bad."""
    return b"[[" + chunk[start:end - 1].replace(b"\n", b"],[") + b"]]"


def _iter_lines(f: BinaryIO) -> Iterator[tuple[bytes, bool]]:
    return read_lines(f.read, CHUNK)


def _reads(f: BinaryIO) -> Iterator[bytes]:
    """The file's bytes, :data:`FIRST_READ` first, each read twice the last, up to :data:`CHUNK`."""
    size = min(FIRST_READ, CHUNK)
    while chunk := f.read(size):
        yield chunk
        size = min(size * 2, CHUNK)


@dataclass
class Recording:
    """An opened recording: its header now, its entries streamed on demand."""

    path: str
    header: Header
    kind: str
    """"rpcspy", "structured-transcript" or "raw-transcript"."""
    problems: list[Problem] = field(default_factory=list)
    """Lines that could not be read (a truncated last line after a crash, ...)."""
    steps: tuple[Step, ...] = ()
    """An older format's upgrade to the current one (rpcspy.recording.migrate), run on each line as it is read."""

    def entries(self) -> Iterator[msgspec.Struct]:
        """Every entry after the header, in file order, streamed."""
        for block in self.blocks():
            yield from block

    def frames(self) -> Generator[Frame, None, None]:
        """Only the frames, as :class:`Frame` events."""
        for block in self.blocks():
            for e in block:
                if type(e) is FrameEntry:
                    yield e.to_frame()

    def blocks(self, frame_json: Callable[[], Any] | None = None) -> Iterator[list[msgspec.Struct]]:
        """The entries after the header, a list at a time (a block of the file, or up to 1024).

        ``frame_json`` is asked before each block of short lines of an rpcspy recording: when it
        answers a msgspec type, the block is decoded with its frames' JSON read as that type, in the
        same call, and comes as a :class:`TypedBlock` (unless a line does not read so: then as
        usual). It is asked as each block is decoded, which may be before the plain blocks of the
        same read are used: a typed block says the type it was decoded with (``json_type``).
        """
        with open(self.path, "rb") as f:
            if self.kind == "rpcspy":
                yield from self._migrated(f) if self.steps else self._native(f, frame_json)
                return
            lines = _iter_lines(f)
            if self.kind == "structured-transcript":
                yield from batched(transcript_entries(structured_records(lines, self._skip)))
            else:
                yield from batched(transcript_entries(raw_records(lines)))

    def _migrated(self, f: BinaryIO) -> Iterator[list[msgspec.Struct]]:
        """The entries of an older format, each line upgraded (:attr:`steps`) then decoded."""
        lines = _iter_lines(f)
        next(lines, None)  # the header
        batch: list[msgspec.Struct] = []
        for lineno, (line, had_lf) in enumerate(lines, start=2):
            for new in upgrade_line(line, self.steps):
                batch.extend(self._line(new, lineno, had_lf))
            if len(batch) >= 1024:
                yield batch
                batch = []
        if batch:
            yield batch

    def _native(self, f: BinaryIO, frame_json: Callable[[], Any] | None) -> Iterator[list[msgspec.Struct]]:
        """The entries after the header, decoded a block of whole lines at a time (see :meth:`_block`): a
        typed block alone, the others of a read together (fewer, longer lists for the caller)."""
        lineno = 0  # of the last line handled; the header is line 1
        skip_header = True
        pieces: list[bytes] = []  # a line begun in an earlier read
        for chunk in _reads(f):
            start = 0
            if pieces or skip_header:
                nl = chunk.find(b"\n")
                if nl < 0:
                    pieces.append(chunk)
                    continue
                pieces.append(chunk[:nl])
                line = b"".join(pieces)
                pieces.clear()
                lineno += 1
                start = nl + 1
                if skip_header:
                    skip_header = False
                else:
                    yield list(self._line(line, lineno, True))
            cut = chunk.rfind(b"\n") + 1
            plain: list[msgspec.Struct] = []  # the read's blocks up to a typed one, yielded as one
            while start < cut:
                end = chunk.find(b"\n", min(start + BLOCK, cut) - 1) + 1
                block, lines = self._block(chunk, start, end, lineno, frame_json)
                if type(block) is TypedBlock:
                    if plain:
                        yield plain
                        plain = []
                    yield block
                else:
                    plain += block
                lineno += lines
                start = end
            if plain:
                yield plain
            rest = max(cut, start)
            if rest < len(chunk):
                pieces.append(chunk[rest:])
        if pieces and not skip_header:
            yield list(self._line(b"".join(pieces), lineno + 1, False))

    def _block(self, chunk: bytes, start: int, end: int, lineno: int,
               frame_json: Callable[[], Any] | None) -> tuple[list[msgspec.Struct], int]:
        """The entries of the whole lines ``chunk[start:end]`` (after line ``lineno``), and how many lines.

        Short lines (on average: :func:`_short`) are decoded in one call as a JSON array of one-item arrays
        (:func:`_wrapped`), with typed
        frames when ``frame_json`` asks for them (a :class:`TypedBlock`); a block that is then not an
        array of one entry per line (a blank or bad line, a value over two lines or two on one, even
        both at once), or of long lines, is decoded line by line, each sliced from
        the read.
        """
        if _short(chunk, start, end) and _GLUE.search(chunk, start, end) is None:
            lines = chunk.count(b"\n", start, end)
            body = _wrapped(chunk, start, end)
            json_type = frame_json() if frame_json is not None and end - start <= TYPED_MAX else None
            if json_type is not None:
                cls, decoder = typed_block_decoder(json_type)
                try:  # a frame the type refuses (a schema issue) sends the block the usual way
                    typed = decoder.decode(body)
                    if len(typed) == lines:
                        return TypedBlock(list(map(_first, typed)), (chunk, start, end), json_type, cls), lines
                except DECODE_ERRORS:
                    pass
            try:
                entries = _block_decoder.decode(body)
                if len(entries) == lines:
                    return list(map(_first, entries)), lines
            except DECODE_ERRORS:  # then line by line, which says which line is bad
                pass
        out: list[msgspec.Struct] = []
        first = lineno
        while start < end:
            nl = chunk.find(b"\n", start)
            lineno += 1
            out.extend(self._line(chunk[start:nl], lineno, True))
            start = nl + 1
        return out, lineno - first

    def _skip(self, lineno: int, reason: str, had_lf: bool) -> None:
        where = "truncated last line" if not had_lf else "unreadable line"
        self.problems.append(Problem(self.path, lineno, f"{where}: {reason}", truncated=not had_lf))

    def _line(self, line: bytes, lineno: int, had_lf: bool) -> Iterator[msgspec.Struct]:
        """One line's entry; a bad line is told in :attr:`problems` (or kept as an unknown kind)."""
        if not line.strip():
            return
        try:
            yield decode_entry(line)
        except BadEntry as exc:
            self._skip(lineno, str(exc) if exc.kind is None else f"bad {exc.kind or 'entry'}: {exc}", had_lf)


FIRST_LINE_MAX = 64 << 20
"""Line 1 (a header, or a transcript's first record) is looked for no further than this."""


def _first_line(path: str, f: BinaryIO) -> bytes:
    framer = LineFramer()
    seen = 0
    for chunk in _reads(f):
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
    header, kind, steps = _sniff(path, first)
    return Recording(path, header, kind, steps=steps)


def _sniff(path: str, first: bytes) -> tuple[Header, str, tuple[Step, ...]]:
    try:
        obj = msgspec.json.decode(first)
    except DECODE_ERRORS:
        obj = None
    if isinstance(obj, dict) and obj.get("format") == FORMAT_NAME:
        version = obj.get("version")
        if not isinstance(version, int) or version > FORMAT_VERSION:
            raise RecordingError(
                f"{path}: recording format version {version!r} is newer than this rpcspy reads "
                f"(up to {FORMAT_VERSION}); upgrade rpcspy"
            )
        try:
            steps = steps_from(version)
        except MigrationError as exc:
            raise RecordingError(f"{path}: {exc}") from None
        try:
            if steps:
                first = msgspec.json.encode(upgrade_header(_raw_object.decode(first), steps))
            return _header_decoder.decode(first), "rpcspy", steps
        except DECODE_ERRORS as exc:
            raise RecordingError(f"{path}:1: bad recording header: {unreadable_reason(exc)}") from None
    if isinstance(obj, dict) and {"t", "dir", "raw"} <= obj.keys():
        return _transcript_header(path, obj.get("raw", "")), "structured-transcript", ()
    if first.startswith((b">> ", b"## ", b"!! ")) or (isinstance(obj, dict) and "type" in obj):
        return _transcript_header(path, first.decode("utf-8", "replace")), "raw-transcript", ()
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
