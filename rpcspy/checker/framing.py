"""Framing rules on the raw bytes of one line, and the single JSON decode of each frame."""

from __future__ import annotations

from typing import Any

import msgspec

from rpcspy.checker.findings import Sink
from rpcspy.events import Frame

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
    except (msgspec.DecodeError, UnicodeDecodeError) as exc:  # msgspec raises the latter for bad UTF-8
        return undecodable(frame, sink, str(exc))
    check_separators(frame, sink, once)
    return obj


def undecodable(frame: Frame, sink: Sink, error: str) -> Any:
    """Classify a line that did not decode: blank, BOM, invalid UTF-8 (then repaired), not JSON."""
    data = frame.data
    t, seq, d = frame.t, frame.seq, frame.dir
    if not data.strip():
        what = "empty line" if not data else "whitespace-only line"
        sink.emit("framing.blank_line", t, seq, d, f"{who(d)} wrote an {what}")
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
        try:
            return _decode(data.decode("utf-8", "replace").encode())
        except (msgspec.DecodeError, UnicodeDecodeError) as exc2:
            error = str(exc2)
    hint = ""
    if LS in data or PS in data:
        hint = " (a raw U+2028/U+2029 outside a string is not JSON whitespace)"
    sink.emit("framing.not_json", t, seq, d, f"{who(d)} frame is not JSON: {error}{hint}: {_snippet(data)}")
    return Unparsed(blank=False)
