"""Findings about the recording file itself: cut short, damaged, empty, or without the agent's exit.

The pure part of the offline commands' audit: it counts the events it is shown and
is told the lines the reader skipped (:class:`rpcspy.recording.reader.Problem`);
:meth:`RecordingAudit.finish` turns that into ``recording.*`` findings.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Protocol

from rpcspy.checker.findings import Sink
from rpcspy.events import Event, Exit, Finding, Frame, SpawnFailed

MAX_LINES = 20
"""Skipped lines reported one by one; the rest as one finding."""


class SkippedLine(Protocol):
    @property
    def line(self) -> int: ...
    @property
    def reason(self) -> str: ...
    @property
    def truncated(self) -> bool: ...


class RecordingAudit:
    """Fed every event of one recording; ``finish`` gives the findings about the file."""

    def __init__(self, kind: str = "rpcspy", *, ignore: frozenset[str] = frozenset()) -> None:
        self.native = kind == "rpcspy"
        """Only rpcspy's own recordings promise an exit entry (transcripts end as they end)."""
        self.frames = 0
        self.ended = False
        self.last_seq = 0
        self.last_t = 0.0
        self._sink = Sink(ignore)

    def feed(self, event: Event) -> None:
        if isinstance(event, Frame):
            self.frames += 1
        elif isinstance(event, (Exit, SpawnFailed)):
            self.ended = True
        if not isinstance(event, Finding):
            self.last_seq = max(self.last_seq, event.seq)
            self.last_t = max(self.last_t, event.t)

    def finish(self, skipped: Sequence[SkippedLine]) -> list[Finding]:
        sink, t = self._sink, self.last_t
        for problem in skipped[:MAX_LINES]:
            if problem.truncated:
                sink.emit("recording.truncated", t, None, None,
                          f"line {problem.line} is cut short: {problem.reason}", extra={"line": problem.line})
            else:
                sink.emit("recording.unreadable_line", t, None, None,
                          f"line {problem.line} skipped: {problem.reason}", extra={"line": problem.line})
        if len(skipped) > MAX_LINES:
            sink.emit("recording.unreadable_line", t, None, None,
                      f"and {len(skipped) - MAX_LINES} more unreadable lines", extra={"more": len(skipped) - MAX_LINES})
        if not self.frames:
            sink.emit("recording.no_frames", t, None, None, "no frame in either direction")
        if self.native and not self.ended:
            sink.emit("recording.no_exit", t, None, None,
                      "no exit entry: rpcspy was killed, or the session is still running")
        found = sink.take()
        for n, finding in enumerate(found, start=self.last_seq + 1):
            finding.seq = n
        return found


def audited(kind: str, problems: Sequence[SkippedLine], stream: Iterator[Event]) -> Iterator[Event]:
    """``stream`` unchanged, then the findings about the file itself (``recording.*``), which need the
    reader's ``problems`` as they stand once the stream is read."""
    audit = RecordingAudit(kind)
    for event in stream:
        audit.feed(event)
        yield event
    yield from audit.finish(problems)
