"""Finished spans as plain values: what the mapper decides and the exporter sends."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, Union

AttrValue = Union[str, int, float, bool, list[str]]
Attributes = dict[str, AttrValue]
Kind = Literal["internal", "client"]
Status = Literal["unset", "ok", "error"]


@dataclass(slots=True)
class SpanEvent:
    name: str
    time_ns: int
    attributes: Attributes = field(default_factory=dict)


@dataclass(slots=True)
class SpanRecord:
    """One finished span; times in Unix nanoseconds, ids as raw bytes (16 for the trace, 8 for spans)."""

    trace_id: bytes
    span_id: bytes
    parent_id: bytes | None
    name: str
    kind: Kind
    start_ns: int
    end_ns: int
    attributes: Attributes = field(default_factory=dict)
    events: list[SpanEvent] = field(default_factory=list)
    status: Status = "unset"
    status_message: str = ""
