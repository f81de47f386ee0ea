"""Rich renderables for timeline items and findings (terminal and plain text).

Layout of one item::

       1.103     #3 ← ✓ prompt #p1 (100 ms)  summary cut to the width…
                      block lines (assistant text, tool output), indented
                      ⚠ warning rule-id: finding message

Colour comes from the Console: a Console writing to a pipe has no colour
system, so the same renderables print plain text there.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from rich.console import Console, ConsoleOptions, RenderResult
from rich.text import Text

from rpcspy.events import ARROWS, Event, Finding
from rpcspy.inert import inert_line
from rpcspy.render.items import Block, Item
from rpcspy.render.summarize import clean, cut, ms
from rpcspy.render.timeline import Timeline

SEVERITY_ICONS = {"error": "✖", "warning": "⚠", "info": "ℹ"}
SEVERITY_STYLES = {"error": "bold red", "warning": "yellow", "info": "blue"}
ARROW_STYLES = {"c2a": "cyan", "a2c": "green", "err": "red"}
STATUS_STYLES = {"ok": "green", "error": "bold red", "warning": "yellow", "info": "blue"}
KIND_STYLES = {
    "command": "bold cyan", "input": "cyan", "response": "green", "event": "dim", "assistant": "bold",
    "message": "blue", "tool_start": "yellow", "tool_output": "yellow", "tool_end": "yellow",
    "bash_output": "yellow", "dialog": "bold magenta", "ui": "magenta", "delta": "dim", "stderr": "red",
    "invalid": "bold red", "start": "bold", "spawn_failed": "bold red", "eof": "dim", "exit": "bold",
    "note": "dim italic", "unknown": "dim",
}
BLOCK_STYLES = {"text": "", "thinking": "italic dim", "toolcall": "yellow", "output": "dim", "error": "red",
                "json": "dim"}
PROCESS_MARKS = {"start": "▶", "spawn_failed": "✖", "exit": "■", "eof": "∅", "note": "#", "unknown": "?"}
INDENT = 19
"""Width of ``time #seq arrow `` before the label: blocks and findings align under it."""


@dataclass(frozen=True, slots=True)
class TextOptions:
    """How much to show."""

    max_lines: int = 12
    """Lines kept of a clippable block (tool output, stderr) unless ``full``."""
    max_chars: int = 2000
    """Characters kept of a clippable block unless ``full``."""
    max_line: int = 300
    """Characters kept of each line of a clippable block (minified code on stderr) unless ``full``."""
    full: bool = False
    """Never clip blocks; headlines still fit the width."""


def _mark(item: Item) -> tuple[str, str]:
    if item.kind == "finding" and item.finding is not None:
        sev = item.finding.severity
        return SEVERITY_ICONS.get(sev, "?"), SEVERITY_STYLES.get(sev, "")
    if item.dir is not None and item.kind not in ("eof", "note"):
        return ARROWS.get(item.dir, "?"), ARROW_STYLES.get(item.dir, "")
    return PROCESS_MARKS.get(item.kind, " "), "dim"


def headline(item: Item) -> Text:
    """The item's one line: time, seq, arrow, label, ref, latency, summary."""
    text = Text(no_wrap=True, overflow="ellipsis")
    text.append(f"{item.t:9.3f} ", "dim")
    text.append(f"{'#' + str(item.seq):>6} ", "dim")
    mark, mark_style = _mark(item)
    text.append(mark + " ", mark_style)
    if item.kind == "finding" and item.finding is not None:
        f = item.finding
        text.append(inert_line(f"{f.severity} {f.rule}"), SEVERITY_STYLES.get(f.severity, ""))
        text.append(": " + clean(f.message))
        if f.frame is not None:
            text.append(inert_line(f"  (frame #{f.frame}{', ' + f.path if f.path else ''})"), "dim")
        return text
    style = KIND_STYLES.get(item.kind, "")
    if item.status and (item.kind in ("response", "event", "exit") or item.status in ("error", "warning")):
        style = STATUS_STYLES[item.status]
    text.append(clean(item.label), style)
    if item.continued:
        text.append(" (continued)", "dim")
    if item.injected:
        text.append(" (injected)", "dim")
    if item.ref is not None:
        ref = clean(item.ref)
        text.append(f" #{ref[:8] + '…' if len(ref) > 20 else ref}", "dim cyan")
    if item.latency is not None:
        text.append(f" ({ms(item.latency)})", "bold" if item.latency >= 1 else "")
    if item.summary:
        summary = clean(cut(item.summary, 2000)).replace("\n", "\\n")
        text.append("  " + summary, "dim" if item.kind in ("assistant", "stderr") else "")
    return text


def block_text(block: Block, opts: TextOptions) -> Text:
    """A block's body, clipped when it may be and ``opts`` say so."""
    body = block.text
    note = ""
    if block.clip and not opts.full:
        lines = body.split("\n")
        if len(lines) > opts.max_lines:
            note = f"… {len(lines) - opts.max_lines} more lines"
            lines = lines[: opts.max_lines]
        lines = [ln if len(ln) <= opts.max_line else ln[: opts.max_line] + f" … ({len(ln) - opts.max_line:,} more)"
                 for ln in lines]
        body = "\n".join(lines)
        if len(body) > opts.max_chars:
            note = f"… {len(block.text) - opts.max_chars} more characters"
            body = body[: opts.max_chars]
    text = Text()
    if block.title and block.kind != "toolcall":
        text.append(inert_line(block.title) + ": ", "dim")
    if block.kind == "toolcall":
        text.append("⚙ ", "yellow")
    if block.kind == "thinking":
        text.append("(thinking) ", "dim")
    text.append(clean(body.rstrip("\n")) if block.kind != "text" else clean(body), BLOCK_STYLES.get(block.kind, ""))
    if note:
        text.append("\n" + note, "dim italic")
    return text


def finding_text(f: Finding) -> Text:
    """``⚠ warning rule-id: message  (at $.path)`` for a finding shown under its item."""
    text = Text()
    text.append(inert_line(f"{SEVERITY_ICONS.get(f.severity, '?')} {f.severity} {f.rule}"),
                SEVERITY_STYLES.get(f.severity, ""))
    text.append(": " + clean(f.message))
    if f.path:
        text.append(inert_line(f"  (at {f.path})"), "dim")
    return text


class ItemView:
    """One item as a renderable: headline, blocks, findings."""

    def __init__(self, item: Item, opts: TextOptions = TextOptions()) -> None:
        self.item = item
        self.opts = opts

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        line = headline(self.item)
        line.truncate(options.max_width, overflow="ellipsis")
        yield line
        width = max(options.max_width - INDENT, 20)
        body = [block_text(b, self.opts) for b in self.item.blocks if b.text or b.kind == "toolcall"]
        body += [finding_text(f) for f in self.item.findings]
        for text in body:
            yield from indented(console, text, width)


def indented(console: Console, text: Text, width: int) -> Iterable[Text]:
    """``text`` wrapped to ``width`` and shifted right by :data:`INDENT`, no trailing blanks."""
    pad = " " * INDENT
    for line in text.wrap(console, width):
        line.rstrip()
        yield Text(pad) + line


@dataclass(slots=True)
class Counts:
    """What :func:`print_timeline` printed."""

    shown: int = 0
    hidden: int = 0
    findings: int = 0

    def line(self) -> str:
        parts = [f"{self.shown} items"]
        if self.hidden:
            parts.append(f"{self.hidden} hidden by the filter")
        parts.append(f"{self.findings} finding{'s' if self.findings != 1 else ''}")
        return "── " + " · ".join(parts)


def print_items(console: Console, items: Iterable[Item], opts: TextOptions = TextOptions(),
                counts: Counts | None = None) -> Counts:
    """Print the selected items; count what was shown and hidden."""
    counts = counts if counts is not None else Counts()
    for item in items:
        if item.selected:
            console.print(ItemView(item, opts))
            counts.shown += 1
            counts.findings += len(item.findings) + (item.finding is not None)
        else:
            counts.hidden += 1
    return counts


def print_timeline(console: Console, events: Iterable[Event], timeline: Timeline,
                   opts: TextOptions = TextOptions()) -> Counts:
    """Feed every event to ``timeline`` and print the items as they become final."""
    counts = Counts()
    for event in events:
        print_items(console, timeline.feed(event), opts, counts)
    print_items(console, timeline.finish(), opts, counts)
    return counts
