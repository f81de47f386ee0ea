"""The live checker: an observer that runs :class:`rpcspy.checker.Checker` on every frame.

Findings go back into the event stream (so the recorder writes them next to their
frame) and, with a report target, out as they happen: rich-formatted on a terminal,
one plain line each otherwise. At exit, a one-line summary goes to stderr when there
were errors. It runs in the observer process, never on the forwarding path.
"""

from __future__ import annotations

import os
from collections import Counter
from dataclasses import dataclass, field
from typing import IO

from rpcspy.events import Event, Exit, Finding, Frame, Note
from rpcspy.pump.hub import Emit


@dataclass
class CheckOptions:
    """What the proxy's --check/--dialect/--report/... options ask for."""

    dialect: str = "auto"
    strict_fields: bool = False
    ignore: frozenset[str] = frozenset()
    report: str | None = None
    """None (recorded only), "stderr", or a file path."""
    min_severity: str = "info"
    unanswered_after: float | None = None
    summary_fd: int = 2
    counts: Counter[str] = field(default_factory=Counter)


_RANK = {"error": 0, "warning": 1, "info": 2}
_STYLE = {"error": "bold red", "warning": "yellow", "info": "dim"}


class CheckObserver:
    name = "checker"

    def __init__(self, options: CheckOptions) -> None:
        from rpcspy.checker import Checker

        self.options = options
        self.checker = Checker(dialect=options.dialect, strict_fields=options.strict_fields, ignore=options.ignore,
                               unanswered_after=options.unanswered_after)
        self._out: IO[str] | None = None
        self._console = None
        self._told_dialect = False
        self._finished = False
        if options.report:
            self._open_report(options.report)

    def _open_report(self, target: str) -> None:
        if target == "stderr":
            self._out = os.fdopen(os.dup(self.options.summary_fd), "w", buffering=1, encoding="utf-8", errors="replace")
        else:
            fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o600)
            self._out = os.fdopen(fd, "w", buffering=1, encoding="utf-8")
        if self._out.isatty():
            from rich.console import Console

            self._console = Console(file=self._out, stderr=False, highlight=False, soft_wrap=True)

    def handle(self, event: Event, emit: Emit) -> None:
        if isinstance(event, Frame):
            found = self.checker.feed(event)
        elif isinstance(event, Exit):
            self._finished = True
            found = self.checker.finish(event.t, exit_code=event.code)
        elif isinstance(event, Note) and event.dropped_bytes:
            found = self.checker.gap(event.t, event.seq, event.dir, event.dropped_bytes, event.text)
        else:
            return
        self._publish(found, emit)
        if not self._told_dialect and self.checker.dialect != "auto" and self._out is not None:
            self._told_dialect = True
            self._write(f"rpcspy: dialect {self.checker.dialect} ({self.checker.dialect_reason})", "dim")

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
        if self._out is None or _RANK[f.severity] > _RANK[self.options.min_severity]:
            return
        where = f"frame {f.frame} {f.dir or ''}".rstrip()
        text = f"rpcspy: {f.severity} {f.rule} at {where} (t={f.t:.3f}s): {f.message}"
        if f.path:
            text += f" [{f.path}]"
        self._write(text, _STYLE[f.severity])

    def _write(self, text: str, style: str) -> None:
        try:
            if self._console is not None:
                self._console.print(text, style=style, markup=False)
            elif self._out is not None:
                self._out.write(text + "\n")
        except OSError:
            self._out = self._console = None

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
