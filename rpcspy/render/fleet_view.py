"""Rich tables for a fleet report: :meth:`rpcspy.fleet.aggregate.Fleet.rows`, grouped."""

from __future__ import annotations

from collections.abc import Iterator
from itertools import groupby
from typing import Any

from rich.console import RenderableType
from rich.text import Text

from rpcspy.render.stats_view import _n, _table
from rpcspy.render.summarize import clean


def safe(value: Any) -> str:
    """Recorded text for the terminal: its controls made visible."""
    return clean(str(value))


def _cell(value: Any) -> Text:
    """A table cell of recorded text: never read as rich markup."""
    return Text(safe(value))


def fleet_renderables(rows: list[dict[str, Any]], unreadable: list[tuple[str, str]]) -> Iterator[RenderableType]:
    """One block of tables per group: recordings and agents, commands, runs, findings."""
    for key, grouped in groupby(rows, key=lambda r: r["group"]):
        group = list(grouped)
        by = group[0]["group_by"]
        head = next(r for r in group if r["metric"] == "recordings")
        title = "all recordings" if by == "none" else f"{by} {safe(key)}"
        agents = ", ".join(f"{safe(r['name'])} ({r['count']})" for r in group if r["metric"] == "agent")
        dialects = ", ".join(f"{safe(r['name'])} ({r['count']})" for r in group if r["metric"] == "dialect")
        exits = ", ".join(f"{safe(r['name'])} ({r['count']})" for r in group if r["metric"] == "exit")
        yield Text(f"{title}: {head['count']:,} recordings ({head['unreadable']} unreadable), "
                   f"{head['frames']:,} frames, {head['duration_s']:,.1f} s\n"
                   f"  agents: {agents or '-'}\n  dialects: {dialects or '-'}\n  exits: {exits or '-'}",
                   style="bold" if by != "none" else "")
        commands = _table("commands (response latency, ms)", "command", "sent", "errors", "no reply", "p50", "p95",
                          "p99", "max")
        for r in group:
            if r["metric"] == "command":
                commands.add_row(_cell(r["name"]), _n(r["sent"]), _n(r["errors"]), _n(r["unanswered"]),
                                 _n(r["latency_p50"]), _n(r["latency_p95"]), _n(r["latency_p99"]),
                                 _n(r["latency_max"]))
        yield commands
        runs = _table("runs (ms)", "", "count", "p50", "p95", "p99", "max")
        for metric, label in (("ttft_ms", "time to first token"), ("settle_ms", "settle (start to end)")):
            r = next(x for x in group if x["metric"] == metric)
            runs.add_row(label, _n(r["count"]), _n(r["p50"]), _n(r["p95"]), _n(r["p99"]), _n(r["max"]))
        yield runs
        findings = _table("findings", "rule", "severity", "count", "recordings")
        for r in group:
            if r["metric"] == "finding":
                findings.add_row(_cell(r["name"]), _cell(r["severity"]), _n(r["count"]), _n(r["recordings"]))
        if findings.row_count:
            yield findings
        yield Text("")
    if unreadable:
        yield Text("unreadable:\n" + "\n".join(f"  {safe(p)}: {safe(e)}" for p, e in unreadable))
