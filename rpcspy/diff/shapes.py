"""What one side of a ``diff --compat`` sends: every field of every frame shape, how often, of which kinds.

A field's presence is a property of a frame *shape*, not of one frame: whether pi's usage snapshot already
holds ``reasoning`` when a ``message_update`` is written depends on when the model's usage chunk arrived, so
one delta with it and the next without says nothing about the protocol. :func:`survey` walks every frame of
one recording once and counts, per shape and field path, how many objects at that place carry the field and
which JSON kinds its values had; :mod:`rpcspy.diff.compat` then compares the two sides' counts.

* The shape of a frame is its ``type`` (all ``message_update`` subtypes share one: their ``usage`` is one
  field), except responses (``response/<command>``: each command has its own ``data``) and dialog requests
  (``extension_ui_request/<method>``).
* Objects inside a frame that carry a discriminator (``type``, else ``role``) are told apart by it, so an
  assistant message's fields are not judged against a user message's, nor a ``toolCall`` block's against a
  ``text`` block's. Paths keep the discriminator (``$.message<assistant>.model``,
  ``$.message<assistant>.content[toolCall].id``); :func:`plain` gives the path users see (``$.message.model``).
* Each frame gets a lane (:func:`lane_of`): ``deltas`` for ``message_update``; ``responses`` and ``queue``
  (``queue_update``): a response comes after its command and the queue changes when a command queues a message,
  wherever a run in progress has got to by then; one lane per tool call (by its ``toolCallId``, numbered by
  first appearance) for ``tool_execution_*``; ``main`` for the rest. The protocol orders frames within a
  lane; how lanes interleave is timing.

Pure: frames (and the normaliser the comparison uses) come in.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import msgspec

from rpcspy.diff.differ import label_of
from rpcspy.diff.jsondiff import child
from rpcspy.events import Frame
from rpcspy.framing import DECODE_ERRORS
from rpcspy.normalise.normaliser import Normaliser
from rpcspy.protocol.vocabulary import PROGRESS_UPDATES, SNAPSHOT_EVENTS, TOOL_EXECUTION_EVENTS

ENUM_KEYS = frozenset({
    "type", "role", "stopReason", "reason", "status", "disposition", "method", "command", "source", "scope",
    "origin", "api", "level", "mode", "streamingBehavior", "thinkingLevel", "steeringMode", "followUpMode",
})
"""Keys whose string values are enums for clients (a new value is a warning, not free text)."""
TOOL_FRAMES = TOOL_EXECUTION_EVENTS
STREAMED = PROGRESS_UPDATES
SNAPSHOTS = SNAPSHOT_EVENTS
"""What streaming has filled into these by the time they are written is timing."""
_DISC = re.compile(r"^[\w.:/@+-]{1,64}$")
_SUB = re.compile(r"^\$\.[\w$]+<([^<>]*)>")
_MARK = re.compile(r"<[^<>\[\]]*>|\[[^\]\"]*\]")
_IN_LABEL = frozenset({("message_update", "$.assistantMessageEvent.type"), ("message_start", "$.message.role"),
                       ("message_end", "$.message.role")})
"""Enum fields whose value is part of the frame's label: a new value is a new frame type, said once as that."""
_MAX_ENUM = 64
"""Distinct values kept per enum-like field (beyond that it is free text, not an enum)."""


@dataclass
class FieldStat:
    """One path of one shape, on one side."""

    parent: str | None
    """The path of the object holding it (None for a frame's root and for array elements)."""
    count: int = 0
    kinds: Counter[str] = field(default_factory=Counter)
    seq: int = -1
    """The frame of its first occurrence, and the value there."""
    value: Any = None
    kind_seq: dict[str, tuple[int, Any]] = field(default_factory=dict)
    """Each kind's first occurrence (frame, value)."""


@dataclass
class Survey:
    """One direction of one recording, walked once."""

    labels: list[str] = field(default_factory=list)
    """The differ's label of each frame (``response/get_state``, ``message_update/text_delta``)."""
    lanes: list[str] = field(default_factory=list)
    """Each frame's lane: ``main``, ``deltas``, ``responses``, ``queue`` or ``tool<N>``."""
    fields: dict[tuple[str, str], FieldStat] = field(default_factory=dict)
    enums: dict[tuple[str, str], dict[str, tuple[int, int]]] = field(default_factory=dict)
    """(shown type, plain path) of enum-like keys -> value -> (first frame, occurrences)."""

    def stat(self, shape: str, path: str | None) -> FieldStat | None:
        return None if path is None else self.fields.get((shape, path))

    def objects(self, shape: str, path: str | None) -> int:
        """How many objects this side had at ``path`` of ``shape``."""
        st = self.stat(shape, path)
        return 0 if st is None else st.kinds["object"]

    def has(self, shape: str, path: str | None) -> bool:
        st = self.stat(shape, path)
        return st is not None and st.count > 0


def kind_of(value: Any) -> str:
    """The JSON kind of a decoded value."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    return "array" if isinstance(value, list) else "object"


def plain(path: str) -> str:
    """A survey path as users see it: discriminators dropped, array elements as ``[]``."""
    return _MARK.sub(lambda m: "[]" if m.group(0).startswith("[") else "", path)


def shown_type(shape: str, path: str) -> str:
    """The type users see for a shape's path: ``message_start/assistant`` for ``$.message<assistant>...``."""
    if "/" in shape or path == "$":
        return shape
    m = _SUB.match(path)
    return f"{shape}/{m.group(1)}" if m is not None and m.group(1) else shape


def shape_of(value: Any) -> str:
    """A frame's shape: its type, ``response/<command>``, ``extension_ui_request/<method>``."""
    label = label_of(value)
    return label if label.startswith(("response/", "extension_ui_request/")) else label.split("/", 1)[0]


def _disc(value: Any) -> str | None:
    for key in ("type", "role"):
        d = value.get(key)
        if isinstance(d, str):
            return d if _DISC.match(d) else "?"
    return None


def lane_of(value: Any, tools: dict[str, int]) -> str:
    """The frame's lane; ``tools`` numbers this side's tool calls by first appearance."""
    if not isinstance(value, dict):
        return "main"
    typ = value.get("type")
    if typ == "message_update":
        return "deltas"
    if typ == "response":
        return "responses"
    if typ == "queue_update":
        return "queue"
    if typ in TOOL_FRAMES:
        call = value.get("toolCallId")
        if isinstance(call, str):
            return f"tool{tools.setdefault(call, len(tools))}"
    return "main"


class _Walker:
    def __init__(self, out: Survey) -> None:
        self.out = out

    def frame(self, value: Any, seq: int) -> None:
        self.shape = shape_of(value)
        self.seq = seq
        self.walk(value, "$", "$", None)

    def record(self, path: str, parent: str | None, value: Any) -> None:
        key = (self.shape, path)
        st = self.out.fields.get(key)
        if st is None:
            st = self.out.fields[key] = FieldStat(parent, seq=self.seq, value=value)
        st.count += 1
        kind = kind_of(value)
        st.kinds[kind] += 1
        if kind not in st.kind_seq:
            st.kind_seq[kind] = (self.seq, value)

    def walk(self, value: Any, path: str, shown: str, parent: str | None) -> None:
        self.record(path, parent, value)
        if isinstance(value, dict):
            for k, v in value.items():
                p, s = child(path, k), child(shown, k)
                if k in ENUM_KEYS and isinstance(v, str) and (self.shape, s) not in _IN_LABEL \
                        and not (path == "$" and k in ("type", "command", "method")):
                    self.enum(shown_type(self.shape, path), s, v)
                if isinstance(v, dict) and (d := _disc(v)) is not None:
                    self.record(p, path, v)  # the field, whichever kind of object it holds
                    self.walk(v, f"{p}<{d}>", s, None)
                else:
                    self.walk(v, p, s, path)
        elif isinstance(value, list):
            for v in value:
                d = _disc(v) if isinstance(v, dict) else None
                self.walk(v, f"{path}[{d or ''}]", f"{shown}[]", None)

    def enum(self, where: str, shown: str, value: str) -> None:
        values = self.out.enums.setdefault((where, shown), {})
        got = values.get(value)
        if got is not None:
            values[value] = (got[0], got[1] + 1)
        elif len(values) < _MAX_ENUM:
            values[value] = (self.seq, 1)


def survey(frames: Iterable[Frame], norm: Normaliser | None = None, direction: str = "a2c") -> Survey:
    """Walk one direction's frames: labels, lanes, and each shape's fields (values as ``norm`` leaves them,
    so a key ``diff --ignore`` drops is not there, and ``--usage`` numbers are tokens on both sides)."""
    out = Survey()
    walker = _Walker(out)
    tools: dict[str, int] = {}
    for frame in frames:
        if frame.dir != direction:
            continue
        try:
            raw = msgspec.json.decode(frame.data)
        except DECODE_ERRORS:
            raw = frame.data.decode("utf-8", "replace")
        out.labels.append(label_of(raw))
        out.lanes.append(lane_of(raw, tools))
        value = raw if norm is None else norm.value(raw)
        try:
            walker.frame(value, frame.seq)
        except RecursionError:  # nested too deeply to walk: its shape is not surveyed
            pass
    return out


def final_path(shape: str, path: str) -> tuple[str, str] | None:
    """Where the final message carries what a snapshot frame's ``path`` (below the snapshot) holds;
    None when ``path`` is not inside a snapshot."""
    if shape not in SNAPSHOTS:
        return None
    m = re.match(r"^\$\.(?:message(<[^<>]*>)|assistantMessageEvent<[^<>]*>\.partial(<[^<>]*>))(?=[.\[])", path)
    if m is not None:
        return "message_end", "$.message" + (m.group(1) or m.group(2) or "") + path[m.end():]
    if shape == "message_update" and path.startswith(("$.usage.", "$.usage[")):
        return "message_end", "$.message<assistant>" + path[1:]
    return None


STREAMED_INTO = tuple(f"${p}.{k}" for p in ("", ".message", ".assistantMessageEvent.partial")
                      for k in ("usage", "content"))
"""Where a snapshot frame holds what streaming fills in (plain paths): the message's content and usage.
Below these, a snapshot's values and fields differ between runs of one agent."""


def streamed_root(shape: str, shown: str) -> str | None:
    """The place streaming fills in (``$.usage``, ``$.message.content``...) that ``shown`` (a plain path)
    of a frame of ``shape`` is below; None when it is not below one."""
    if shape in SNAPSHOTS:
        for p in STREAMED_INTO:
            if shown.startswith(p) and shown[len(p):len(p) + 1] in (".", "["):
                return p
    return None


def streamed_into(shape: str, shown: str) -> bool:
    """Whether ``shown`` (a plain path) of a frame of ``shape`` is below what streaming fills in."""
    return streamed_root(shape, shown) is not None
