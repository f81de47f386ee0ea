"""Reading a recording as exchanges, lazily (the fake agent's file I/O).

:class:`FileSource` indexes an rpcspy recording by file offset as it goes: it knows
the client frames up to the one being played, reads an exchange's agent frames
from disk when it is played (``os.pread``, so several readers never share a file
position), and scans ahead only when matching needs more. Memory stays flat
whatever the size. :class:`MemorySource` holds a small recording, or a shared
transcript converted by :func:`rpcspy.recording.open_recording`, in memory.

omp announces itself with ``ready``, which can reach the recording after the
client's first command (the client did not wait for it). Such a ``ready``, if
it came before the agent's first response, is moved to the end of the prelude:
played at start, and not again in the exchange it fell into.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Iterator
from typing import TypeVar

import msgspec

from rpcspy.events import Eof, Exit, Note, SpawnFailed
from rpcspy.framing import DECODE_ERRORS, read_lines, split_cr
from rpcspy.recording.decode import entry_or_none, fast_frame
from rpcspy.recording.format import FrameEntry
from rpcspy.replay.model import PlayItem, RecordedCommand, classify

CHUNK = 1 << 20
_TRANSCRIPT_EXIT = re.compile(r"^exit code: (-?\d+)")
READY_SCAN = 4 << 20
"""How far past the first client line :class:`FileSource` looks for a late ``ready``."""


class _Typed(msgspec.Struct):
    type: object = None


_typed = msgspec.json.Decoder(_Typed)


def _frame_type(item: PlayItem) -> object:
    """The ``type`` of an agent frame (None for other items and non-objects)."""
    if item.dir != "a2c":
        return None
    try:
        return _typed.decode(item.data).type
    except DECODE_ERRORS:
        return None


K = TypeVar("K")


def _late_ready(items: Iterable[tuple[K, PlayItem]]) -> tuple[K, PlayItem] | None:
    """The first ``ready`` among ``(where, item)`` pairs in order, unless a response came before it."""
    for where, item in items:
        typ = _frame_type(item)
        if typ == "ready":
            return where, item
        if typ == "response":
            return None
    return None


class _Client:
    """A client frame line met while reading: the boundary of an exchange."""

    __slots__ = ("data", "seq", "t")

    def __init__(self, seq: int, t: float, data: bytes) -> None:
        self.seq, self.t, self.data = seq, t, data


class _ClientEof:
    """The client closed its stdin: the boundary before the epilogue."""

    __slots__ = ("t",)

    def __init__(self, t: float) -> None:
        self.t = t


def _boundary(item: object) -> bool:
    return isinstance(item, (_Client, _ClientEof))


def entry_item(entry: msgspec.Struct, *, transcript: bool = False) -> PlayItem | _Client | _ClientEof | None:
    """What one recording entry means for replay: an agent item, a client boundary, or nothing."""
    if isinstance(entry, FrameEntry):
        if entry.dir == "c2a" and entry.injected:
            return None  # typed by rpcspy's REPL, not the client: no live client will send it
        if entry.dir == "c2a":
            return _Client(entry.seq, entry.t, entry.data())
        return PlayItem(entry.t, entry.dir, entry.data(), entry.nl, entry.cr)
    if isinstance(entry, Eof):
        return _ClientEof(entry.t) if entry.dir == "c2a" else PlayItem(entry.t, "eof")
    if isinstance(entry, Exit):
        return PlayItem(entry.t, "exit", code=entry.code)
    if isinstance(entry, SpawnFailed):
        return PlayItem(entry.t, "exit", code=entry.code)
    if transcript and isinstance(entry, Note):
        if entry.text.startswith("closing stdin (EOF)"):
            return _ClientEof(entry.t)
        m = _TRANSCRIPT_EXIT.match(entry.text)
        if m:
            return PlayItem(entry.t, "exit", code=int(m.group(1)))
    return None


def _early_prefix(items: list[PlayItem], opened: float | None) -> int:
    """How many leading agent frames were read before the client line opening this segment.

    The proxy stamps each frame when it reads it, but two directions reach the
    recording in whatever order their threads hand them over; a frame stamped
    before the client line belongs to the exchange before it.
    """
    if opened is None:
        return 0
    n = 0
    while n < len(items) and items[n].t < opened:
        n += 1
    return n


def _command(index: int, client: _Client, start: int = -1) -> RecordedCommand:
    data, _cr = split_cr(client.data)
    return RecordedCommand(index=index, seq=client.seq, t=client.t, frame=classify(data), start=start)


class MemorySource:
    """All exchanges in memory: for transcripts, small recordings and tests."""

    def __init__(self, entries: Iterable[msgspec.Struct], *, path: str = "<memory>", transcript: bool = False) -> None:
        self.path = path
        self._prelude: list[PlayItem] = []
        self._epilogue: list[PlayItem] = []
        self._all: list[RecordedCommand] = []
        self.exit_code: int | None = None
        segments: list[list[PlayItem]] = [self._prelude]
        opens: list[float | None] = [None]
        after_eof = False
        for entry in entries:
            item = entry_item(entry, transcript=transcript)
            if item is None or (after_eof and isinstance(item, _Client)):
                continue
            if isinstance(item, _Client):
                cmd = _command(len(self._all), item)
                cmd.frames = []
                self._all.append(cmd)
                segments.append(cmd.frames)
                opens.append(item.t)
            elif isinstance(item, _ClientEof):
                after_eof = True
                segments.append(self._epilogue)
                opens.append(item.t)
            else:
                if item.dir == "exit":
                    self.exit_code = item.code
                segments[-1].append(item)
        for k in range(1, len(segments)):
            n = _early_prefix(segments[k], opens[k])
            if n:
                segments[k - 1].extend(segments[k][:n])
                del segments[k][:n]
        if not any(_frame_type(i) == "ready" for i in self._prelude):
            found = _late_ready(((k, j), item) for k in range(1, len(segments)) for j, item in enumerate(segments[k]))
            if found is not None:
                (k, j), ready = found
                del segments[k][j]
                self._prelude.append(ready)
        self._next = 0
        self.commands: list[RecordedCommand] = []

    @property
    def complete(self) -> bool:
        return self._next >= len(self._all)

    def index_next(self) -> RecordedCommand | None:
        if self.complete:
            return None
        cmd = self._all[self._next]
        self._next += 1
        self.commands.append(cmd)
        return cmd

    def prelude(self) -> Iterator[PlayItem]:
        return iter(self._prelude)

    def exchange(self, cmd: RecordedCommand) -> Iterator[PlayItem]:
        return iter(cmd.frames or ())

    def epilogue(self) -> Iterator[PlayItem]:
        return iter(self._epilogue)

    def close(self) -> None:
        pass


def _lines(fd: int, start: int, end: int | None) -> Iterator[tuple[int, int, bytes]]:
    """``(offset, next_offset, line)`` for each LF-terminated line in ``[start, end)``."""
    pos = start

    def read(size: int) -> bytes:
        nonlocal pos
        if end is not None:
            size = min(size, end - pos)
        chunk = os.pread(fd, size, pos) if size > 0 else b""
        pos += len(chunk)
        return chunk

    line_start = start
    for line, had_lf in read_lines(read, CHUNK):
        nxt = line_start + len(line) + had_lf
        yield line_start, nxt, line
        line_start = nxt


def parse_line(line: bytes) -> PlayItem | _Client | _ClientEof | None:
    """One line of an rpcspy recording (frame lines rpcspy wrote take the decoder's fast path)."""
    entry: msgspec.Struct | None = fast_frame(line)
    if entry is None:
        if not line.strip():
            return None
        entry = entry_or_none(line)  # None: a truncated last line
    return entry_item(entry) if entry is not None else None


class FileSource:
    """An rpcspy recording on disk, indexed by offset as replay proceeds."""

    def __init__(self, path: str) -> None:
        self.path = path
        self._fd = os.open(path, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
        first = next(_lines(self._fd, 0, None), None)
        self._header_end = first[1] if first else 0
        self._prelude_end: int | None = None
        self._epilogue_start: int | None = None
        self._eof_t = 0.0
        self._frontier = self._header_end
        self._moved = -1
        """File offset of a late ``ready`` played with the prelude (skipped where it lies)."""
        self.commands: list[RecordedCommand] = []
        self.complete = False
        self.exit_code: int | None = None

    def close(self) -> None:
        try:
            os.close(self._fd)
        except OSError:
            pass

    # -- indexing --------------------------------------------------------------------------
    def _register(self, start: int, boundary: int, after: int, what: object) -> None:
        if start != self._frontier or self.complete:
            return  # someone else already read past this segment
        if self.commands:
            self.commands[-1].end = boundary
        else:
            self._prelude_end = boundary
        self._frontier = after
        if isinstance(what, _Client):
            self.commands.append(_command(len(self.commands), what, start=after))
        else:
            self.complete = True
            if isinstance(what, _ClientEof):
                self._epilogue_start = after
                self._eof_t = what.t

    def _segment(self, start: int, opened: float | None, *, epilogue: bool = False) -> Iterator[PlayItem]:
        """Agent items from ``start`` to the next client line, in causal order.

        Leading items stamped before ``opened`` (the client line that opens this
        segment) were yielded by the previous segment's look-ahead, so they are
        skipped; past the closing client line, items stamped before it are taken.
        """
        skip_before = opened  # None once an item at or after it was taken
        for off, nxt, line in _lines(self._fd, start, None):
            item = parse_line(line)
            if item is None or off == self._moved:
                continue
            if _boundary(item):
                if epilogue:
                    continue
                self._register(start, off, nxt, item)
                yield from self._lookahead(nxt, item.t)
                return
            assert isinstance(item, PlayItem)
            if skip_before is not None and item.t < skip_before:
                continue
            skip_before = None
            if item.dir == "exit":
                self.exit_code = item.code
            yield item
        if not epilogue:
            size = os.fstat(self._fd).st_size
            self._register(start, size, size, None)

    def _lookahead(self, pos: int, closed: float) -> Iterator[PlayItem]:
        for off, _nxt, line in _lines(self._fd, pos, None):
            item = parse_line(line)
            if item is None or off == self._moved:
                continue
            if _boundary(item) or item.t >= closed:
                return
            assert isinstance(item, PlayItem)
            if item.dir == "exit":
                self.exit_code = item.code
            yield item

    def index_next(self) -> RecordedCommand | None:
        """Read ahead to the next client frame; None when the recording has no more."""
        if self.complete:
            return None
        known = len(self.commands)
        opened = self.commands[-1].t if self.commands else None
        for _item in self._segment(self._frontier, opened):
            pass
        return self.commands[known] if len(self.commands) > known else None

    # -- playing ---------------------------------------------------------------------------
    def prelude(self) -> Iterator[PlayItem]:
        ready = False
        for item in self._segment(self._header_end, None):
            ready = ready or _frame_type(item) == "ready"
            yield item
        if not ready and self.commands:
            yield from self._take_late_ready(self.commands[0])

    def _take_late_ready(self, first: RecordedCommand) -> Iterator[PlayItem]:
        """A ``ready`` after ``first`` (the first client line) but before any response, if any."""
        lines = ((off, parse_line(line)) for off, _nxt, line in _lines(self._fd, first.start, first.start + READY_SCAN))
        found = _late_ready((off, item) for off, item in lines
                            if isinstance(item, PlayItem) and item.t >= first.t)  # earlier ones: in the prelude
        if found is not None:
            self._moved, ready = found
            yield ready

    def exchange(self, cmd: RecordedCommand) -> Iterator[PlayItem]:
        return self._segment(cmd.start, cmd.t)

    def epilogue(self) -> Iterator[PlayItem]:
        """Items after the client's EOF; indexes what is left only when played."""
        while not self.complete:
            self.index_next()
        if self._epilogue_start is not None:
            yield from self._segment(self._epilogue_start, self._eof_t, epilogue=True)


def open_source(path: str) -> FileSource | MemorySource:
    """A source for any readable recording: offsets for rpcspy files, memory for transcripts."""
    from rpcspy.recording.reader import open_recording

    rec = open_recording(path)
    if rec.kind == "rpcspy":
        return FileSource(path)
    return MemorySource(rec.entries(), path=path, transcript=True)
