"""Framing rules on the raw bytes of one line, and the single JSON decode of each frame."""

from __future__ import annotations

from typing import Any

import msgspec

from rpcspy.checker.findings import Sink
from rpcspy.events import Frame

KIB64 = 64 * 1024
MIB = 1024 * 1024
_BOM = b"\xef\xbb\xbf"
_LS, _PS = "\u2028".encode(), "\u2029".encode()
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


def decode_frame(frame: Frame, sink: Sink, once: set[tuple[str, str]]) -> Any:
    """Run the byte-level rules on ``frame`` and return its decoded JSON value, or :class:`Unparsed`.

    Invalid UTF-8 is reported and then decoded with U+FFFD replacement, as pi does,
    so the command it carries is still tracked. The two ``info`` rules that would
    fire on every frame of a long pi 0.73 reply (raw U+2028, > 64 KiB) are reported
    for the first frame of each direction only; ``once`` remembers which fired.
    """
    data = frame.data
    t, seq, d = frame.t, frame.seq, frame.dir
    size = len(data)
    if not frame.nl:
        sink.emit("framing.truncated", t, seq, d,
                  f"last {who(d)} frame ended at EOF without LF ({size} bytes)")
    if frame.cr:
        sink.emit("framing.crlf", t, seq, d, f"{who(d)} frame ends in CR LF; the delimiter is LF alone")
    if size > MIB:
        sink.emit("framing.over_1m", t, seq, d, f"{who(d)} frame of {size:,} bytes (> 1 MiB)",
                  extra={"bytes": size})
    elif size > KIB64 and ("over_64k", d) not in once:
        once.add(("over_64k", d))
        sink.emit("framing.over_64k", t, seq, d, f"{who(d)} frame of {size:,} bytes (> 64 KiB){ONCE}",
                  extra={"bytes": size})
    try:
        obj = _decode(data)
    except (msgspec.DecodeError, UnicodeDecodeError) as exc:  # msgspec raises the latter for bad UTF-8
        return _undecodable(frame, sink, str(exc))
    if ("ls", d) not in once and (_LS in data or _PS in data):
        once.add(("ls", d))
        sink.emit("framing.line_separator", t, seq, d,
                  f"{who(d)} frame contains a raw U+2028/U+2029; split lines on LF only{ONCE}")
    return obj


def _undecodable(frame: Frame, sink: Sink, error: str) -> Any:
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
    if _LS in data or _PS in data:
        hint = " (a raw U+2028/U+2029 outside a string is not JSON whitespace)"
    sink.emit("framing.not_json", t, seq, d, f"{who(d)} frame is not JSON: {error}{hint}: {_snippet(data)}")
    return Unparsed(blank=False)
