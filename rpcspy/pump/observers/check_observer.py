"""The live checker: an observer that runs :class:`rpcspy.checker.Checker` on every frame, at its own pace.

It is a :class:`~rpcspy.pump.forward.hub.Lagging` observer: the dispatcher hands it each chunk's lines, which
it only queues, and gives it time when the recorder has nothing to do (:meth:`CheckObserver.work`), so
the check may fall behind and the recording never does. Findings go back into the event stream (the
recorder writes them after the frame they are about, as soon as they are found) and, with a report
target, out as they happen: one line each, formatted by :mod:`rpcspy.checker.report` (coloured on a
terminal). When it is more than :data:`BEHIND_FRAMES` frames or :data:`BEHIND_BYTES` bytes behind, or
still behind when the session ends, it stops and says so in a note (:func:`lag_note`): ``rpcspy check``
on the recording covers the rest. At exit, a one-line summary goes to stderr when there were errors.
Agent frames take the checker's fast lane (:meth:`rpcspy.checker.Checker.lane`) as ``feed_many`` does,
with the same findings.
"""

from __future__ import annotations

import os
from bisect import bisect_right
from collections import Counter, deque
from dataclasses import dataclass, field
from itertools import accumulate
from typing import IO, Any

from rpcspy.checker import report
from rpcspy.events import Direction, Event, Exit, Finding, Frame, Note, frames_of
from rpcspy.inert import inert_line
from rpcspy.pump.forward.hub import Emit

BEHIND_FRAMES = 1 << 18
"""The live check gives up (with a note) once this many frames wait for it..."""
BEHIND_BYTES = 32 << 20
"""... or this many bytes of frames: the backlog it holds in memory is bounded."""
WORK_BYTES = 256 << 10
"""At most about this many bytes of frames checked per :meth:`CheckObserver.work` call (and at least one
frame): with the frame budget, a slice of a few ms however large the frames, so a chunk that comes
meanwhile waits no longer for the recorder."""


def lag_note(t: float, checked: int, why: str) -> Note:
    """The note the live check leaves when it stops behind the recording: what it checked, who covers the rest."""
    return Note(0, t, "info", f"{why}: checked live up to seq {checked}; `rpcspy check` covers the rest")


@dataclass
class CheckOptions:
    """What the proxy's --check/--dialect/--report/... options ask for."""

    dialect: str = "auto"
    strict_fields: bool = False
    strict_unknown: bool = False
    ignore: frozenset[str] = frozenset()
    report: str | None = None
    """None (recorded only), "stderr", or a file path."""
    min_severity: str = "info"
    unanswered_after: float | None = None
    summary_fd: int = 2
    counts: Counter[str] = field(default_factory=Counter)


class CheckObserver:
    name = "checker"

    def __init__(self, options: CheckOptions) -> None:
        from rpcspy.checker import Checker

        self.options = options
        self.checker = Checker(dialect=options.dialect, strict_fields=options.strict_fields, ignore=options.ignore,
                               strict_unknown=options.strict_unknown,
                               unanswered_after=options.unanswered_after)
        self._out: IO[str] | None = None
        self._colour = False
        self._told_dialect = False
        self._finished = False
        self._queue: deque[tuple[Any, ...]] = deque()
        self._behind = self._bytes = 0
        self.checked = 0
        """The seq of the last frame checked."""
        self._last_t = 0.0
        self._stopped: str | None = None
        """Why the check stopped behind the recording (its note is still to be emitted), or "" once it was."""
        self.behind_frames, self.behind_bytes = BEHIND_FRAMES, BEHIND_BYTES
        if options.report:
            self._open_report(options.report)
        self._told_dialect = self._out is None  # nobody to tell

    def _open_report(self, target: str) -> None:
        if target == "stderr":
            self._out = os.fdopen(os.dup(self.options.summary_fd), "w", buffering=1, encoding="utf-8", errors="replace")
        else:
            fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o600)
            self._out = os.fdopen(fd, "w", buffering=1, encoding="utf-8")
        self._colour = self._out.isatty() and not os.environ.get("NO_COLOR") and os.environ.get("TERM") != "dumb"

    # --- taking events (at the recorder's pace: queued only) ---------------------------------
    def handle_lines(self, direction: Direction, t: float, first: int, lines: list[bytes], injected: bool) -> None:
        if self._stopped is None:
            size = sum(map(len, lines))
            self._queue.append(("lines", direction, t, first, lines, injected, size))
            self._took(len(lines), size)

    def handle_batch(self, events: list[Event]) -> None:
        if self._stopped is not None:
            return
        frames: list[Frame] = []
        for event in events:
            if type(event) is Frame:
                frames.append(event)
            elif isinstance(event, Exit) or (isinstance(event, Note) and event.dropped_bytes):
                self._frames(frames)
                frames = []
                self._queue.append(("event", event, 0))
                self._took(1, 0)
        self._frames(frames)

    def _frames(self, frames: list[Frame]) -> None:
        if frames:
            size = sum(len(f.data) for f in frames)
            self._queue.append(("frames", frames, size))
            self._took(len(frames), size)

    def _took(self, frames: int, size: int) -> None:
        self._behind += frames
        self._bytes += size
        if self._behind > self.behind_frames or self._bytes > self.behind_bytes:
            self._stopped = (f"the live check fell {self._behind:,} frames ({self._bytes:,} bytes) behind the "
                             f"recording (more than its bound of {self.behind_frames:,} frames or "
                             f"{self.behind_bytes:,} bytes) and stopped")
            self._queue.clear()
            self._behind = self._bytes = 0

    def handle(self, event: Event, emit: Emit) -> None:
        """One event, checked at once (for callers without a dispatcher)."""
        self.handle_batch([event])
        while self.behind:
            self.work(emit, 1 << 30)

    # --- working (when the dispatcher gives it time) ---------------------------------------
    @property
    def behind(self) -> int:
        """Frames queued (1 while the note saying the check stopped is still to be written)."""
        return self._behind or (1 if self._stopped else 0)

    def work(self, emit: Emit, budget: int) -> None:
        """Check about ``budget`` queued frames, at most about :data:`WORK_BYTES` of them; ``emit`` the findings
        (or the note that the check stopped)."""
        if self._stopped:
            self._give_up(self._stopped, emit)
            return
        done = size = 0
        queue = self._queue
        while queue and done < budget and size < WORK_BYTES:
            item = queue.popleft()
            kind = item[0]
            if kind == "event":
                self._event(item[1], emit)
                done += 1
                continue
            if kind == "lines":
                item = self._slice(item, budget - done, WORK_BYTES - size)
            size += item[-1]
            frames = item[1] if kind == "frames" else frames_of(item[3], item[2], item[1], item[4], item[5])
            n = len(frames)
            self._behind -= n
            self._bytes -= item[-1]
            done += n
            found = self.checker.feed_many(frames)  # schema-clean deltas take the checker's fast lane
            self.checked, self._last_t = frames[-1].seq, frames[-1].t
            if found:
                self._publish(found, emit)
            self._tell_dialect()
        if not queue:
            self._behind = self._bytes = 0

    def _slice(self, item: tuple[Any, ...], frames: int, size: int) -> tuple[Any, ...]:
        """The first lines of a queued chunk that fit in ``frames`` frames and ``size`` bytes (at least one);
        the rest goes back to the front of the queue, numbered on from there."""
        _, direction, t, first, lines, injected, nbytes = item
        ends = list(accumulate(map(len, lines)))
        take = max(1, min(frames, bisect_right(ends, size)))
        if take >= len(lines):
            return item
        self._queue.appendleft(("lines", direction, t, first + take, lines[take:], injected, nbytes - ends[take - 1]))
        return ("lines", direction, t, first, lines[:take], injected, ends[take - 1])

    def _event(self, event: Event, emit: Emit) -> None:
        self._behind -= 1
        if isinstance(event, Exit):
            self._finished = True
            found = self.checker.finish(event.t, exit_code=event.code)
        else:
            assert isinstance(event, Note)
            found = self.checker.gap(event.t, event.seq, event.dir, event.dropped_bytes, event.text)
        self._last_t = event.t
        if found:
            self._publish(found, emit)
        self._tell_dialect()

    def _tell_dialect(self) -> None:
        if not self._told_dialect and self.checker.dialect != "auto":
            self._told_dialect = True
            self._write(inert_line(f"rpcspy: dialect {self.checker.dialect} ({self.checker.dialect_reason})"),
                        "note")

    def stop(self, emit: Emit) -> None:
        """The agent exited or the session ends: if frames still wait (the grace ran out), stop here and
        say so; caught up, go on."""
        if self._stopped:
            self._give_up(self._stopped, emit)
        elif self._behind:
            self._give_up(f"the session ended with the live check {self._behind:,} frames behind the recording",
                          emit)

    def _give_up(self, why: str, emit: Emit) -> None:
        """Stop checking: the summaries of capped rules so far, and the note (once)."""
        self._queue.clear()
        self._behind = self._bytes = 0
        self._stopped = ""
        if not self._finished:
            self._finished = True
            self._publish(self.checker.summarise(self._last_t), emit)
        note = lag_note(self._last_t, self.checked, why)
        emit(note)
        self._write(f"rpcspy: {note.text}", "note")

    def tick(self, t: float, emit: Emit) -> None:
        """No traffic for a while: commands unanswered past --unanswered-after are reported now."""
        if not self._finished and not self._behind:  # behind, its clock is behind too
            self._publish(self.checker.tick(t), emit)

    def _publish(self, found: list[Finding], emit: Emit) -> None:
        for finding in found:
            self.options.counts[finding.severity] += 1
            emit(finding)
            self._report(finding)

    def _report(self, f: Finding) -> None:
        if self._out is not None and report.reported(f.severity, self.options.min_severity):
            self._write(report.live_line(f), f.severity)

    def _write(self, text: str, kind: str) -> None:
        if self._out is None:
            return
        try:
            self._out.write((report.paint(text, kind) if self._colour else text) + "\n")
        except OSError:
            self._out = None

    def flush(self) -> None:
        pass

    def close(self) -> None:
        c = self.options.counts
        if c["error"]:
            upto = f", checked live up to seq {self.checked}" if self._stopped == "" else ""
            line = (f"rpcspy: protocol check: {c['error']} error(s), {c['warning']} warning(s), {c['info']} info "
                    f"(dialect {self.checker.dialect}{upto}); see the recording or `rpcspy check`\n")
            try:
                os.write(self.options.summary_fd, line.encode())
            except OSError:
                pass
        if self._out is not None:
            try:
                self._out.close()
            except OSError:
                pass
