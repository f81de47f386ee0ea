"""Checking a recording after the fact: the checker over a stream of events or entries (pure iterators)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any

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

    Frames go to :meth:`Checker.feed_many` in batches (entries as they are: no :class:`Frame` is
    built for a delta on the fast lane). ``findings``, ``frames`` and ``last_t`` (the last frame's)
    grow as it goes; the verdicts are those of feeding each frame to :meth:`Checker.feed`.
    """

    BATCH = 1024

    def __init__(self, checker: Checker, audit: RecordingAudit) -> None:
        self.checker, self.audit = checker, audit
        self.findings: list[Finding] = []
        self.frames = 0
        self.last_t = 0.0

    def others(self, items: Iterable[Any]) -> Iterator[Any]:
        """Check the frames among ``items``; yield the rest."""
        batch: list[Any] = []
        size = self.BATCH
        top_seq, top_t = 0, 0.0
        try:
            for item in items:
                kind = type(item)
                if kind is FrameEntry or kind is Frame:
                    batch.append(item)
                    if item.seq > top_seq:
                        top_seq = item.seq
                    if item.t > top_t:
                        top_t = item.t
                    if len(batch) >= size:
                        self._check(batch)
                else:
                    self._check(batch)  # the frames before it first: gap findings follow theirs
                    yield item
            self._check(batch)
        finally:
            audit = self.audit
            audit.last_seq = max(audit.last_seq, top_seq)
            audit.last_t = max(audit.last_t, top_t)

    def _check(self, batch: list[Any]) -> None:
        if batch:
            self.findings += self.checker.feed_many(batch)
            self.frames += len(batch)
            self.audit.frames += len(batch)
            self.last_t = batch[-1].t
            batch.clear()
