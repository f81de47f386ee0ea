"""Semantic diff of two recordings: per direction, frame by frame, volatile values ignored.

Frames are normalised (class tokens, :mod:`rpcspy.replay.normalise`) and compared as
JSON values, so key order, number spelling and volatile values do not count. The
two frame sequences of a direction are aligned (``difflib``) on digests of the
normalised frames, then frames of the same kind inside a changed block are paired
and their differing JSON paths listed. Pure: frames come in as iterables.
"""

from __future__ import annotations

import difflib
import hashlib
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import msgspec

from rpcspy.events import Frame
from rpcspy.framing import DECODE_ERRORS
from rpcspy.replay.jsondiff import Change, all_changes
from rpcspy.replay.normalise import Normaliser

_dec = msgspec.json.decode


@dataclass(slots=True)
class Norm:
    """One frame, normalised."""

    index: int
    seq: int
    label: str
    value: Any
    digest: bytes


@dataclass(slots=True)
class Item:
    """One difference: ``op`` is changed (both sides), added (only in B) or removed (only in A)."""

    op: str
    label: str
    a: Norm | None = None
    b: Norm | None = None
    changes: list[Change] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"op": self.op, "type": self.label}
        if self.a is not None:
            out["a"] = {"index": self.a.index, "seq": self.a.seq}
        if self.b is not None:
            out["b"] = {"index": self.b.index, "seq": self.b.seq}
        if self.op == "changed":
            out["changes"] = [{"path": c.path, **_side("a", c.a), **_side("b", c.b)} for c in self.changes]
        elif self.op == "added":
            out["value"] = self.b.value  # type: ignore[union-attr]
        else:
            out["value"] = self.a.value  # type: ignore[union-attr]
        return out


def _side(name: str, v: Any) -> dict[str, Any]:
    from rpcspy.replay.jsondiff import ABSENT

    return {} if v is ABSENT else {name: v}


@dataclass(slots=True)
class DirectionDiff:
    dir: str
    a_count: int
    b_count: int
    items: list[Item]

    @property
    def equal(self) -> bool:
        return not self.items

    def counts(self) -> dict[str, int]:
        out = {"changed": 0, "added": 0, "removed": 0}
        for it in self.items:
            out[it.op] += 1
        return out


@dataclass(slots=True)
class DiffResult:
    a: str
    b: str
    dirs: list[DirectionDiff]
    exit_a: int | None = None
    exit_b: int | None = None

    @property
    def equal(self) -> bool:
        return all(d.equal for d in self.dirs) and self.exit_a == self.exit_b

    def to_json(self) -> dict[str, Any]:
        return {
            "a": self.a, "b": self.b, "equal": self.equal,
            "exit": {"a": self.exit_a, "b": self.exit_b, "equal": self.exit_a == self.exit_b},
            "directions": {
                d.dir: {"a_frames": d.a_count, "b_frames": d.b_count, "equal": d.equal, **d.counts(),
                        "items": [it.to_json() for it in d.items]}
                for d in self.dirs
            },
        }


def label_of(value: Any) -> str:
    """A frame's kind for pairing and display: ``response/get_state``, ``message_update/text_delta``."""
    if not isinstance(value, dict):
        return "<text>" if isinstance(value, str) else "<non-object>"
    typ = value.get("type")
    name = typ if isinstance(typ, str) else "<no type>"
    sub = None
    if name == "response":
        sub = value.get("command")
    elif name == "message_update":
        ev = value.get("assistantMessageEvent")
        sub = ev.get("type") if isinstance(ev, dict) else None
    elif name == "extension_ui_request":
        sub = value.get("method")
    elif name in ("message_start", "message_end"):
        msg = value.get("message")
        sub = msg.get("role") if isinstance(msg, dict) else None
    return f"{name}/{sub}" if isinstance(sub, str) else name


def _canon(v: Any) -> Any:
    """Integral floats as ints, so 1 and 1.0 digest alike (JSON does not tell them apart)."""
    if isinstance(v, float) and v.is_integer():
        return int(v)
    if isinstance(v, dict):
        return {k: _canon(x) for k, x in v.items()}
    if isinstance(v, list):
        return [_canon(x) for x in v]
    return v


def normalise_frame(index: int, frame: Frame, norm: Normaliser, *, keep: bool = True) -> Norm:
    """One frame decoded and normalised (JSON frames as values, other lines as text)."""
    try:
        value = norm.value(_dec(frame.data))
    except DECODE_ERRORS:
        value = norm.text(frame.data.decode("utf-8", "replace"))
    try:
        key = msgspec.json.encode(_canon(value), order="sorted")
    except RecursionError:  # nested too deeply to walk: digested as it is
        key = msgspec.json.encode(value, order="sorted")
    return Norm(index, frame.seq, label_of(value), value if keep else None,
                hashlib.blake2b(key, digest_size=16).digest())


def normalise_frames(frames: Iterable[Frame], norm: Normaliser, *, keep: bool = True) -> list[Norm]:
    """Normalise a frame sequence; without ``keep`` only digests and labels are held (big recordings)."""
    return [normalise_frame(i, f, norm, keep=keep) for i, f in enumerate(frames)]


def diff_direction(direction: str, a: list[Norm], b: list[Norm]) -> DirectionDiff:
    """Align and compare; ``changed`` items get their paths now if values are held, else in :func:`fill`."""
    items: list[Item] = []
    sm = difflib.SequenceMatcher(None, [x.digest for x in a], [x.digest for x in b], autojunk=False)
    for op, i1, i2, j1, j2 in sm.get_opcodes():
        if op == "equal":
            continue
        items.extend(_block(a[i1:i2], b[j1:j2]))
    return DirectionDiff(direction, len(a), len(b), items)


def _block(a: list[Norm], b: list[Norm]) -> list[Item]:
    """Pair frames of the same kind inside a changed block; the rest were added or removed."""
    out: list[Item] = []
    sm = difflib.SequenceMatcher(None, [x.label for x in a], [x.label for x in b], autojunk=False)
    for op, i1, i2, j1, j2 in sm.get_opcodes():
        if op == "equal":
            for x, y in zip(a[i1:i2], b[j1:j2]):
                it = Item("changed", x.label, x, y)
                if x.value is not None or y.value is not None:
                    it.changes = all_changes(x.value, y.value)
                out.append(it)
            continue
        out.extend(Item("removed", x.label, a=x) for x in a[i1:i2])
        out.extend(Item("added", y.label, b=y) for y in b[j1:j2])
    return out


def _scan(path: str, dirs: tuple[str, ...]):
    """(frames by direction as an iterator of (dir, Frame), exit code holder) of one recording, streamed."""
    from rpcspy.recording.format import ExitEntry, FrameEntry, NoteEntry, SpawnFailedEntry
    from rpcspy.recording.reader import open_recording

    rec = open_recording(path)
    code: list[int | None] = [None]

    def frames():
        for e in rec.entries():
            if isinstance(e, FrameEntry):
                if e.dir in dirs:
                    yield e.dir, e.to_frame()
            elif isinstance(e, (ExitEntry, SpawnFailedEntry)):
                code[0] = e.code
            elif rec.kind != "rpcspy" and isinstance(e, NoteEntry) and e.text.startswith("exit code: "):
                code[0] = int(e.text.split(": ", 1)[1])

    return frames(), code


def diff_recordings(a_path: str, b_path: str, norm: Normaliser, *, dirs: Iterable[str] = ("c2a", "a2c")) -> DiffResult:
    """Diff two recordings (any format :func:`open_recording` reads) in constant memory per frame.

    Pass 1 keeps a digest and a label per frame and aligns; pass 2 re-reads only the
    frames that differ to list their values and changed paths.
    """
    dirs = tuple(dirs)

    def digests(path: str) -> tuple[dict[str, list[Norm]], int | None]:
        frames, code = _scan(path, dirs)
        out: dict[str, list[Norm]] = {d: [] for d in dirs}
        for d, f in frames:
            out[d].append(normalise_frame(len(out[d]), f, norm, keep=False))
        return out, code[0]

    na, ca = digests(a_path)
    nb, cb = digests(b_path)
    result = [diff_direction(d, na[d], nb[d]) for d in dirs]
    for side, path in (("a", a_path), ("b", b_path)):
        wanted = {(r.dir, getattr(it, side).index): getattr(it, side) for r in result for it in r.items
                  if getattr(it, side) is not None}
        if wanted:
            frames, _ = _scan(path, dirs)
            counts = dict.fromkeys(dirs, 0)
            for d, f in frames:
                target = wanted.get((d, counts[d]))
                if target is not None:
                    target.value = normalise_frame(counts[d], f, norm).value
                counts[d] += 1
    for r in result:
        for it in r.items:
            if it.op == "changed":
                it.changes = all_changes(it.a.value, it.b.value)  # type: ignore[union-attr]
    return DiffResult(a_path, b_path, result, ca, cb)
