"""Reading the shared pi transcripts as recording entries.

Two layouts exist: raw (``>> `` client lines, bare agent lines, ``!! `` stderr,
``## `` harness notes) and structured (``{"t", "dir", "raw"}`` per line). Both are
turned into records ``(t, dir, payload)`` and then into entries. The harness marks a
client write that did not end a line with ``   <-- (no trailing newline yet)``: that
piece is joined with the next client line into one frame, or, when the input ends
first, becomes a last frame without LF, as it was on the wire.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Callable, Iterable, Iterator

import msgspec

from rpcspy.events import Note
from rpcspy.framing import DECODE_ERRORS, split_cr
from rpcspy.recording.format import FrameEntry

PARTIAL_MARK = b"   <-- (no trailing newline yet)"
_DIRS = {"in": "c2a", "out": "a2c", "err": "err"}
Record = tuple[float, str, bytes]
"""(t, dir, payload); dir is c2a, a2c, err, or note (payload: the note's text)."""


Skip = Callable[[int, str, bool], None]
"""Told about a line that cannot be read: (line number, reason, whether it had its LF)."""


def structured_records(lines: Iterable[tuple[bytes, bool]], skip: Skip | None = None) -> Iterator[Record]:
    for lineno, (line, had_lf) in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            rec = json.loads(line)  # stdlib: non-UTF-8 bytes are escaped as lone surrogates, which msgspec refuses
        except DECODE_ERRORS as exc:
            if skip is not None:
                skip(lineno, f"not JSON: {exc if not isinstance(exc, RecursionError) else 'nested too deeply'}",
                     had_lf)
            continue
        t, direction, raw = (rec.get("t"), rec.get("dir"), rec.get("raw")) if isinstance(rec, dict) else (0, 0, 0)
        if not (isinstance(t, (int, float)) and not isinstance(t, bool) and isinstance(direction, str)
                and isinstance(raw, str) and -1e15 < t < 1e15):  # also no NaN, inf or int beyond float range
            if skip is not None:
                skip(lineno, 'not a transcript record {"t": number, "dir": string, "raw": string}', had_lf)
            continue
        yield float(t), "note" if direction == "note" else _DIRS.get(direction, "err"), _raw_bytes(raw)


def _raw_bytes(raw: str) -> bytes:
    """A record's ``raw`` as bytes: non-UTF-8 bytes came back from ``json.loads`` as U+DC80..U+DCFF
    (surrogateescape); any other lone surrogate (a ``"\\ud800"`` escape) is kept as its own
    invalid bytes, so the frame is stored as base64 rather than crash the reader."""
    try:
        return raw.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:
        return raw.encode("utf-8", "surrogatepass")


def raw_records(lines: Iterable[tuple[bytes, bool]]) -> Iterator[Record]:
    for line, _ in lines:
        if line.startswith(b">> "):
            yield 0.0, "c2a", line[3:]
        elif line.startswith(b"!! "):
            yield 0.0, "err", line[3:]
        elif line.startswith(b"## "):
            yield 0.0, "note", line[3:]
        elif line:
            yield 0.0, "a2c", line


def transcript_entries(records: Iterable[Record]) -> Iterator[msgspec.Struct]:
    """Entries numbered by transcript line; partial client writes re-joined as on the wire.

    A joined frame keeps the seq of its first line (the continuation line's number
    is unused), so seqs still point at transcript lines.
    """
    seq = 0
    pending: tuple[int, float, bytes] | None = None
    for t, direction, payload in records:
        seq += 1
        if direction == "c2a":
            first = seq
            if pending is not None:
                first, _, head = pending
                pending = None
                payload = head + payload
            if payload.endswith(PARTIAL_MARK):
                pending = (first, t, payload[: -len(PARTIAL_MARK)])
                continue
            if first != seq:
                yield _frame_entry(first, t, direction, payload)
                continue
        elif direction == "note" and pending is not None and b"EOF" in payload:
            yield _frame_entry(pending[0], pending[1], "c2a", pending[2], nl=False)
            pending = None
        if direction == "note":
            yield Note(seq=seq, t=t, level="info", text=payload.decode("utf-8", "replace"))
        else:
            yield _frame_entry(seq, t, direction, payload)
    if pending is not None:
        yield _frame_entry(pending[0], pending[1], "c2a", pending[2], nl=False)


def _frame_entry(seq: int, t: float, direction: str, data: bytes, nl: bool = True) -> FrameEntry:
    """A frame entry holding exact bytes: text when UTF-8, else base64."""
    data, cr = split_cr(data)
    try:
        return FrameEntry(seq=seq, t=t, dir=direction, text=data.decode("utf-8"), cr=cr, nl=nl)  # type: ignore[arg-type]
    except UnicodeDecodeError:
        return FrameEntry(seq=seq, t=t, dir=direction, b64=base64.b64encode(data).decode(), cr=cr,  # type: ignore[arg-type]
                          nl=nl)
