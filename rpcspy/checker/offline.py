"""Checking a recording after the fact: the checker over a stream of events or entries (pure iterators)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from operator import attrgetter
from typing import TYPE_CHECKING, Any

from rpcspy.events import Event, Exit, Finding, Frame
from rpcspy.recording.decode import TypedBlock
from rpcspy.recording.entries import events
from rpcspy.recording.format import FrameEntry

if TYPE_CHECKING:
    from rpcspy.checker.engine import Checker
    from rpcspy.checker.recording import RecordingAudit


def recording_dialect(rec: Any, *, refine: bool = True) -> tuple[str, str | None]:
    """A recording's dialect and why, from a first pass up to the agent frame that decides it (as
    ``check --dialect auto`` does); ``("auto", None)`` when no frame decides. Without ``refine``,
    a pi >= 0.84 decision is not refined (to pi-0.99) by later frames: enough to pair responses.
    The reader's problems of this pass are dropped: the next pass reads the file again and reports them."""
    from rpcspy.checker import detect_dialect

    frames = rec.frames()
    try:
        found = detect_dialect(frames, refine=refine)
    finally:
        frames.close()
    del rec.problems[:]
    return found or ("auto", None)


def with_checker(stream: Iterable[Event], dialect: str = "auto") -> Iterator[Event]:
    """Run the checker: recorded findings are dropped, fresh ones follow their frames."""
    from rpcspy.checker import Checker

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

    Frames go to :meth:`Checker.feed_many` a block at a time (entries as they are: no :class:`Frame`
    is built for a delta on the fast lane), or to :meth:`Checker.feed_block` for a reader's
    :class:`TypedBlock` (read with ``blocks(checker.frame_json)``: the JSON decoded once, in the
    reader's call). ``findings`` and ``last_t`` (the last frame's) grow as it
    goes, and the audit counts the frames; the verdicts are those of feeding each frame to :meth:`Checker.feed`.
    """

    BATCH = 1024

    def __init__(self, checker: Checker, audit: RecordingAudit) -> None:
        self.checker, self.audit = checker, audit
        self.findings: list[Finding] = []
        self.last_t = 0.0

    def others(self, blocks: Iterable[list[Any]]) -> Iterator[Any]:
        """Check the frames among ``blocks`` (lists of items, as :meth:`Recording.blocks` reads them);
        yield the other items."""
        for block in blocks:
            start = 0
            frames = (block.frame_class,) if type(block) is TypedBlock else _FRAMES
            for i in [i for i, e in enumerate(block) if type(e) not in frames]:
                if i > start:
                    self._check(block, start, i)
                yield block[i]  # after the frames before it: gap findings follow theirs
                start = i + 1
            if start < len(block):
                self._check(block, start, len(block))

    def _check(self, block: list[Any], start: int, stop: int) -> None:
        whole = start == 0 and stop == len(block)
        frames = block if whole else block[start:stop]
        if type(block) is TypedBlock:  # decoded with the frames' JSON typed, as the checker asked
            self.findings += self.checker.feed_block(block, start, stop)
        else:
            self.findings += self.checker.feed_many(frames)
        self.last_t = frames[-1].t
        audit = self.audit
        audit.frames += len(frames)
        audit.last_seq = max(audit.last_seq, max(map(_seq, frames)))
        audit.last_t = max(audit.last_t, max(map(_t, frames)))


def ends_and_notes(items: Iterable[Any]) -> Iterator[Event]:
    """What :meth:`RecordingCheck.others` hands back, as events for ``check``'s loop (the entries are the
    events; an entry of a kind this version does not know reads as a note)."""
    return events(items)


_FRAMES = (FrameEntry, Frame)
_seq, _t = attrgetter("seq"), attrgetter("t")
