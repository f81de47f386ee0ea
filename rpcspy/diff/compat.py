"""What an agent upgrade changes for clients: the differ's alignment and both sides' shapes, judged.

Two recordings of the same client steps against two agent versions (``rpcspy drive``, or
``rpcspy replay --client``) are aligned by :mod:`rpcspy.diff.differ`, and each side's frames are
surveyed (:mod:`rpcspy.diff.shapes`). Each difference is judged from a client's side:

* **breaking**: a frame type gone, fewer frames of a type, a field every old frame of its shape had
  that no new frame has, a value of a kind the old agent never sent there, the same frames in an order
  the protocol fixes, a command now failing;
* **warning**: a new frame type, more frames of a type (a new event in a run), a new value of an
  enum-like field, a field the old agent always sent that the new one leaves out of some frames;
* **safe**: a new field, a differing value of the same kind, an array element added or removed;
* **timing**: what differs between two runs of one agent too: a field the old agent sent in only some
  frames of its shape (the recordings cannot tell a field dropped from one not sent this time), what
  streaming had filled into a ``message_start``/``message_update`` snapshot when it was written (the
  final ``message_end`` still has it), how many progress frames a stream was cut into, and the
  interleaving of frames the protocol orders only within their lane (deltas among other frames, the
  frames of parallel tool calls among each other). Said once per kind and place, never an exit 1.

Presence is judged per shape across every frame of it, never per frame pair. Differences are grouped by
level, kind, frame type and (index-free) JSON path, with a count and one example. Pure.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from rpcspy.diff.differ import DiffResult, Item
from rpcspy.diff.jsondiff import ABSENT, Change, changes
from rpcspy.diff.shapes import (
    _MAX_ENUM,
    ENUM_KEYS,
    STREAMED,
    FieldStat,
    Survey,
    final_path,
    kind_of,
    plain,
    shown_type,
    streamed_into,
    streamed_root,
    survey,
)

__all__ = ["LEVELS", "CompatReport", "Group", "compat", "survey"]

LEVELS = ("breaking", "warning", "safe", "timing")
_OPTIONAL_PROGRESS = frozenset({"tool_execution_update"})
"""Progress frames the protocol never promises (a fast tool call has none): even all of them gone is timing."""
_TOOL_RANK = {"tool_execution_start": 0, "tool_execution_update": 1, "tool_execution_end": 2}
_INDEX = re.compile(r"\[\d+\]")
_LAST_KEY = re.compile(r'(?:\.([A-Za-z_$][\w$]*)|\["((?:[^"\\]|\\.)*)"\])$')


@dataclass
class Group:
    """Differences of one level, kind, frame type and path."""

    level: str
    kind: str
    type: str
    path: str | None
    count: int = 0
    example: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"level": self.level, "kind": self.kind, "type": self.type, "path": self.path, "count": self.count,
                "example": self.example}


@dataclass
class CompatReport:
    a: str
    b: str
    groups: list[Group]
    client_differs: bool
    """The client frames differ too: the two sessions did not run the same steps."""
    frames: tuple[int, int] = (0, 0)

    def count(self, level: str) -> int:
        return sum(g.count for g in self.groups if g.level == level)

    @property
    def breaking(self) -> bool:
        return self.count("breaking") > 0

    def to_json(self) -> dict[str, Any]:
        return {"a": self.a, "b": self.b, **{level: self.count(level) for level in LEVELS},
                "client_differs": self.client_differs, "a2c_frames": {"a": self.frames[0], "b": self.frames[1]},
                "groups": [g.to_json() for g in self.groups]}


class _Groups:
    def __init__(self) -> None:
        self.groups: dict[tuple[str, str, str, str | None], Group] = {}

    def add(self, level: str, kind: str, label: str, path: str | None, example: dict[str, Any], n: int = 1) -> None:
        key = (level, kind, label, path)
        g = self.groups.get(key)
        if g is None:
            g = self.groups[key] = Group(level, kind, label, path, example=example)
        g.count += n


def _last_key(path: str) -> str | None:
    """The object key a path ends in (None when it ends in an array index)."""
    m = _LAST_KEY.search(path)
    if m is None:
        return None
    return m.group(1) if m.group(1) is not None else m.group(2)


def classify_change(label: str, c: Change) -> tuple[str, str] | None:
    """(level, kind) of one changed leaf of a frame pair, or None when the shapes judge it (presence,
    kinds and enum values are properties of every frame of a shape, not of one pair)."""
    key = _last_key(c.path)
    if c.a is ABSENT or c.b is ABSENT:
        if key is None:
            return "safe", "array element added" if c.a is ABSENT else "array element removed"
        return None
    if label.startswith("response") and c.path == "$.success" and c.a is True and c.b is False:
        return "breaking", "command now failing"
    if kind_of(c.a) != kind_of(c.b) or key in ENUM_KEYS:
        return None
    return "safe", "value differs"


def _example(item: Item, change: Change | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if item.a is not None:
        out["a_seq"] = item.a.seq
    if item.b is not None:
        out["b_seq"] = item.b.seq
    if change is not None:
        if change.a is not ABSENT:
            out["a"] = change.a
        if change.b is not ABSENT:
            out["b"] = change.b
    elif item.op == "added" and item.b is not None:
        out["b"] = item.b.value
    elif item.a is not None:
        out["a"] = item.a.value
    return out


def _streamed(label: str) -> bool:
    return label.split("/", 1)[0] in STREAMED


def _lane_keys(s: Survey) -> list[tuple[str, str, int]]:
    """Each frame's (lane, label, occurrence of that label in its lane): what pairs a moved frame."""
    seen: Counter[tuple[str, str]] = Counter()
    out = []
    for label, lane in zip(s.labels, s.lanes, strict=False):
        out.append((lane, label, seen[(lane, label)]))
        seen[(lane, label)] += 1
    return out


def _bound_order(old: Survey, new: Survey) -> set[str]:
    """Labels whose frames changed order within a lane (where the protocol fixes their order)."""
    def lanes(s: Survey) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {}
        for label, lane in zip(s.labels, s.lanes, strict=False):
            out.setdefault(lane, []).append(label)
        return out

    def positions(labels: list[str]) -> dict[str, list[int]]:
        out: dict[str, list[int]] = {}
        for i, x in enumerate(labels):
            out.setdefault(x, []).append(i)
        return out

    def disorder(by_lane: dict[str, list[str]]) -> set[str]:
        """Tool frames out of a call's start -> updates -> end (how many updates there are is timing)."""
        out: set[str] = set()
        for lane, labels in by_lane.items():
            ranks = [_TOOL_RANK.get(x, 1) for x in labels]
            if lane.startswith("tool") and ranks != sorted(ranks):
                out |= set(labels)
        return out

    la, lb = lanes(old), lanes(new)
    bound: set[str] = set()
    for lane in ("main", "deltas", "responses", "queue"):
        pa, pb = positions(la.get(lane, [])), positions(lb.get(lane, []))
        bound |= {x for x in pa.keys() | pb.keys() if pa.get(x) != pb.get(x)}
    return bound | (disorder(la) ^ disorder(lb))


def _frames(result: DiffResult, old: Survey, new: Survey, out: _Groups) -> bool:
    """Frame-level differences (types, counts, order, pairs); returns whether the client frames differ."""
    count_a, count_b = Counter(old.labels), Counter(new.labels)
    bound = _bound_order(old, new)
    keys_a, keys_b = _lane_keys(old), _lane_keys(new)
    client_differs = False
    moved: dict[str, tuple[list[Item], list[Item]]] = {}
    counted: set[str] = set()

    def pair(label: str, a: Any, b: Any, item: Item) -> None:
        shape = label.split("/", 1)[0]
        said: set[str] = set()
        for c in changes(a, b, align=True):
            got = classify_change(label, c)
            if got is not None:
                path = _INDEX.sub("[]", c.path)
                root = streamed_root(shape, path) if got[0] == "safe" else None
                if root is not None:  # once per frame for the snapshot's usage or content, whatever leaf differed
                    if root not in said:
                        said.add(root)
                        out.add("timing", "filled in by streaming", shape, root, _example(item, c))
                else:
                    out.add(*got, label, path, _example(item, c))

    for d in result.dirs:
        if d.dir == "c2a":
            client_differs = client_differs or not d.equal
        if d.dir != "a2c":
            continue
        for item in d.items:
            label = item.label
            na, nb = count_a[label], count_b[label]
            if item.op == "changed":
                if item.a is None or item.b is None or item.a.value is None:
                    continue
                lane_a, lane_b = keys_a[item.a.index][0], keys_b[item.b.index][0]
                if lane_a != lane_b and lane_a.startswith("tool"):  # frames of two different tool calls
                    out.add("timing", "tool calls interleaved differently", label, None, _example(item))
                else:
                    pair(label, item.a.value, item.b.value, item)
                continue
            added = item.op == "added"
            if label in _OPTIONAL_PROGRESS and (na == 0 or nb == 0):  # a call need not send any
                out.add("timing", "more progress frames" if added else "fewer progress frames", label, None,
                        _example(item))
            elif added and na == 0:
                out.add("warning", "new frame type", label, None, _example(item))
            elif not added and nb == 0:
                out.add("breaking", "frame type gone", label, None, _example(item))
            elif na != nb and _streamed(label):
                out.add("timing", "more progress frames" if nb > na else "fewer progress frames", label, None,
                        _example(item))
            elif nb != na:  # said once, with the net count: the rest is the alignment shifted round them
                if label not in counted and added == (nb > na):
                    counted.add(label)
                    out.add(*(("warning", "new event") if nb > na else ("breaking", "frame gone")), label, None,
                            _example(item), abs(nb - na))
            elif label in bound:
                out.add("breaking", "order changed", label, None, _example(item))
            else:
                moved.setdefault(label, ([], []))[1 if added else 0].append(item)
    for label, (gone, came) in moved.items():  # the same frames elsewhere among other lanes: compare as pairs
        rest = [y for y in came if y.b is not None]
        for x in gone:
            if x.a is None:
                continue
            key = keys_a[x.a.index]
            y = next((r for r in rest if keys_b[r.b.index] == key), rest[0] if rest else None)  # type: ignore[union-attr]
            if y is not None:
                rest.remove(y)
            p = Item("changed", label, x.a, None if y is None else y.b)
            kind = ("tool calls interleaved differently" if key[0].startswith("tool") else
                    "response moved among events" if key[0] == "responses" else
                    "queue update moved among events" if key[0] == "queue" else "moved among streamed deltas")
            out.add("timing", kind, label, None, _example(p))
            if y is not None and y.b is not None and x.a.value is not None and y.b.value is not None:
                pair(label, x.a.value, y.b.value, p)
    return client_differs


def _presence(fa: FieldStat | None, pa: int, fb: FieldStat | None, pb: int) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if fa is not None:
        out["a_seq"], out["a"] = fa.seq, fa.value
    if fb is not None:
        out["b_seq"], out["b"] = fb.seq, fb.value
    out["present"] = {"a": [0 if fa is None else fa.count, pa], "b": [0 if fb is None else fb.count, pb]}
    return out


def _filled(shape: str, path: str, shown: str, lacking: Survey, having: Survey) -> bool:
    """Whether a snapshot field that one side (``having``) showed and the other (``lacking``) did not is
    timing: the final message of the lacking side still carries it (it came after the snapshot was
    written), or, inside the streamed content or usage, neither side's final message ever had it
    (streaming's own scratch state, there or not depending on when the frame was written)."""
    final = final_path(shape, path)
    if final is None:
        return False
    if lacking.has(*final):
        return True
    return streamed_into(shape, shown) and not having.has(*final)


def _shapes(old: Survey, new: Survey, out: _Groups) -> None:
    """Field-level differences: presence and kinds per shape and path, enum values per shape."""
    for (shape, path), fa in old.fields.items():
        if fa.parent is None:
            continue
        pa, pb = old.objects(shape, fa.parent), new.objects(shape, fa.parent)
        if not pb:  # nowhere to be in the new frames: judged higher up
            continue
        fb = new.stat(shape, path)
        nb = 0 if fb is None else fb.count
        where = (shown_type(shape, path), plain(path))
        filled = _filled(shape, path, where[1], new, old)
        if nb == 0 or (fa.count == pa and nb < pb):
            ex = _presence(fa, pa, fb, pb)
            if filled:
                out.add("timing", "filled in by streaming", *where, ex, fa.count)
            elif nb == 0 and fa.count == pa:
                out.add("breaking", "field gone", *where, ex, fa.count)
            elif nb == 0:
                out.add("timing", "sent in some frames only", *where, ex, fa.count)
            else:
                out.add("warning", "now left out of some frames", *where, ex, pb - nb)
        if fb is not None:
            for kind, (seq, value) in fb.kind_seq.items():
                if kind not in fa.kinds:
                    a_kind = next(iter(fa.kind_seq))
                    ex = {"a_seq": fa.kind_seq[a_kind][0], "b_seq": seq, "a": fa.kind_seq[a_kind][1], "b": value}
                    out.add("breaking", "type changed", *where, ex, fb.kinds[kind])
    for (shape, path), fb in new.fields.items():
        if fb.parent is None or old.has(shape, path) or not old.objects(shape, fb.parent):
            continue
        ex = _presence(None, old.objects(shape, fb.parent), fb, new.objects(shape, fb.parent))
        where = (shown_type(shape, path), plain(path))
        if _filled(shape, path, where[1], old, new):
            out.add("timing", "filled in by streaming", *where, ex, fb.count)
        else:
            out.add("safe", "new field", *where, ex, fb.count)
    for (shape, path), values in new.enums.items():
        known = old.enums.get((shape, path))
        if not known or len(known) >= _MAX_ENUM or streamed_into(shape.split("/", 1)[0], path):
            continue
        first = next(iter(known.items()))
        for value, (seq, n) in values.items():
            if value not in known:
                ex = {"a_seq": first[1][0], "b_seq": seq, "a": first[0], "b": value}
                out.add("warning", "new enum value", shape, path, ex, n)


def compat(result: DiffResult, old: Survey, new: Survey) -> CompatReport:
    """Judge the agent-side differences of ``result``; ``old``/``new`` survey each side's agent frames
    (:func:`rpcspy.diff.shapes.survey`, with the normaliser the differ used)."""
    groups = _Groups()
    client_differs = _frames(result, old, new, groups)
    _shapes(old, new, groups)
    order = {level: i for i, level in enumerate(LEVELS)}
    ranked = sorted(groups.groups.values(), key=lambda g: (order[g.level], g.type, g.kind, g.path or ""))
    return CompatReport(result.a, result.b, ranked, client_differs, (len(old.labels), len(new.labels)))
