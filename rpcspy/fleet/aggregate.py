"""Summaries merged by group, in memory that does not grow with the recordings read (pure).

:class:`Fleet` takes :class:`~rpcspy.fleet.summary.Summary` objects one at a time and keeps,
per group (everything, or by agent version, agent or dialect), counts and merged sketches
only. Names that come from the traffic (command types, rules, versions) are capped per group
(:data:`NAME_CAP`; the rest are counted under ``(other)``), so a hostile corpus with a million
distinct command types cannot grow it either. :meth:`Fleet.rows` gives flat JSON rows (one
metric each) that load into DuckDB or pandas as they are.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Literal

from rpcspy.fleet.sketch import Sketch
from rpcspy.fleet.summary import CommandCounts, Summary

GroupBy = Literal["none", "version", "agent", "dialect"]
GROUP_BYS: tuple[GroupBy, ...] = ("none", "version", "agent", "dialect")
NAME_CAP = 1000
OTHER = "(other)"
QUANTILES = (("p50", 0.50), ("p95", 0.95), ("p99", 0.99))


def _capped(table: dict[str, Any], name: str) -> str:
    return name if name in table or len(table) < NAME_CAP else OTHER


@dataclass
class Group:
    """Everything merged for one group."""

    recordings: int = 0
    unreadable: int = 0
    frames: int = 0
    duration_s: float = 0.0
    agents: Counter[str] = field(default_factory=Counter)
    dialects: Counter[str] = field(default_factory=Counter)
    exits: Counter[str] = field(default_factory=Counter)
    commands: dict[str, CommandCounts] = field(default_factory=dict)
    ttft_ms: Sketch = field(default_factory=Sketch)
    settle_ms: Sketch = field(default_factory=Sketch)
    findings: dict[str, list[Any]] = field(default_factory=dict)
    """rule -> [severity, count, recordings]"""

    def add(self, s: Summary) -> None:
        if s.error is not None:
            self.unreadable += 1
            return
        self.recordings += 1
        self.frames += s.frames
        self.duration_s += s.duration_s
        self.agents[_capped(self.agents, f"{s.agent} {s.version}")] += 1
        self.dialects[_capped(self.dialects, s.dialect)] += 1
        self.exits[_capped(self.exits, "none" if s.exit_code is None else str(s.exit_code))] += 1
        for name, counts in s.commands.items():
            self.commands.setdefault(_capped(self.commands, name), CommandCounts()).merge(counts)
        self.ttft_ms.merge(s.ttft_ms)
        self.settle_ms.merge(s.settle_ms)
        for rule, (severity, n) in s.findings.items():
            entry = self.findings.setdefault(_capped(self.findings, rule), [severity, 0, 0])
            entry[1] += n
            entry[2] += 1


def group_key(s: Summary, by: GroupBy) -> str:
    """The group a summary belongs to."""
    if by == "version":
        return f"{s.agent} {s.version}"
    if by == "agent":
        return s.agent
    if by == "dialect":
        return s.dialect
    return "all"


def quantiles(sketch: Sketch) -> dict[str, float | None]:
    """count, p50, p95, p99 and max of a sketch, rounded to the microsecond."""
    out: dict[str, float | None] = {"count": sketch.count}
    for name, q in QUANTILES:
        v = sketch.quantile(q)
        out[name] = None if v is None else round(v, 3)
    out["max"] = round(sketch.high, 3) if sketch.count else None
    return out


class Fleet:
    """Groups of merged summaries; unreadable recordings are listed by path (capped)."""

    def __init__(self, by: GroupBy = "none") -> None:
        self.by = by
        self.groups: dict[str, Group] = {}
        self.unreadable: list[tuple[str, str]] = []

    def add(self, s: Summary) -> None:
        if s.error is not None and len(self.unreadable) < NAME_CAP:
            self.unreadable.append((s.path, s.error))
        key = group_key(s, self.by)
        self.groups.setdefault(_capped(self.groups, key), Group()).add(s)

    def rows(self) -> list[dict[str, Any]]:
        """Flat rows, one metric each: ``{"group_by", "group", "metric", "name", ...numbers}``."""
        out: list[dict[str, Any]] = []
        for key in sorted(self.groups):
            g = self.groups[key]

            def row(metric: str, name: str | None, values: dict[str, Any], key: str = key) -> None:
                out.append({"group_by": self.by, "group": key, "metric": metric, "name": name, **values})

            row("recordings", None, {"count": g.recordings, "unreadable": g.unreadable, "frames": g.frames,
                                     "duration_s": round(g.duration_s, 3)})
            for label, counter in (("agent", g.agents), ("dialect", g.dialects), ("exit", g.exits)):
                for name, n in sorted(counter.items()):
                    row(label, name, {"count": n})
            for name in sorted(g.commands):
                c = g.commands[name]
                latency = {"responses" if k == "count" else f"latency_{k}": v for k, v in quantiles(c.latency_ms).items()}
                row("command", name, {"sent": c.count, "errors": c.errors, "unanswered": c.unanswered, **latency})
            row("ttft_ms", None, dict(quantiles(g.ttft_ms)))
            row("settle_ms", None, dict(quantiles(g.settle_ms)))
            for rule in sorted(g.findings):
                severity, n, recs = g.findings[rule]
                row("finding", rule, {"severity": severity, "count": n, "recordings": recs})
        return out
