"""Open spans and how they close into span records: ids from the session's key, times in Unix nanoseconds.

:class:`SpanBuilder` is the base of :class:`~rpcspy.otel.mapper.SpanMapper`, which decides what opens
and closes when; this module only keeps the open spans and turns them into
:class:`~rpcspy.otel.spans.SpanRecord` values. Pure: no I/O.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from rpcspy.otel import semconv as S
from rpcspy.otel.ids import TraceParent, span_id
from rpcspy.otel.spans import Attributes, Kind, SpanEvent, SpanRecord

MAX_EVENTS = 1000
"""Events kept on one span; more are counted in ``rpcspy.events_dropped``."""


@dataclass(slots=True, eq=False)
class OpenSpan:
    """A span not closed yet (``closed`` once its record was made: a span closes once)."""

    span_id: bytes
    parent: bytes | None
    name: str
    kind: Kind
    start: float
    attrs: Attributes = field(default_factory=dict)
    events: list[SpanEvent] = field(default_factory=list)
    dropped: int = 0
    closed: bool = False


class SpanBuilder:
    """The open spans of one session, innermost last, and the records of the closed ones."""

    def __init__(self, started_unix: float, parent: TraceParent | None) -> None:
        self._t0 = round(started_unix * 1e6)
        self._started = started_unix
        self._parent = parent
        self._key: bytes | None = None
        self.trace_id = b""
        self._session: OpenSpan | None = None
        self._open: list[OpenSpan] = []
        """Open spans, innermost last: where an event goes."""
        self._last_t = 0.0
        self.spans = 0
        """Spans returned so far."""

    @property
    def last_t(self) -> float:
        """The time of the latest event fed."""
        return self._last_t

    def _ns(self, t: float) -> int:
        return (self._t0 + round(t * 1e6)) * 1000

    def _span(self, kind: str, seq: int, name: str, span_kind: Kind, t: float, parent: OpenSpan | None,
              attrs: Attributes) -> OpenSpan:
        assert self._key is not None
        attrs[S.SEQ] = seq
        span = OpenSpan(span_id(self._key, kind, seq), parent.span_id if parent else None, name, span_kind, t, attrs)
        self._open.append(span)
        return span

    def _close(self, span: OpenSpan, t: float, out: list[SpanRecord], *, error: str | None = None,
               unfinished: bool = False) -> None:
        if span.closed:
            return
        span.closed = True
        if span in self._open:
            self._open.remove(span)
        if unfinished:
            span.attrs[S.UNFINISHED] = True
        if span.dropped:
            span.attrs["rpcspy.events_dropped"] = span.dropped
        parent = span.parent
        if span is self._session and self._parent is not None:
            parent = self._parent.span_id
        out.append(SpanRecord(self.trace_id, span.span_id, parent, span.name, span.kind, self._ns(span.start),
                              self._ns(max(t, span.start)), span.attrs, span.events,
                              "error" if error is not None else "unset", error or ""))
        self.spans += 1

    def _event(self, name: str, t: float, attrs: Attributes, span: OpenSpan | None = None) -> None:
        target = span or (self._open[-1] if self._open else None)
        if target is None:
            return
        if len(target.events) >= MAX_EVENTS:
            target.dropped += 1
        else:
            target.events.append(SpanEvent(name, self._ns(t), attrs))
