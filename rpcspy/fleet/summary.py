"""One recording reduced to what a fleet report needs: counts and mergeable sketches (pure).

:func:`summarise` reads a recording the way ``rpcspy stats`` does (its dialect detected
first, as ``check`` does, so responses pair alike) and keeps no frame: per command type its
count, errors, unanswered commands and a latency sketch; sketches of time to first token and
of settle time (a run's ``agent_start`` to ``agent_end``); findings by rule (recorded, or from
a fresh checker run); the agent and version its command line names; the exit. A summary is
small and picklable, so worker processes can hand them back to be merged.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from rpcspy.events import Event, Exit, Finding, Start
from rpcspy.fleet.sketch import Sketch, of
from rpcspy.recording.naming import agent_name, agent_version
from rpcspy.stats import Stats


@dataclass
class CommandCounts:
    """One command type across the sessions summarised."""

    count: int = 0
    errors: int = 0
    unanswered: int = 0
    latency_ms: Sketch = field(default_factory=Sketch)

    def merge(self, other: CommandCounts) -> None:
        self.count += other.count
        self.errors += other.errors
        self.unanswered += other.unanswered
        self.latency_ms.merge(other.latency_ms)


@dataclass
class Summary:
    """One recording's numbers (``error`` set, and nothing else, when it could not be read)."""

    path: str
    agent: str = "unknown"
    version: str = "unknown"
    dialect: str = "auto"
    duration_s: float = 0.0
    frames: int = 0
    commands: dict[str, CommandCounts] = field(default_factory=dict)
    ttft_ms: Sketch = field(default_factory=Sketch)
    settle_ms: Sketch = field(default_factory=Sketch)
    findings: dict[str, tuple[str, int]] = field(default_factory=dict)
    """rule -> (severity, count)"""
    exit_code: int | None = None
    error: str | None = None


def summarise(path: str, argv: list[str], dialect: str, events: Iterable[Event]) -> Summary:
    """Feed a recording's events (as ``rpcspy stats`` reads them) into one :class:`Summary`."""
    stats = Stats(dialect=dialect)
    out = Summary(path, agent=agent_name(argv), version=agent_version(argv), dialect=dialect)
    for event in events:
        stats.feed(event)
        if isinstance(event, Start) and event.argv and not argv:
            out.agent, out.version = agent_name(event.argv), agent_version(event.argv)
        elif isinstance(event, Exit):
            out.exit_code = event.code
        elif isinstance(event, Finding):
            severity, n = out.findings.get(event.rule, (event.severity, 0))
            out.findings[event.rule] = (severity, n + 1)
    report: dict[str, Any] = stats.report()
    samples = stats.samples()
    out.duration_s = float(report["duration_s"])
    out.frames = sum(int(d["count"]) for d in report["frames"].values())
    for name, c in report["commands"].items():
        out.commands[name] = CommandCounts(int(c["count"]), int(c["errors"]), int(c["unanswered"]),
                                           of(samples.get(f"latency_ms:{name}", [])))
    out.ttft_ms, out.settle_ms = of(samples["ttft_ms"]), of(samples["settle_ms"])
    return out

