"""Reading a recording as exchanges, lazily (the fake agent's file I/O).

:class:`FileSource` indexes an rpcspy recording by file offset as it goes: it knows
the client frames up to the one being played, reads an exchange's agent frames
from disk when it is played (``os.pread``, so several readers never share a file
position), and scans ahead only when matching needs more. Memory stays flat
whatever the size. :class:`MemorySource` holds a small recording, or a shared
transcript converted by :func:`rpcspy.recording.open_recording`, in memory.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Iterator
from typing import Union

import msgspec

from rpcspy.framing import split_cr
from rpcspy.recording.format import ENTRY_TYPES, EofEntry, ExitEntry, FrameEntry, NoteEntry, SpawnFailedEntry
from rpcspy.replay.model import PlayItem, RecordedCommand, classify

CHUNK = 1 << 20
_entry_decoder = msgspec.json.Decoder(Union[ENTRY_TYPES])  # type: ignore[valid-type]
_HEAD = re.compile(rb'\{"seq":(\d+),"t":([-0-9.eE+]+),"kind":"frame","dir":"(c2a|a2c|err)","json":')
_TRANSCRIPT_EXIT = re.compile(r"^exit code: (-?\d+)")


class _Client:
    """A client frame line met while reading: the boundary of an exchange."""

    __slots__ = ("seq", "t", "data")

    def __init__(self, seq: int, t: float, data: bytes) -> None:
        self.seq, self.t, self.data = seq, t, data


_CLIENT_EOF = object()


def entry_item(entry: msgspec.Struct, *, transcript: bool = False) -> PlayItem | _Client | object | None:
    """What one recording entry means for replay: an agent item, a client boundary, or nothing."""
    if isinstance(entry, FrameEntry):
        if entry.dir == "c2a":
            return _Client(entry.seq, entry.t, entry.data())
        return PlayItem(entry.t, entry.dir, entry.data(), entry.nl, entry.cr)
    if isinstance(entry, EofEntry):
        return _CLIENT_EOF if entry.dir == "c2a" else PlayItem(entry.t, "eof")
    if isinstance(entry, ExitEntry):
        return PlayItem(entry.t, "exit", code=entry.code)
    if isinstance(entry, SpawnFailedEntry):
        return PlayItem(entry.t, "exit", code=entry.code)
    if transcript and isinstance(entry, NoteEntry):
        if entry.text.startswith("closing stdin (EOF)"):
            return _CLIENT_EOF
        m = _TRANSCRIPT_EXIT.match(entry.text)
        if m:
            return PlayItem(entry.t, "exit", code=int(m.group(1)))
    return None


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
        current = self._prelude
        after_eof = False
        for entry in entries:
            item = entry_item(entry, transcript=transcript)
            if item is None:
                continue
            if isinstance(item, _Client):
                if after_eof:
                    continue
                cmd = _command(len(self._all), item)
                cmd.frames = current = []
                self._all.append(cmd)
            elif item is _CLIENT_EOF:
                after_eof = True
                current = self._epilogue
            else:
                assert isinstance(item, PlayItem)
                if item.dir == "exit":
                    self.exit_code = item.code
                current.append(item)
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
    pieces: list[bytes] = []
    line_start = start
    while end is None or pos < end:
        n = CHUNK if end is None else min(CHUNK, end - pos)
        chunk = os.pread(fd, n, pos)
        if not chunk:
            break
        i = 0
        find = chunk.find
        while True:
            nl = find(b"\n", i)
            if nl < 0:
                break
            if pieces:
                pieces.append(chunk[i:nl])
                line = b"".join(pieces)
                pieces.clear()
            else:
                line = chunk[i:nl]
            nxt = pos + nl + 1
            yield line_start, nxt, line
            line_start = nxt
            i = nl + 1
        if i < len(chunk):
            pieces.append(chunk[i:] if i else chunk)
        pos += len(chunk)
    if pieces:
        yield line_start, pos, b"".join(pieces)


def parse_line(line: bytes) -> PlayItem | _Client | object | None:
    """One line of an rpcspy recording; fast path for frame entries written by rpcspy."""
    m = _HEAD.match(line)
    if m is not None and line.endswith(b"}"):
        body = line[m.end():-1]
        injected = body.endswith(b',"injected":true')
        if injected:
            body = body[:-16]
        nl = not body.endswith(b',"nl":false')
        if not nl:
            body = body[:-11]
        cr = body.endswith(b',"cr":true')
        if cr:
            body = body[:-10]
        direction = m.group(3).decode()
        if direction == "c2a":
            return _Client(int(m.group(1)), float(m.group(2)), body)
        return PlayItem(float(m.group(2)), direction, body, nl, cr)  # type: ignore[arg-type]
    if not line.strip():
        return None
    try:
        entry = _entry_decoder.decode(line)
    except msgspec.DecodeError:
        return None  # an unknown entry kind, or a truncated last line
    return entry_item(entry)


class FileSource:
    """An rpcspy recording on disk, indexed by offset as replay proceeds."""

    def __init__(self, path: str) -> None:
        self.path = path
        self._fd = os.open(path, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
        first = next(_lines(self._fd, 0, None), None)
        self._header_end = first[1] if first else 0
        self._prelude_end: int | None = None
        self._epilogue_start: int | None = None
        self._frontier = self._header_end
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
        if isinstance(what, _Client):
            self.commands.append(_command(len(self.commands), what, start=after))
            self._frontier = after
        else:
            self._frontier = after
            self.complete = True
            if what is _CLIENT_EOF:
                self._epilogue_start = after

    def _segment(self, start: int, end: int | None) -> Iterator[PlayItem]:
        for off, nxt, line in _lines(self._fd, start, end):
            item = parse_line(line)
            if item is None:
                continue
            if isinstance(item, _Client) or item is _CLIENT_EOF:
                self._register(start, off, nxt, item)
                return
            assert isinstance(item, PlayItem)
            if item.dir == "exit":
                self.exit_code = item.code
            yield item
        if end is None:
            self._register(start, os.fstat(self._fd).st_size, os.fstat(self._fd).st_size, None)

    def index_next(self) -> RecordedCommand | None:
        """Read ahead to the next client frame; None when the recording has no more."""
        if self.complete:
            return None
        known = len(self.commands)
        for _ in self._segment(self._frontier, None):
            pass
        return self.commands[known] if len(self.commands) > known else None

    # -- playing ---------------------------------------------------------------------------
    def prelude(self) -> Iterator[PlayItem]:
        return self._segment(self._header_end, self._prelude_end)

    def exchange(self, cmd: RecordedCommand) -> Iterator[PlayItem]:
        return self._segment(cmd.start, None if cmd.end < 0 else cmd.end)

    def epilogue(self) -> Iterator[PlayItem]:
        while not self.complete:
            self.index_next()
        if self._epilogue_start is None:
            return iter(())
        return self._after_eof(self._epilogue_start)

    def _after_eof(self, start: int) -> Iterator[PlayItem]:
        for _off, _nxt, line in _lines(self._fd, start, None):
            item = parse_line(line)
            if isinstance(item, PlayItem):
                if item.dir == "exit":
                    self.exit_code = item.code
                yield item


def open_source(path: str) -> FileSource | MemorySource:
    """A source for any readable recording: offsets for rpcspy files, memory for transcripts."""
    from rpcspy.recording.reader import open_recording

    rec = open_recording(path)
    if rec.kind == "rpcspy":
        return FileSource(path)
    return MemorySource(rec.entries(), path=path, transcript=True)
