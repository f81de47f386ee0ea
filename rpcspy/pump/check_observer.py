"""The live checker: an observer that runs :class:`rpcspy.checker.Checker` on every frame.

Findings go back into the event stream (so the recorder writes them next to their
frame) and, with a report target, out as they happen: one line each, formatted by
:mod:`rpcspy.checker.report` (coloured on a terminal). At exit, a one-line summary goes to stderr when there
were errors. It runs in the observer process, never on the forwarding path. Agent frames take the
checker's fast lane (:meth:`rpcspy.checker.Checker.lane`) as ``feed_many`` does, with the same findings.
"""

from __future__ import annotations

import os
from collections import Counter
from dataclasses import dataclass, field
from typing import IO

from rpcspy.checker import report
from rpcspy.events import Event, Exit, Finding, Frame, Note
from rpcspy.inert import inert_line
from rpcspy.pump.hub import Emit


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

    def handle(self, event: Event, emit: Emit) -> None:
        if type(event) is Frame:  # the common case first, and nothing more when nothing was found
            found = self.checker.feed_many((event,))  # schema-clean deltas take the checker's fast lane
        elif isinstance(event, Exit):
            self._finished = True
            found = self.checker.finish(event.t, exit_code=event.code)
        elif isinstance(event, Note) and event.dropped_bytes:
            found = self.checker.gap(event.t, event.seq, event.dir, event.dropped_bytes, event.text)
        else:
            return
        if found:
            self._publish(found, emit)
        if not self._told_dialect and self.checker.dialect != "auto":
            self._told_dialect = True
            self._write(inert_line(f"rpcspy: dialect {self.checker.dialect} ({self.checker.dialect_reason})"),
                        "note")

    def tick(self, t: float, emit: Emit) -> None:
        """No traffic for a while: commands unanswered past --unanswered-after are reported now."""
        if not self._finished:
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
            line = (f"rpcspy: protocol check: {c['error']} error(s), {c['warning']} warning(s), {c['info']} info "
                    f"(dialect {self.checker.dialect}); see the recording or `rpcspy check`\n")
            try:
                os.write(self.options.summary_fd, line.encode())
            except OSError:
                pass
        if self._out is not None:
            try:
                self._out.close()
            except OSError:
                pass
