"""Decoding recording lines: the one decoder, with a fast path for the frame lines rpcspy writes.

:func:`decode_entry` reads any entry line (a kind this version does not know becomes an
:class:`~rpcspy.recording.format.UnknownEntry`). :func:`fast_frame` reads a frame line whose JSON
stands embedded as :func:`~rpcspy.recording.format.frame_pieces` writes it, without decoding the
frame: replay reads recordings much faster so. It answers None for any other line, never a
different entry than the full decoder (tests/recording/test_decode.py holds them to that).
:func:`typed_block_decoder` reads a block of lines with the frames' JSON decoded into a given type
(a :class:`TypedBlock`), for a reader of frames that decodes them anyway (``rpcspy check``).
"""

from __future__ import annotations

import math
import re
from typing import Any, Union

import msgspec

from rpcspy.events import Seq
from rpcspy.framing import DECODE_ERRORS
from rpcspy.plans import json_decoder
from rpcspy.recording.format import ENTRY_TYPES, FrameEntry, UnknownEntry

_entry_decoder: Any = msgspec.json.Decoder(Union[ENTRY_TYPES])  # noqa: UP007


class _Kind(msgspec.Struct):
    seq: Seq = -1
    t: float = 0.0
    kind: str = ""


_kind_decoder = msgspec.json.Decoder(_Kind)
KNOWN_KINDS = frozenset(t.__struct_config__.tag for t in ENTRY_TYPES)


class BadEntry(ValueError):
    """A line that is no readable entry; ``kind`` is the kind it claims ("" for none), None if not even that reads."""

    def __init__(self, reason: str, kind: str | None) -> None:
        super().__init__(reason)
        self.kind = kind


def unreadable_reason(exc: Exception) -> str:
    """Why a line did not decode, for people."""
    if isinstance(exc, RecursionError):
        return "nested too deeply to decode"
    if isinstance(exc, UnicodeDecodeError):
        return f"invalid UTF-8 at byte {exc.start}"
    return str(exc)


def decode_entry(line: bytes) -> msgspec.Struct:
    """One entry line as its entry Struct; raises :class:`BadEntry`."""
    try:
        entry: msgspec.Struct = _entry_decoder.decode(line)
        return entry
    except DECODE_ERRORS as exc:
        error = unreadable_reason(exc)
    try:
        k = _kind_decoder.decode(line)
    except DECODE_ERRORS:
        raise BadEntry(error, None) from None
    if k.kind and k.kind not in KNOWN_KINDS:
        return UnknownEntry(seq=k.seq, t=k.t, kind=k.kind, raw=bytes(line))
    raise BadEntry(error, k.kind)


_typed_decoders: dict[Any, tuple[type, Any]] = {}


def typed_block_decoder(json_type: Any) -> tuple[type, Any]:
    """``(frame class, decoder)`` for a block of entry lines as one JSON array of one-item arrays (one a
    line, as the reader wraps them), frames read with their
    JSON decoded as ``json_type`` (a msgspec type) instead of kept raw: the frame class has
    :class:`~rpcspy.recording.format.FrameEntry`'s fields, ``json`` None for a frame kept as text or
    base64; every other entry is read as :func:`decode_entry` reads it. Cached by ``json_type``."""
    got = _typed_decoders.get(json_type)
    if got is None:
        fields = [(f.name, f.type, f.default) if f.name != "json" else ("json", Union[json_type, None], None)
                  for f in msgspec.structs.fields(FrameEntry)]
        cls = msgspec.defstruct("TypedFrameEntry", fields, tag="frame", tag_field="kind", kw_only=True)
        others = tuple(t for t in ENTRY_TYPES if t is not FrameEntry)
        got = _typed_decoders[json_type] = (cls, json_decoder(list[tuple[Union[(*others, cls)]]]))  # type: ignore[valid-type]
    return got


TYPED_MAX = 64 << 10
"""A :class:`TypedBlock` is at most this long, so none of its lines is longer."""


class TypedBlock(list):  # type: ignore[type-arg]
    """A block of entries read with the frames' JSON decoded as ``json_type``: its frames are
    ``frame_class`` (:class:`FrameEntry`'s fields, ``json`` decoded, None for a frame kept as text or
    base64); :meth:`entry` reads one of them again as :class:`FrameEntry` from its line (item ``i`` is
    line ``i``: the reader makes a block only of lines holding one entry each). No line is longer than
    :data:`TYPED_MAX`."""

    __slots__ = ("json_type", "frame_class", "_read", "_lines")

    def __init__(self, entries: list[msgspec.Struct], read: tuple[bytes, int, int], json_type: Any,
                 frame_class: type) -> None:
        super().__init__(entries)
        self.json_type, self.frame_class = json_type, frame_class
        self._read = read
        """(the read, start, end): the block's lines are ``read[start:end]``, LF-terminated."""
        self._lines: list[bytes] | None = None

    def entry(self, i: int) -> FrameEntry:
        """Item ``i`` (a frame) as the plain reader gives it, its JSON raw."""
        lines = self._lines
        if lines is None:
            read, start, end = self._read
            lines = self._lines = read[start:end - 1].split(b"\n")
        entry: FrameEntry = decode_entry(lines[i])  # type: ignore[assignment]
        return entry


def entry_or_none(line: bytes) -> msgspec.Struct | None:
    """:func:`decode_entry`, None for a line that is no readable entry."""
    try:
        return decode_entry(line)
    except BadEntry:
        return None


_HEAD = re.compile(
    rb'\{(?:"kind":"frame","seq":(\d+),"t":(-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)'
    rb'|"seq":(\d+),"t":(-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?),"kind":"frame"),'
    rb'"dir":"(c2a|a2c|err)","json":'
)
def fast_frame(line: bytes) -> FrameEntry | None:
    """A frame line with embedded JSON, read by its layout; None when the line has another form."""
    m = _HEAD.match(line)
    if m is None or not line.endswith(b"}"):
        return None
    body = line[m.end():-1]
    injected = body.endswith(b',"injected":true')  # the writer's flags, read from the end
    if injected:
        body = body[:-16]
    nl = not body.endswith(b',"nl":false')
    if not nl:
        body = body[:-11]
    cr = body.endswith(b',"cr":true')
    if cr:
        body = body[:-10]
    seq, t = (m.group(1), m.group(2)) if m.group(1) is not None else (m.group(3), m.group(4))
    time = float(t)
    if len(seq) > 18 or not math.isfinite(time):
        return None  # a seq beyond 64 bits, a t beyond float range (1e999): the full decode says why
    return FrameEntry(seq=int(seq), t=time, dir=m.group(5).decode(), json=msgspec.Raw(body),  # type: ignore[arg-type]
                      cr=cr, nl=nl, injected=injected)
