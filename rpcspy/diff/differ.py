"""Semantic diff of two recordings: per direction, frame by frame, volatile values ignored.

Frames are normalised (class tokens, :mod:`rpcspy.normalise.normaliser`) and compared as
JSON values, so key order, number spelling and volatile values do not count. The
two frame sequences of a direction are aligned (:mod:`rpcspy.diff.align`) on digests of the
normalised frames, then frames of the same kind inside a changed block are paired
and their differing JSON paths listed. Pure: frames come in as iterables.
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

import msgspec

from rpcspy.diff.align import Opcode, opcodes
from rpcspy.diff.jsondiff import Change, all_changes
from rpcspy.events import Frame
from rpcspy.framing import DECODE_ERRORS
from rpcspy.normalise.normaliser import Normaliser
from rpcspy.protocol.vocabulary import MESSAGE_EDGES

_dec = msgspec.json.decode


@dataclass(slots=True)
class Norm:
    """One frame, normalised."""

    index: int
    seq: int
    label: str
    value: Any
    digest: int


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
        else:
            only = self.b if self.op == "added" else self.a
            assert only is not None  # an added item has its B frame, a removed one its A frame
            out["value"] = only.value
        return out


def _side(name: str, v: Any) -> dict[str, Any]:
    from rpcspy.diff.jsondiff import ABSENT

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
    elif name in MESSAGE_EDGES:
        msg = value.get("message")
        sub = msg.get("role") if isinstance(msg, dict) else None
    return f"{name}/{sub}" if isinstance(sub, str) else name


def _int_floats(raw: str) -> Any:
    """Integral floats as ints, so 1 and 1.0 digest alike (JSON does not tell them apart)."""
    f = float(raw)
    return int(f) if f.is_integer() else f


_digest_dec = msgspec.json.Decoder(float_hook=_int_floats).decode
_CACHE_FRAME = 512
"""Frames up to this size have their (label, digest) remembered: small frames repeat a lot."""
_CACHE_ENTRIES = 20_000
"""The cache is emptied when it holds this many (so at most ~12 MB)."""


class Digester:
    """Frame bytes to (label, digest): normalised, keys sorted, integral floats as ints, hashed.

    The digest is Python's 64-bit ``hash`` of the canonical encoding: equal within one
    process, which is all an alignment needs. With a token normaliser (``stable=False``,
    a pure function of the frame) results for small frames are cached.
    """

    def __init__(self, norm: Normaliser) -> None:
        self.norm = norm
        self._cache: dict[bytes, tuple[str, int]] | None = None if norm.stable else {}

    def __call__(self, data: bytes) -> tuple[str, int]:
        cache = self._cache
        if cache is not None and len(data) <= _CACHE_FRAME:
            got = cache.get(data)
            if got is None:
                if len(cache) >= _CACHE_ENTRIES:
                    cache.clear()
                got = cache[data] = self._digest(data)
            return got
        return self._digest(data)

    def _digest(self, data: bytes) -> tuple[str, int]:
        try:
            value = self.norm.value(_digest_dec(data))
        except DECODE_ERRORS:
            value = self.norm.text(data.decode("utf-8", "replace"))
        try:
            return label_of(value), hash(msgspec.json.encode(value, order="sorted"))
        except RecursionError:  # nested too deeply to encode: digested as it came
            return label_of(value), hash(data)


def _value(data: bytes, norm: Normaliser) -> Any:
    try:
        return norm.value(_dec(data))
    except DECODE_ERRORS:
        return norm.text(data.decode("utf-8", "replace"))


def normalise_frames(frames: Iterable[Frame], norm: Normaliser, *, keep: bool = True) -> list[Norm]:
    """Normalise a frame sequence; without ``keep`` only digests and labels are held."""
    digest = Digester(norm)
    out = []
    for i, f in enumerate(frames):
        label, h = digest(f.data)
        out.append(Norm(i, f.seq, label, _value(f.data, norm) if keep else None, h))
    return out


class Compact:
    """One direction's frames in 12 bytes each: digest and label number (big recordings).

    Seqs are not held: pass 2 reads them with the values of the frames that differ.
    """

    __slots__ = ("digests", "labels", "names")

    def __init__(self, names: dict[str, int]) -> None:
        self.digests = array("q")
        self.labels = array("I")
        self.names = names  # label -> number, shared by both recordings

    def add(self, label: str, digest: int) -> None:
        num = self.names.get(label)
        if num is None:
            num = self.names[label] = len(self.names)
        self.digests.append(digest)
        self.labels.append(num)

    def __len__(self) -> int:
        return len(self.digests)


def diff_direction(direction: str, a: list[Norm], b: list[Norm]) -> DirectionDiff:
    """Align and compare; ``changed`` items get their paths now if values are held, else in :func:`fill`."""
    items: list[Item] = []
    for _, i1, i2, j1, j2 in _changed(opcodes([x.digest for x in a], [x.digest for x in b])):
        items.extend(_block(a[i1:i2], b[j1:j2]))
    return DirectionDiff(direction, len(a), len(b), items)


def _changed(ops: list[Opcode]) -> list[Opcode]:
    return [op for op in ops if op[0] != "equal"]


def _compact_direction(direction: str, a: Compact, b: Compact, label_names: list[str]) -> DirectionDiff:
    """:func:`diff_direction` on compact sequences: Norms are made only for the frames that differ."""
    items: list[Item] = []

    def norms(side: Compact, lo: int, hi: int) -> list[Norm]:
        return [Norm(i, -1, label_names[side.labels[i]], None, side.digests[i]) for i in range(lo, hi)]

    for _, i1, i2, j1, j2 in _changed(opcodes(a.digests, b.digests)):
        items.extend(_block(norms(a, i1, i2), norms(b, j1, j2)))
    return DirectionDiff(direction, len(a), len(b), items)


def _block(a: list[Norm], b: list[Norm]) -> list[Item]:
    """Pair frames of the same kind inside a changed block; the rest were added or removed."""
    out: list[Item] = []
    for op, i1, i2, j1, j2 in opcodes([x.label for x in a], [x.label for x in b]):
        if op == "equal":
            for x, y in zip(a[i1:i2], b[j1:j2], strict=False):
                it = Item("changed", x.label, x, y)
                if x.value is not None or y.value is not None:
                    it.changes = all_changes(x.value, y.value)
                out.append(it)
            continue
        out.extend(Item("removed", x.label, a=x) for x in a[i1:i2])
        out.extend(Item("added", y.label, b=y) for y in b[j1:j2])
    return out


def _entries(path: str) -> tuple[Iterator[msgspec.Struct], Callable[[msgspec.Struct], int | None]]:
    """(entries of one recording, streamed; a function giving an entry's exit code or None)."""
    from rpcspy.events import Exit, Note, SpawnFailed
    from rpcspy.recording.reader import open_recording

    rec = open_recording(path)
    native = rec.kind == "rpcspy"

    def exit_code(e: msgspec.Struct) -> int | None:
        if isinstance(e, (Exit, SpawnFailed)):
            return e.code
        if not native and isinstance(e, Note) and e.text.startswith("exit code: "):
            code = e.text.split(": ", 1)[1].strip()  # a transcript's harness note; "exit code: abc" is no code
            return int(code) if code.lstrip("-").isdigit() and len(code) < 12 else None
        return None

    return rec.entries(), exit_code


def diff_recordings(a_path: str, b_path: str, norm: Normaliser, *, dirs: Iterable[str] = ("c2a", "a2c")) -> DiffResult:
    """Diff two recordings (any format :func:`open_recording` reads), 12 bytes held per frame.

    Pass 1 keeps a digest and a label number per frame (:class:`Compact`) and aligns
    (:mod:`rpcspy.diff.align`, near-linear); pass 2 re-reads the recordings up to the
    last frame that differs, to list the values and changed paths of those frames.
    """
    from rpcspy.recording.format import FrameEntry

    dirs = tuple(dirs)
    names: dict[str, int] = {}
    digest = Digester(norm)

    def digests(path: str) -> tuple[dict[str, Compact], int | None]:
        entries, exit_code = _entries(path)
        out = {d: Compact(names) for d in dirs}
        code = None
        for e in entries:
            if type(e) is FrameEntry:
                side = out.get(e.dir)
                if side is not None:
                    side.add(*digest(e.data()))
            else:
                code = c if (c := exit_code(e)) is not None else code
        return out, code

    na, ca = digests(a_path)
    nb, cb = digests(b_path)
    label_names = list(names)
    result = [_compact_direction(d, na[d], nb[d], label_names) for d in dirs]
    del na, nb
    for side, path in (("a", a_path), ("b", b_path)):
        wanted = {(r.dir, getattr(it, side).index): getattr(it, side) for r in result for it in r.items
                  if getattr(it, side) is not None}
        if wanted:
            _fill(path, dirs, wanted, norm)
    for r in result:
        for it in r.items:
            if it.op == "changed" and it.a is not None and it.b is not None:  # a changed item has both
                it.changes = all_changes(it.a.value, it.b.value)
    return DiffResult(a_path, b_path, result, ca, cb)


def _fill(path: str, dirs: tuple[str, ...], wanted: dict[tuple[str, int], Norm], norm: Normaliser) -> None:
    """Give the ``wanted`` frames (by direction and index) their seqs and normalised values."""
    from rpcspy.recording.format import FrameEntry

    entries, _ = _entries(path)
    counts = dict.fromkeys(dirs, 0)
    left = len(wanted)
    for e in entries:
        if type(e) is not FrameEntry or e.dir not in counts:
            continue
        target = wanted.get((e.dir, counts[e.dir]))
        if target is not None:
            target.seq = e.seq
            target.value = _value(e.data(), norm)
            left -= 1
            if not left:
                break
        counts[e.dir] += 1
