"""Rendering a :class:`~rpcspy.diff.compat.CompatReport` as text lines (for ``rpcspy diff --compat``)."""

from __future__ import annotations

from rpcspy.diff.compat import LEVELS, CompatReport, Group
from rpcspy.render.diff import clip

_HEADINGS = {"timing": "timing (differs between runs of one agent too; not a change):"}


def compat_lines(report: CompatReport, *, width: int = 100, max_groups: int = 200) -> list[str]:
    """The report as text lines: a summary, then per level the groups by frame type."""
    head = (f"compat {report.a} -> {report.b}: " + ", ".join(f"{report.count(level)} {level}" for level in LEVELS)
            + f" (agent frames {report.frames[0]} -> {report.frames[1]})")
    lines = [head]
    if report.client_differs:
        lines.append("note: the client frames differ too: the sessions did not run the same steps")
    shown = 0
    for level in LEVELS:
        groups = [g for g in report.groups if g.level == level]
        if not groups:
            continue
        lines.append(_HEADINGS.get(level, f"{level}:"))
        for g in groups:
            if shown >= max_groups:
                lines.append(f"  ... {len(report.groups) - shown} more group(s) (--format json has them all)")
                return lines
            shown += 1
            lines.append(group_line(g, width))
    return lines


def group_line(g: Group, width: int) -> str:
    """One group as ``  TYPE: KIND PATH xN  e.g. A#1/B#2 VALUES (present A n/m, B n/m)``."""
    where = f" {g.path}" if g.path else ""
    ex = g.example
    seqs = "/".join(f"{side.upper()}#{ex[f'{side}_seq']}" for side in ("a", "b") if f"{side}_seq" in ex)
    values = " -> ".join(clip(ex[side], max(20, width // 3)) for side in ("a", "b") if side in ex)
    present = ex.get("present")
    counts = (f" (in {present['a'][0]}/{present['a'][1]} old, {present['b'][0]}/{present['b'][1]} new)"
              if present else "")
    return f"  {g.type}: {g.kind}{where} x{g.count}  e.g. {seqs} {values}".rstrip() + counts
