"""Framing rules on the raw bytes of one line, and the single JSON decode of each frame."""

from __future__ import annotations

import re
from typing import Any

import msgspec

from rpcspy.checker.findings import Sink
from rpcspy.events import Frame
from rpcspy.framing import DECODE_ERRORS
from rpcspy.protocol.pairing import is_blank

KIB64 = 64 * 1024
MIB = 1024 * 1024
_BOM = b"\xef\xbb\xbf"
LS, PS = "\u2028".encode(), "\u2029".encode()
_decode = msgspec.json.decode


class Unparsed:
    """Marker for a frame that did not decode to a JSON value; ``blank`` when it was empty."""

    __slots__ = ("blank",)

    def __init__(self, blank: bool) -> None:
        self.blank = blank


class Shallow:
    """Stand-in for a frame nested too deeply to decode.

    ``value`` holds the top-level members that decode on their own (``[]`` for an
    array, :class:`Unparsed` when even that fails), so correlation carries on; the
    schema is not checked.
    """

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value


def who(direction: str) -> str:
    return "client" if direction == "c2a" else "agent"


def _snippet(data: bytes, n: int = 60) -> str:
    text = data[:n].decode("utf-8", "replace")
    return repr(text) + ("…" if len(data) > n else "")


ONCE = " (reported once per direction)"


def check_bytes(frame: Frame, sink: Sink, once: set[tuple[str, str]]) -> None:
    """Rules on the line as bytes: terminator, CR, size.

    The ``info`` size rule that would fire on every frame of a long pi 0.73 reply is
    reported for the first frame of each direction only; ``once`` remembers it.
    """
    d = frame.dir
    size = len(frame.data)
    if not frame.nl:
        sink.emit("framing.truncated", frame.t, frame.seq, d,
                  f"last {who(d)} frame ended at EOF without LF ({size} bytes)")
    if frame.cr:
        sink.emit("framing.crlf", frame.t, frame.seq, d, f"{who(d)} frame ends in CR LF; the delimiter is LF alone")
    if size > MIB:
        sink.emit("framing.over_1m", frame.t, frame.seq, d, f"{who(d)} frame of {size:,} bytes (> 1 MiB)",
                  extra={"bytes": size})
    elif size > KIB64 and ("over_64k", d) not in once:
        once.add(("over_64k", d))
        sink.emit("framing.over_64k", frame.t, frame.seq, d,
                  f"{who(d)} frame of {size:,} bytes (> 64 KiB){ONCE}", extra={"bytes": size})


def check_separators(frame: Frame, sink: Sink, once: set[tuple[str, str]]) -> None:
    """A raw U+2028/U+2029 in a frame that parsed (inside a string): first per direction."""
    d = frame.dir
    if ("ls", d) not in once:
        data = frame.data
        if LS in data or PS in data:
            once.add(("ls", d))
            sink.emit("framing.line_separator", frame.t, frame.seq, d,
                      f"{who(d)} frame contains a raw U+2028/U+2029; split lines on LF only{ONCE}")


def decode_frame(frame: Frame, sink: Sink, once: set[tuple[str, str]]) -> Any:
    """All framing rules on ``frame``; its decoded JSON value, or :class:`Unparsed`.

    Invalid UTF-8 is reported and then decoded with U+FFFD replacement, as pi does,
    so the command it carries is still tracked.
    """
    check_bytes(frame, sink, once)
    try:
        obj = _decode(frame.data)
    except DECODE_ERRORS as exc:  # msgspec raises UnicodeDecodeError for bad UTF-8
        if isinstance(exc, RecursionError):
            return too_deep(frame, sink, frame.data)
        return undecodable(frame, sink, str(exc))
    check_separators(frame, sink, once)
    return obj


def undecodable(frame: Frame, sink: Sink, error: str) -> Any:
    """Classify a line that did not decode: blank, BOM, invalid UTF-8 (then repaired), not JSON."""
    data = frame.data
    t, seq, d = frame.t, frame.seq, frame.dir
    if is_blank(data):
        what = "an empty line" if not data else "a whitespace-only line"
        sink.emit("framing.blank_line", t, seq, d, f"{who(d)} wrote {what}")
        return Unparsed(blank=True)
    if data.startswith(_BOM):
        sink.emit("framing.bom", t, seq, d, f"{who(d)} frame starts with a UTF-8 BOM (EF BB BF)")
        return Unparsed(blank=False)
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        sink.emit("framing.invalid_utf8", t, seq, d,
                  f"{who(d)} frame has invalid UTF-8 at byte {exc.start} ({data[exc.start:exc.start + 4]!r})",
                  extra={"offset": exc.start})
        repaired = data.decode("utf-8", "replace").encode()
        try:
            return _decode(repaired)
        except DECODE_ERRORS as exc2:
            if isinstance(exc2, RecursionError):
                return too_deep(frame, sink, repaired)
            error = str(exc2)
    hint = ""
    if LS in data or PS in data:
        hint = " (a raw U+2028/U+2029 outside a string is not JSON whitespace)"
    sink.emit("framing.not_json", t, seq, d, f"{who(d)} frame is not JSON: {error}{hint}: {_snippet(data)}")
    return Unparsed(blank=False)


_TOKEN = re.compile(rb'"(?:[^"\\]|\\.)*"|[\[\]{},:]', re.S)
"""A JSON string, or a structural character (string contents never count as structure)."""
_BAD = object()


def too_deep(frame: Frame, sink: Sink, data: bytes) -> Shallow:
    """Report a frame nested deeper than the decoder goes; keep what correlation needs."""
    d = frame.dir
    sink.emit("framing.too_deep", frame.t, frame.seq, d,
              f"{who(d)} frame is nested too deeply to decode; only its top-level members are checked")
    return Shallow(top_members(data))


def top_members(data: bytes) -> Any:
    """The members of a top-level JSON object that decode on their own (a deep one is left out);
    ``[]`` for a top-level array, :class:`Unparsed` for anything else."""
    first = data.lstrip()[:1]
    if first != b"{":
        return [] if first == b"[" else Unparsed(blank=False)
    out: dict[str, Any] = {}
    depth = 0
    key: Any = None
    start = -1
    for m in _TOKEN.finditer(data):
        tok = m.group()
        c = tok[:1]
        if c in b"{[":
            depth += 1
        elif depth != 1:
            if c in b"}]":
                depth -= 1
        elif c == b'"':
            if start < 0:
                key = _member(tok)
        elif c == b":":
            start = m.end()
        else:  # "," or the closing "}" of the object
            if start >= 0 and type(key) is str:
                value = _member(data[start:m.start()])
                if value is not _BAD:
                    out[key] = value
            key, start = None, -1
            if c == b"}":
                return out
    return out


def _member(data: bytes) -> Any:
    try:
        return _decode(data)
    except DECODE_ERRORS:
        return _BAD
