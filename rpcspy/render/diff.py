"""Rendering a :class:`~rpcspy.diff.differ.DiffResult` with rich (for ``rpcspy diff``)."""

from __future__ import annotations

from typing import Any

import msgspec
from rich.console import Console
from rich.table import Table
from rich.text import Text

from rpcspy.diff.differ import DiffResult, DirectionDiff, Item
from rpcspy.diff.jsondiff import ABSENT
from rpcspy.inert import inert_json, inert_line

ARROW = {"c2a": "→", "a2c": "←", "err": "!"}


def clip(value: Any, width: int = 80) -> str:
    if value is ABSENT:
        return "(absent)"
    s = inert_json(msgspec.json.encode(value).decode())
    width = max(width, 8)
    return s if len(s) <= width else s[: width - 1] + "…"


def _summary(d: DirectionDiff) -> str:
    if d.equal:
        return "same"
    c = d.counts()
    return ", ".join(f"{n} {op}" for op, n in c.items() if n)


def _exit(code: int | None) -> Text:
    """An exit status for the table; a recording without one (cut short, a transcript) says so, never ``None``."""
    return Text("none recorded", style="dim") if code is None else Text(str(code))


def render_diff(result: DiffResult, console: Console, *, max_items: int = 50, max_changes: int = 8) -> None:
    """Summary table, then each difference with its JSON paths (A in red, B in green)."""
    console.print(Text.assemble(("A ", "bold red"), inert_line(result.a)))
    console.print(Text.assemble(("B ", "bold green"), inert_line(result.b)))
    table = Table(show_header=True, header_style="bold", box=None, pad_edge=False)
    for col in ("", "A frames", "B frames", "result"):
        table.add_column(col)
    for d in result.dirs:
        table.add_row(f"{ARROW.get(d.dir, '')} {d.dir}", str(d.a_count), str(d.b_count), _summary(d))
    table.add_row("exit", _exit(result.exit_a), _exit(result.exit_b),
                  "same" if result.exit_a == result.exit_b else "differs")
    console.print(table)
    shown = 0
    for d in result.dirs:
        for it in d.items:
            if shown >= max_items:
                left = sum(len(x.items) for x in result.dirs) - shown
                console.print(Text(f"… {left} more difference(s) (--max to show more, --format json for all)",
                                   style="dim"))
                return
            console.print(_item(d.dir, it, max_changes, console.width))
            shown += 1
    console.print(Text("same" if result.equal else "differ", style="bold green" if result.equal else "bold red"))


def _item(direction: str, it: Item, max_changes: int, width: int) -> Text:
    t = Text()
    arrow = ARROW.get(direction, "")
    if it.op == "changed":
        assert it.a is not None and it.b is not None
        t.append(f"~ {arrow} {direction} ", style="bold yellow")
        t.append(f"A#{it.a.index} seq {it.a.seq} ↔ B#{it.b.index} seq {it.b.seq}  ")
        t.append(inert_line(it.label), style="bold")
        for c in it.changes[:max_changes]:
            path = inert_line(c.path)
            room = (width - len(path) - 10) // 2
            t.append(f"\n    {path}: ")
            t.append(clip(c.a, room), style="red")
            t.append(" → ")
            t.append(clip(c.b, room), style="green")
        if len(it.changes) > max_changes:
            t.append(f"\n    … {len(it.changes) - max_changes} more path(s)", style="dim")
        return t
    side, norm, style, mark = ("B", it.b, "green", "+") if it.op == "added" else ("A", it.a, "red", "-")
    assert norm is not None
    t.append(f"{mark} {arrow} {direction} ", style=f"bold {style}")
    t.append(f"only in {side}: {side}#{norm.index} seq {norm.seq}  ")
    t.append(inert_line(it.label), style="bold")
    t.append("\n    ")
    t.append(clip(norm.value, width - 5), style=style)
    return t
