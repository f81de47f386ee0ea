"""Recording entries as msgspec Structs, and the fast encoder for frame entries.

A recording is JSONL: line 1 is a :class:`Header`, every further line one entry
tagged by ``kind``: an event of :mod:`rpcspy.events` as it is, or a frame as a
:class:`FrameEntry`. Frames embed the frame's JSON verbatim under ``json`` when the bytes
are valid UTF-8 JSON without surrounding whitespace; otherwise they carry ``text`` (a JSON
string) or ``b64`` (base64 of bytes that are not UTF-8).
"""

from __future__ import annotations

import base64
from itertools import filterfalse

import msgspec

from rpcspy.events import Direction, Eof, Exit, Finding, Frame, Note, Seq, SpawnFailed, Start
from rpcspy.framing import DECODE_ERRORS

FORMAT_NAME = "rpcspy-recording"
FORMAT_VERSION = 1

_WS = frozenset(b" \t\r\n")
_raw_decoder = msgspec.json.Decoder(msgspec.Raw)
_raws_decoder = msgspec.json.Decoder(list[msgspec.Raw])
_encode = msgspec.json.encode


class Header(msgspec.Struct, kw_only=True):
    """Line 1 of every recording."""

    format: str = FORMAT_NAME
    version: int = FORMAT_VERSION
    rpcspy: str
    argv: list[str]
    cwd: str
    started: str
    """Wall-clock start, ISO 8601 UTC with microseconds."""
    started_unix: float
    pid: int
    """The rpcspy process id."""
    mode: str = "proxy"
    """proxy, replay, repl, client or drive: which rpcspy command made the recording."""
    source: str | None = None
    """For replays and fixtures: the recording this one was made from."""
    leg: str | msgspec.UnsetType = msgspec.UNSET
    """``rpcspy run --legs`` (an adapter and its back end on one clock): ``front`` on the adapter's
    recording, ``back`` on each of its back end's. Absent on every other recording."""
    front: str | msgspec.UnsetType = msgspec.UNSET
    """On a ``back`` leg: the front recording's path (absolute)."""


class FrameEntry(msgspec.Struct, tag="frame", tag_field="kind", kw_only=True, omit_defaults=True):
    seq: Seq
    t: float
    dir: Direction
    json: msgspec.Raw = msgspec.Raw()
    text: str | None = None
    b64: str | None = None
    cr: bool = False
    nl: bool = True
    injected: bool = False

    def data(self) -> bytes:
        """The frame's bytes without line terminator."""
        if len(self.json):
            return bytes(self.json)
        if self.text is not None:
            return self.text.encode("utf-8", "surrogatepass")
        if self.b64 is not None:
            return base64.b64decode(self.b64)
        return b""

    def to_frame(self) -> Frame:
        json = self.json
        return Frame(self.seq, self.t, self.dir, bytes(json) if json else self.data(), self.nl, self.cr,
                     self.injected)


class UnknownEntry(msgspec.Struct, kw_only=True):
    """An entry of a kind this version does not know (a newer minor format)."""

    seq: Seq
    t: float
    kind: str
    raw: bytes


Entry = Start | SpawnFailed | FrameEntry | Eof | Exit | Note | Finding
"""A recording's entry after the header: an event (rpcspy.events), a frame in its stored form."""
ENTRY_TYPES: tuple[type[msgspec.Struct], ...] = (Start, SpawnFailed, FrameEntry, Eof, Exit, Note, Finding)


def frame_pieces(frame: Frame, embed: bool | None = None) -> list[bytes]:
    """A frame entry line (with LF) as pieces, the frame's own bytes passed through.

    Hand-built rather than via msgspec so the frame's bytes are not re-encoded:
    valid JSON is embedded verbatim, so the recording holds it exactly and ``jq``
    reads it. Returning pieces lets the writer use ``writev`` without a copy.
    ``embed``: the caller already knows whether the bytes are valid UTF-8 JSON with no
    surrounding whitespace (None: look).
    """
    return _pieces(frame, _embeddable(frame.data) if embed is None else embed)


def _pieces(frame: Frame, embeddable: bool) -> list[bytes]:
    data = frame.data
    head = b'{"kind":"frame","seq":%d,"t":%.6f,"dir":"%s"' % (frame.seq, frame.t, _DIR_BYTES[frame.dir])
    if frame.nl and not frame.cr and not frame.injected:
        tail = b"}\n"
    else:
        tail = b""
        if frame.cr:
            tail += b',"cr":true'
        if not frame.nl:
            tail += b',"nl":false'
        if frame.injected:
            tail += b',"injected":true'
        tail += b"}\n"
    if embeddable:
        return [head + b',"json":', data, tail]
    return [head, _escaped(data), tail]


SMALL_FRAME = 2 << 10
"""A frame up to this size is copied into its line (one formatting operation); a larger one is passed
through as a piece (copying 9 KB frames made a 300 MB stream of them 5% slower to record)."""


def frames_lines(frames: list[Frame]) -> list[bytes]:
    """The entry lines of consecutive frames as pieces, byte for byte what :func:`frame_pieces` makes of each.

    The common frame (a small one, valid JSON, LF-terminated, not injected) becomes its whole
    line in one formatting operation, the part naming time and direction shared by a run.
    """
    out: list[bytes] = []
    t: float | None = None
    d = ""
    mid = b""
    for f in frames:
        data = f.data
        if not (f.nl and not f.cr and not f.injected and len(data) <= SMALL_FRAME):
            out += frame_pieces(f)
        elif not _embeddable(data):
            out += _pieces(f, False)
        else:
            if f.t != t or f.dir != d:
                t, d = f.t, f.dir
                mid = b',"t":%.6f,"dir":"%s","json":' % (t, _DIR_BYTES[d])
            out.append(b'{"kind":"frame","seq":%d%s%s}\n' % (f.seq, mid, data))
    return out


_DIR_BYTES = {"c2a": b"c2a", "a2c": b"a2c", "err": b"err"}


def chunk_lines(first: int, t: float, direction: Direction, lines: list[bytes], injected: bool = False) -> bytes | None:
    """The entry lines of the frames ``first``, ``first + 1``, ... whose bytes are ``lines`` (each ended by
    LF, none cut by EOF), all read at ``t``: byte for byte what :func:`frame_pieces` makes of each, or
    None when a line is not embeddable as it stands (then ask :func:`frames_lines`).

    One decode of all the lines as a JSON array of raw values, one formatting operation, no Python
    object per frame but the decoder's. The proof that each line is exactly one JSON value (no
    whitespace, no value spanning two lines, no line holding two) is that the array has as many
    values as there are lines and each value is exactly as long as its line: the values are then
    packed one comma apart from the array's start, so value ``i`` covers line ``i`` and nothing else.
    A line ending in CR (a CR LF frame) fails it, as whitespace is not part of a value.
    """
    if not lines:
        return b""
    body = b"[%s]" % b",".join(lines)
    if not body.isascii():  # the decoder does not check the UTF-8 of strings it keeps raw: the lines
        try:                # that are not ASCII are checked (no str made of the whole chunk)
            for line in filterfalse(bytes.isascii, lines):
                line.decode("utf-8")
        except UnicodeDecodeError:
            return None
    try:
        raws = _raws_decoder.decode(body)
    except DECODE_ERRORS:
        return None
    if len(raws) != len(lines) or list(map(len, raws)) != list(map(len, lines)):
        return None
    tail = b',"injected":true}\n' if injected else b"}\n"
    fmt = (b'{"kind":"frame","seq":%%d,"t":%.6f,"dir":"%s","json":%%s%s' % (t, _DIR_BYTES[direction], tail)) * len(lines)
    args: list[object] = [None] * (2 * len(lines))
    args[0::2] = range(first, first + len(lines))
    args[1::2] = lines
    return fmt % tuple(args)


def encode_frame(frame: Frame, embed: bool | None = None) -> bytes:
    """A frame entry line as one bytes object (``embed``: as for :func:`frame_pieces`)."""
    return b"".join(frame_pieces(frame, embed))


def _embeddable(data: bytes) -> bool:
    """Valid UTF-8 JSON with no surrounding whitespace: its bytes can stand in the entry as they are."""
    if not data or data[0] in _WS or data[-1] in _WS:
        return False
    try:
        if not data.isascii():
            data.decode("utf-8")
        _raw_decoder.decode(data)
    except DECODE_ERRORS:  # too deep for a decoder: kept as text, never lost
        return False
    return True


def _escaped(data: bytes) -> bytes:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return b',"b64":"' + base64.b64encode(data) + b'"'
    return b',"text":' + _encode(text)


def encode_entry(entry: msgspec.Struct) -> bytes:
    """Encode any non-frame entry (or the header) as one line with LF."""
    return _encode(entry) + b"\n"
