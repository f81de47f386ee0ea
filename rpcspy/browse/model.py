"""The browser's view model (pure): rows, folding, the filter, search, findings, the frame pane.

Events go in through :meth:`BrowseModel.feed` and become rows, one per timeline
item (a streamed message is one row); a row keeps its one-line text, its
findings and the seqs of its frames, never the frames: those are read through
the ``load`` function given (the recording's index) when they are looked at.
The screen is a list of lines: rows, and under an unfolded row one line per frame.
"""

from __future__ import annotations

import json
from array import array
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from rpcspy.events import ARROWS, Event, Exit, Finding, Frame, SpawnFailed
from rpcspy.framing import DECODE_ERRORS
from rpcspy.inert import inert_json, inert_line
from rpcspy.render.acp_timeline import timeline_for
from rpcspy.render.html import worst
from rpcspy.render.items import Item
from rpcspy.render.summarize import clean, cut
from rpcspy.render.text import headline
from rpcspy.where import Where, compile_where

MAX_DETAIL_CHARS = 200_000
"""The frame pane shows at most this much of one frame."""


@dataclass(slots=True)
class Row:
    """One timeline item, kept small."""

    seq: int
    text: str
    severity: str | None
    seqs: array = field(default_factory=lambda: array("q"))
    findings: list[str] = field(default_factory=list)
    event: Event | None = None
    """For rows that are not frames (start, exit, a finding on its own): the entry, for the filter."""


def make_row(item: Item, event: Event | None = None) -> Row:
    """A row for an item; ``event`` is the entry behind a row without frames (start, exit, ...)."""
    findings = ([item.finding] if item.finding else []) + list(item.findings)
    event = item.finding if item.finding is not None else event
    return Row(item.seq, cut(headline(item).plain, 500), worst(findings) if findings else None,
               array("q", item.seqs), [inert_line(f"{f.severity} {f.rule}: ") + clean(f.message)
                                       + (inert_line(f"  ({f.path})") if f.path else "") for f in findings], event)


def frame_head(frame: Frame) -> str:
    flags = (" cr" if frame.cr else "") + ("" if frame.nl else " no-newline") + (" injected" if frame.injected else "")
    return f"#{frame.seq} {ARROWS.get(frame.dir, '?')} {frame.dir}  t={frame.t:.6f}  {len(frame.data):,} bytes{flags}"


def frame_line(frame: Frame, limit: int = 400) -> str:
    """An unfolded frame's line: its head, then the frame itself on one line (controls made visible),
    so a row's frames can be told apart without opening each."""
    size = f"{len(frame.data):,} B"
    text = clean(frame.data[: limit * 4].decode("utf-8", "replace")).replace("\t", " ").replace("\n", " ")
    return cut(f"#{frame.seq} {ARROWS.get(frame.dir, '?')} {frame.dir}  t={frame.t:.6f}  {size}  {text}", limit)


def pretty(frame: Frame) -> str:
    """A frame for reading: indented JSON, or its text as a JSON string."""
    text = frame.data.decode("utf-8", "replace")
    try:
        text = inert_json(json.dumps(json.loads(text), indent=2, ensure_ascii=False))
    except DECODE_ERRORS:  # not JSON, or nested too deeply for the stdlib
        text = inert_json(json.dumps(text, ensure_ascii=False))
    if len(text) > MAX_DETAIL_CHARS:
        text = text[:MAX_DETAIL_CHARS] + f"\n… {len(text) - MAX_DETAIL_CHARS:,} more characters"
    return text


class BrowseModel:
    """Rows of a recording and where the user is among them."""

    def __init__(self, load: Callable[[int], Frame | None], *, select: Any = None, flagged: Any = None,
                 follow: bool = False, dialect: str | None = None) -> None:
        self.load = load
        self.timeline = timeline_for(dialect, select=select, flagged=flagged)
        self.rows: list[Row] = []
        self.where: Where | None = None
        self.unfolded: set[int] = set()
        self.lines: list[tuple[int, int]] = []
        """(row index, frame seq or -1 for the row itself), in screen order."""
        self.cursor = 0
        self.top = 0
        self.follow = follow
        self.search_text = ""
        self.message = ""
        self._entries: dict[int, Event] = {}
        """Non-frame entries by seq until their row is made (the filter evaluates them)."""

    # -- input -------------------------------------------------------------------------------
    def feed(self, events: Iterable[Event], *, end: bool = False) -> int:
        """Add events (a batch read from the recording); ``end`` when no more will come for now."""
        items: list[Item] = []
        over = False
        for event in events:
            items += self.timeline.feed(event)
            if not isinstance(event, (Frame, Finding)):
                self._entries[event.seq] = event
            over = over or isinstance(event, (Exit, SpawnFailed))
        if over:  # the agent is gone: close what is open
            items += self.timeline.finish()
        elif end:
            items += self.timeline.flush()
        added = 0
        for item in items:
            entry = None if item.seqs else self._entries.pop(item.seq, None)
            if item.selected:
                self._add(make_row(item, entry))
                added += 1
        if added and self.follow:
            self.cursor = len(self.lines) - 1
        return added

    def _add(self, row: Row) -> None:
        self.rows.append(row)
        i = len(self.rows) - 1
        if self._passes(row):
            self.lines.append((i, -1))

    def _passes(self, row: Row) -> bool:
        if self.where is None:
            return True
        if row.event is not None:
            return self.where.match_event(row.event)
        for seq in row.seqs:
            frame = self.load(seq)
            if frame is not None and self.where.match_frame(frame):
                return True
        return False

    # -- the lines -----------------------------------------------------------------------------
    def _rebuild(self, keep_row: int | None) -> None:
        lines: list[tuple[int, int]] = []
        for i, row in enumerate(self.rows):
            if self.where is not None and not self._passes(row):
                continue
            lines.append((i, -1))
            if i in self.unfolded:
                lines.extend((i, s) for s in row.seqs)
        self.lines = lines
        self.cursor = 0
        if keep_row is not None:
            self.cursor = next((n for n, (r, s) in enumerate(lines) if r >= keep_row and s < 0), max(len(lines) - 1, 0))

    @property
    def current(self) -> tuple[int, int] | None:
        return self.lines[self.cursor] if self.lines else None

    def move(self, delta: int) -> None:
        self.cursor = max(0, min(len(self.lines) - 1, self.cursor + delta)) if self.lines else 0
        self.follow = self.follow and self.cursor == len(self.lines) - 1

    def home(self) -> None:
        self.move(-len(self.lines))

    def end(self) -> None:
        self.move(len(self.lines))

    def toggle(self, unfold: bool | None = None) -> None:
        """Unfold the current row into its frames, or fold it (from any of its lines)."""
        cur = self.current
        if cur is None:
            return
        i = cur[0]
        if not self.rows[i].seqs:
            return
        want = (i not in self.unfolded) if unfold is None else unfold
        if want == (i in self.unfolded):
            return
        row_line = self.cursor - (0 if cur[1] < 0 else 1 + list(self.rows[i].seqs).index(cur[1]))
        extra = [(i, s) for s in self.rows[i].seqs]
        if want:
            self.unfolded.add(i)
            self.lines[row_line + 1:row_line + 1] = extra
        else:
            self.unfolded.discard(i)
            del self.lines[row_line + 1:row_line + 1 + len(extra)]
        self.cursor = row_line

    # -- filter, search, findings ---------------------------------------------------------------
    def set_filter(self, text: str) -> bool:
        """Filter rows by a ``--where`` expression (empty clears); False, with the reason in
        :attr:`message`, when it does not compile."""
        text = text.strip()
        try:
            where = compile_where(text) if text else None
        except ValueError as exc:
            self.message = str(exc).splitlines()[0]
            return False
        keep = self.current[0] if self.current else None
        self.where = where
        self._rebuild(keep)
        self.message = f"rows matching: {len([1 for _, s in self.lines if s < 0])}" if where else "filter cleared"
        return True

    def _text_matches(self, i: int, needle: str, fold: bool) -> bool:
        row = self.rows[i]
        if needle in (row.text.lower() if fold else row.text):
            return True
        for seq in row.seqs:
            frame = self.load(seq)
            if frame is not None:
                data = frame.data.decode("utf-8", "replace")
                if needle in (data.lower() if fold else data):
                    return True
        return False

    def search(self, text: str | None = None, *, forward: bool = True) -> bool:
        """Go to the next row (or previous) whose line or frames contain ``text`` (default: the last search)."""
        if text is not None:
            self.search_text = text
        needle = self.search_text
        if not needle or not self.lines:
            return False
        fold = not any(c.isupper() for c in needle)
        needle = needle.lower() if fold else needle
        return self._seek(lambda i: self._text_matches(i, needle, fold), forward, f"no match for {self.search_text!r}")

    def next_finding(self, *, forward: bool = True) -> bool:
        return self._seek(lambda i: self.rows[i].severity is not None, forward, "no more findings")

    def _seek(self, test: Callable[[int], bool], forward: bool, missing: str) -> bool:
        n = len(self.lines)
        order = range(self.cursor + 1, n) if forward else range(self.cursor - 1, -1, -1)
        for k in order:
            i, s = self.lines[k]
            if s < 0 and test(i):
                self.cursor = k
                self.message = ""
                return True
        self.message = missing
        return False

    # -- what the screen shows --------------------------------------------------------------------
    def window(self, height: int) -> list[tuple[str, str]]:
        """The lines on screen as (style, text): the cursor kept in view."""
        height = max(height, 1)
        if self.cursor < self.top:
            self.top = self.cursor
        elif self.cursor >= self.top + height:
            self.top = self.cursor - height + 1
        self.top = max(0, min(self.top, max(len(self.lines) - height, 0)))
        out = []
        for k in range(self.top, min(len(self.lines), self.top + height)):
            i, s = self.lines[k]
            row = self.rows[i]
            if s < 0:
                mark = "▾ " if i in self.unfolded else ("▸ " if row.seqs else "  ")
                text, style = mark + row.text, f"class:sev-{row.severity}" if row.severity else ""
            else:
                frame = self.load(s)
                text = "      " + (frame_line(frame) if frame is not None else f"#{s} (not found)")
                style = "class:frame"
            out.append((style + (" class:cursor" if k == self.cursor else ""), text))
        return out

    def detail(self) -> str:
        """The frame pane: the current frame pretty-printed, or the current row's findings and frames."""
        cur = self.current
        if cur is None:
            return "(no rows)" if not self.rows else "(no rows match the filter)"
        i, s = cur
        row = self.rows[i]
        if s >= 0:
            frame = self.load(s)
            return frame_head(frame) + "\n\n" + pretty(frame) if frame is not None else f"frame #{s} not found"
        parts = [row.text.strip()]
        parts += [f"  {f}" for f in row.findings]
        if len(row.seqs) == 1:
            frame = self.load(row.seqs[0])
            if frame is not None:
                parts += ["", frame_head(frame), pretty(frame)]
        elif row.seqs:
            parts += ["", f"{len(row.seqs)} frames (#{row.seqs[0]}..#{row.seqs[-1]}): Enter unfolds them"]
        return "\n".join(parts)

    def status(self, name: str) -> str:
        """The top line: the recording, how many rows, the filter, following (messages go below)."""
        shown = len([1 for _, s in self.lines if s < 0]) if self.where else len(self.rows)
        parts = [name, f"{len(self.rows)} rows" + (f", {shown} match" if self.where else "")]
        if self.where is not None:
            parts.append(f"where {self.where.text}")
        if self.follow:
            parts.append("FOLLOW")
        return "  ·  ".join(parts)
