"""Rich tables for a :meth:`rpcspy.stats.Stats.report`."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from rich.console import RenderableType
from rich.table import Table
from rich.text import Text

from rpcspy.inert import inert_line
from rpcspy.render.summarize import cut, human_bytes


def _n(v: Any, suffix: str = "") -> str:
    if v is None:
        return "-"
    if isinstance(v, float):
        return f"{v:,.1f}{suffix}"
    return f"{v:,}{suffix}"


def _name(s: str) -> Text:
    """A recorded name (a type, command, rule, stop reason) as a cell: inert, at most 40 characters."""
    return Text(cut(inert_line(s), 40))


def _table(title: str, *columns: str) -> Table:
    table = Table(title=title, title_justify="left", title_style="bold", header_style="bold", box=None,
                  pad_edge=False, padding=(0, 2, 0, 0))
    for i, col in enumerate(columns):
        table.add_column(col, justify="left" if i == 0 else "right", no_wrap=i == 0)
    return table


def overview(r: dict[str, Any]) -> RenderableType:
    f = r["frames"]
    mu = r["message_update"]
    lines = [
        f"duration {r['duration_s']:.3f} s",
        f"frames: {f['c2a']['count']:,} client→agent ({human_bytes(f['c2a']['bytes'])}), "
        f"{f['a2c']['count']:,} agent→client ({human_bytes(f['a2c']['bytes'])}), "
        f"{f['err']['count']:,} stderr lines ({human_bytes(f['err']['bytes'])})",
    ]
    if mu["count"]:
        lines.append(
            f"message_update: {mu['count']:,} frames, {human_bytes(mu['bytes'])}\n"
            f"  snapshots in them: partial {human_bytes(mu['partial_bytes'])}"
            f" + message {human_bytes(mu['message_bytes'])} = "
            f"{mu['snapshot_share'] * 100:.1f}% of agent output"
        )
    ex = r["exit"]
    if ex is not None:
        lines.append(f"spawn failed: {ex['spawn_failed']}" if ex.get("spawn_failed")
                     else f"exit {ex['code']}" + (f" (signal {ex['signal']})" if ex.get("signal") else ""))
    if r["unmatched_responses"]:
        lines.append(f"{r['unmatched_responses']} responses matched no command")
    return Text("\n".join(lines))


def commands(r: dict[str, Any]) -> Table | None:
    if not r["commands"]:
        return None
    t = _table("Commands (response latency)", "command", "count", "errors", "no reply", "p50 ms", "p95 ms", "max ms")
    for name, c in r["commands"].items():
        t.add_row(_name(name), _n(c["count"]), _n(c["errors"]), _n(c["unanswered"]),
                  _n(c["p50_ms"]), _n(c["p95_ms"]), _n(c["max_ms"]))
    return t


def runs(r: dict[str, Any]) -> Table | None:
    if not r["runs"]:
        return None
    title = "Prompt turns (session/prompt .. its answer)" if r.get("runs_are") == "prompt turns" else \
        "Runs (agent_start .. agent_end)"
    t = _table(title, "start s", "duration ms", "ttft ms", "messages", "tokens",
               "tokens/s", "chars", "chars/s", "stop")
    for run in r["runs"]:
        t.add_row(f"{run['start_s']:.3f}", _n(run["duration_ms"]), _n(run["ttft_ms"]), _n(run["messages"]),
                  _n(run["output_tokens"]), _n(run["tokens_per_s"]), _n(run["chars"]), _n(run["chars_per_s"]),
                  _name(_stops(run["stop_reasons"])))
    return t


def _stops(reasons: list[str]) -> str:
    """``toolUse, stop`` or ``stop×6``: the stop reasons of a run's messages, runs of repeats folded."""
    out: list[list[Any]] = []
    for reason in reasons:
        if out and out[-1][0] == reason:
            out[-1][1] += 1
        else:
            out.append([reason, 1])
    return ", ".join(f"{r}×{n}" if n > 1 else r for r, n in out) or "-"


def types(r: dict[str, Any]) -> Iterator[Table]:
    names = {"a2c": "Agent → client by type", "c2a": "Client → agent by type"}
    for d in ("a2c", "c2a"):
        per = r["types"][d]
        if not per:
            continue
        total = sum(v["bytes"] for v in per.values()) or 1
        t = _table(names[d], "type", "count", "bytes", "share")
        for name, v in per.items():
            t.add_row(_name(name), _n(v["count"]), human_bytes(v["bytes"]), f"{v['bytes'] / total * 100:.1f}%")
        yield t


def findings(r: dict[str, Any]) -> Table | None:
    fr = r["findings"]
    if not fr["total"]:
        return None
    t = _table(f"Findings ({fr['total']})", "rule", "severity", "count")
    for rule, v in fr["by_rule"].items():
        t.add_row(_name(rule), _name(v["severity"]), _n(v["count"]))
    return t


def stats_renderables(r: dict[str, Any]) -> list[RenderableType]:
    """The whole report as a list of renderables, blank lines between."""
    parts: list[RenderableType | None] = [overview(r), commands(r), runs(r), *types(r), findings(r)]
    out: list[RenderableType] = []
    for p in parts:
        if p is not None:
            if out:
                out.append(Text(""))
            out.append(p)
    if not r["findings"]["total"]:
        out += [Text(""), Text("no findings", style="dim")]
    return out
