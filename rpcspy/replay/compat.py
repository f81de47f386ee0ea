"""What an agent upgrade changes for clients: the differ's alignment, each difference classified.

Two recordings of the same client steps against two agent versions (``rpcspy drive``, or
``rpcspy replay --client``) are aligned by :mod:`rpcspy.replay.differ`; every difference in
the agent's frames is then judged from a client's side:

* **breaking**: a frame type or a field gone, a type changed, an order clients rely on changed
  (the same frames, moved), a command now failing;
* **warning**: a new frame type, a new value of an enum-like field, a new event in a run, an
  optional field gone (one the old agent already left out of some frames of that type, so its
  clients cope without it: pi 1.5.2's ``responseId`` on ``message_start``, which pi 0.87.1 sent
  only when the model's first chunk came before the event);
* **safe**: a new field, a value of the same type that differs.

Differences are grouped by frame type, kind and (index-free) JSON path, with a count and one
example each. Pure: the differ's result and the frame labels come in.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Collection, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

import msgspec

from rpcspy.events import Frame
from rpcspy.replay.differ import DiffResult, Item, label_of
from rpcspy.replay.jsondiff import ABSENT, Change, changes, child

LEVELS = ("breaking", "warning", "safe")
ENUM_KEYS = frozenset({
    "type", "role", "stopReason", "reason", "status", "disposition", "method", "command", "source", "scope",
    "origin", "api", "level", "mode", "streamingBehavior", "thinkingLevel", "steeringMode", "followUpMode",
})
"""Keys whose string values are enums for clients (a new value is a warning, not free text)."""
_INDEX = re.compile(r"\[\d+\]")
_DELTAS = "message_update"
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


def _decoded(frames: Iterable[Frame], direction: str) -> Iterator[Any]:
    for frame in frames:
        if frame.dir == direction:
            try:
                yield msgspec.json.decode(frame.data)
            except (msgspec.DecodeError, UnicodeDecodeError):
                yield ""


def frame_labels(frames: Iterable[Frame], direction: str = "a2c") -> Iterable[str]:
    """The differ's label of each frame of one direction (``response/prompt``, ``agent_end``), streamed."""
    for value in _decoded(frames, direction):
        yield label_of(value)


@dataclass
class Survey:
    """One side's frame labels, and the fields it left out of some frames of a type that others carry."""

    labels: list[str]
    optional: set[tuple[str, str]]
    """(label, path) of object fields (paths through objects only) absent from some frame of that label
    where the object holding them is present: not a field the agent always sends."""


def _paths(value: Any, path: str, out: set[str]) -> set[str]:
    if isinstance(value, dict):
        out.add(path)
        for k, v in value.items():
            _paths(v, child(path, k), out)
    else:
        out.add(path)
    return out


def survey(frames: Iterable[Frame], direction: str = "a2c") -> Survey:
    """Labels and optional fields of one direction's frames (each distinct shape of a label walked once)."""
    labels: list[str] = []
    shapes: dict[str, set[frozenset[str]]] = {}
    for value in _decoded(frames, direction):
        label = label_of(value)
        labels.append(label)
        shapes.setdefault(label, set()).add(frozenset(_paths(value, "$", set())))
    optional = set()
    for label, kinds in shapes.items():
        for path in set().union(*kinds):
            parent = _parent(path)
            if parent is not None and any(parent in k and path not in k for k in kinds):
                optional.add((label, path))
    return Survey(labels, optional)


def _parent(path: str) -> str | None:
    m = _LAST_KEY.search(path)
    return None if m is None else path[:m.start()]


def _kind_of(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    return "array" if isinstance(value, list) else "object"


def _last_key(path: str) -> str | None:
    """The object key a path ends in (None when it ends in an array index)."""
    m = _LAST_KEY.search(path)
    if m is None:
        return None
    return m.group(1) if m.group(1) is not None else m.group(2)


def classify_change(label: str, c: Change) -> tuple[str, str]:
    """(level, kind) of one changed leaf of a frame present on both sides."""
    key = _last_key(c.path)
    if c.a is ABSENT or c.b is ABSENT:
        if key is None:
            return "safe", "array element added" if c.a is ABSENT else "array element removed"
        return ("safe", "new field") if c.a is ABSENT else ("breaking", "field gone")
    if label.startswith("response") and c.path == "$.success" and c.a is True and c.b is False:
        return "breaking", "command now failing"
    if _kind_of(c.a) != _kind_of(c.b):
        return "breaking", "type changed"
    if isinstance(c.b, str) and key in ENUM_KEYS:
        return "warning", "new enum value"
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


def _timing_only(labels_a: list[str], labels_b: list[str]) -> set[str]:
    """Labels whose frames keep their order once streamed deltas are set aside: a frame that only moved
    among ``message_update`` frames (a response or ``queue_update`` arriving a few deltas earlier or
    later) is timing, not an order clients can rely on."""
    def positions(labels: list[str], deltas: bool) -> dict[str, list[int]]:
        out: dict[str, list[int]] = {}
        kept = [x for x in labels if x.startswith(_DELTAS) == deltas]
        for i, x in enumerate(kept):
            out.setdefault(x, []).append(i)
        return out

    same: set[str] = set()
    for deltas in (False, True):
        pa, pb = positions(labels_a, deltas), positions(labels_b, deltas)
        same |= {label for label, where in pa.items() if pb.get(label) == where}
    return same


def compat(result: DiffResult, labels_a: Iterable[str], labels_b: Iterable[str],
           optional_a: Collection[tuple[str, str]] = ()) -> CompatReport:
    """Classify the agent-side differences of ``result``; ``labels_*`` are the a2c frame labels of each side,
    ``optional_a`` the old side's optional fields (:attr:`Survey.optional`): one of them gone is a warning."""
    labels_a, labels_b = list(labels_a), list(labels_b)
    count_a, count_b = Counter(labels_a), Counter(labels_b)
    groups: dict[tuple, Group] = {}
    timing_only = _timing_only(labels_a, labels_b)

    def add(level: str, kind: str, label: str, path: str | None, example: dict[str, Any]) -> None:
        key = (level, kind, label, path)
        g = groups.get(key)
        if g is None:
            g = groups[key] = Group(level, kind, label, path, example=example)
        g.count += 1

    def judge(label: str, c: Change, item: Item) -> None:
        level, kind = classify_change(label, c)
        if kind == "field gone" and (label, c.path) in optional_a:
            level, kind = "warning", "optional field gone"
        add(level, kind, label, _INDEX.sub("[]", c.path), _example(item, c))

    def changed(label: str, a: Any, b: Any, item: Item) -> None:
        for c in changes(a, b, align=True):
            judge(label, c, item)

    client_differs = False
    moved: dict[str, tuple[list[Item], list[Item]]] = {}
    for d in result.dirs:
        if d.dir == "c2a":
            client_differs = client_differs or not d.equal
            continue
        if d.dir != "a2c":
            continue
        for item in d.items:
            label = item.label
            if item.op == "changed":
                if item.a is not None and item.b is not None and item.a.value is not None:
                    changed(label, item.a.value, item.b.value, item)
                else:
                    for c in item.changes:
                        judge(label, c, item)
            elif item.op == "added":
                if count_a[label] == 0:
                    add("warning", "new frame type", label, None, _example(item))
                elif count_b[label] > count_a[label]:
                    add("warning", "new event", label, None, _example(item))
                elif label in timing_only:
                    moved.setdefault(label, ([], []))[1].append(item)
                else:
                    add("breaking", "order changed", label, None, _example(item))
            else:
                if count_b[label] == 0:
                    add("breaking", "frame type gone", label, None, _example(item))
                elif count_b[label] < count_a[label]:
                    add("breaking", "frame gone", label, None, _example(item))
                elif label in timing_only:
                    moved.setdefault(label, ([], []))[0].append(item)
                else:
                    add("breaking", "order changed", label, None, _example(item))
    for label, (gone, came) in moved.items():  # the same frames a few deltas away: compare them as pairs
        for x, y in zip(gone, came, strict=False):
            pair = Item("changed", label, x.a, y.b)
            add("safe", "moved among streamed deltas", label, None, _example(pair))
            if x.a is not None and y.b is not None and x.a.value is not None and y.b.value is not None:
                changed(label, x.a.value, y.b.value, pair)
    order = {level: i for i, level in enumerate(LEVELS)}
    ranked = sorted(groups.values(), key=lambda g: (order[g.level], g.type, g.kind, g.path or ""))
    return CompatReport(result.a, result.b, ranked, client_differs,
                        (sum(count_a.values()), sum(count_b.values())))


def compat_lines(report: CompatReport, *, width: int = 100, max_groups: int = 200) -> list[str]:
    """The report as text lines: a summary, then per level the groups by frame type."""
    from rpcspy.replay.diff_render import clip

    head = (f"compat {report.a} -> {report.b}: " + ", ".join(f"{report.count(level)} {level}" for level in LEVELS)
            + f" (agent frames {report.frames[0]} -> {report.frames[1]})")
    lines = [head]
    if report.client_differs:
        lines.append("note: the client frames differ too: the sessions did not run the same steps")
    shown = 0
    for level in LEVELS:
        groups = [g for g in report.groups if g.level == level]
        if not groups:
            continue
        lines.append(f"{level}:")
        for g in groups:
            if shown >= max_groups:
                lines.append(f"  ... {len(report.groups) - shown} more group(s) (--format json has them all)")
                return lines
            shown += 1
            where = f" {g.path}" if g.path else ""
            ex = g.example
            seqs = "/".join(f"{side.upper()}#{ex[f'{side}_seq']}" for side in ("a", "b") if f"{side}_seq" in ex)
            values = " -> ".join(clip(ex[side], max(20, width // 3)) for side in ("a", "b") if side in ex)
            lines.append(f"  {g.type}: {g.kind}{where} x{g.count}  e.g. {seqs} {values}".rstrip())
    return lines
