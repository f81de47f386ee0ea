"""Checking a recording after the fact: the checker over a stream of events or entries (pure iterators)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any

from rpcspy.checker.framing import KIB64
from rpcspy.events import Event, Exit, Finding, Frame
from rpcspy.recording.format import FrameEntry

if TYPE_CHECKING:
    from rpcspy.checker.engine import Checker
    from rpcspy.checker.recording import RecordingAudit


class CheckerUnavailable(RuntimeError):
    """The checker module is not part of this build."""


def with_checker(stream: Iterable[Event], dialect: str = "auto") -> Iterator[Event]:
    """Run the checker: recorded findings are dropped, fresh ones follow their frames."""
    try:
        from rpcspy.checker import Checker
    except ImportError as exc:
        raise CheckerUnavailable(f"the checker is not available: {exc}") from None
    checker = Checker(dialect=dialect)
    last_t = 0.0
    exit_code: int | None = None
    for event in stream:
        if isinstance(event, Finding):
            continue
        last_t = event.t
        if isinstance(event, Exit):
            exit_code = event.code
        yield event
        if isinstance(event, Frame):
            yield from checker.feed(event)
    yield from checker.finish(last_t, exit_code=exit_code)


class RecordingCheck:
    """One loop over a recording for ``check``: frames (entries or events) go to the checker, counted
    in the audit; every other item is handed back, in order, for the caller to handle.

    Frame entries whose JSON is a schema-clean delta take :meth:`Checker.fast` on the entry's bytes:
    no :class:`Frame` is built for them. ``findings``, ``frames`` and ``last_t`` (the last frame's) grow
    as it goes; the verdicts are those of feeding each frame to :meth:`Checker.feed`.
    """

    def __init__(self, checker: Checker, audit: RecordingAudit) -> None:
        self.checker, self.audit = checker, audit
        self.findings: list[Finding] = []
        self.frames = 0
        self.last_t = 0.0

    def others(self, items: Iterable[Any]) -> Iterator[Any]:
        """Check the frames among ``items``; yield the rest."""
        checker, findings = self.checker, self.findings
        feed, fast = checker.feed, checker.fast
        frames, last_t, top_seq, top_t = 0, self.last_t, 0, 0.0
        lane = None
        try:
            for item in items:
                kind = type(item)
                if kind is FrameEntry:
                    data = item.json
                    frame = None
                elif kind is Frame:
                    frame = item
                    data = item.data
                else:
                    yield item
                    continue
                frames += 1
                seq = item.seq
                last_t = item.t
                if seq > top_seq:
                    top_seq = seq
                if last_t > top_t:
                    top_t = last_t
                if item.dir == "a2c" and item.nl and not item.cr and 0 < len(data) <= KIB64:
                    if lane is None:
                        lane = checker.lane()
                    if lane(data) if lane is not None else fast(data, last_t, seq):
                        continue
                lane = None  # a fed frame may change the dialect
                findings += feed(frame or item.to_frame())
            findings += checker.feed_many(())  # what the fast lane left in the sink
        finally:
            audit = self.audit
            audit.frames += frames
            audit.last_seq = max(audit.last_seq, top_seq)
            audit.last_t = max(audit.last_t, top_t)
            self.frames += frames
            self.last_t = last_t
