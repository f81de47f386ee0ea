"""The live view: events in, rich renderables out, for ``rpcspy repl``, ``inject`` and ``watch`` (pure).

Items come from :class:`rpcspy.render.timeline.Timeline` and print as ``rpcspy show``
prints them (findings under their frame), with one difference: an assistant
message is shown while it streams. Its headline prints when it starts, then its
text and (dimmed) thinking line by line as the deltas complete them, and when the
message ends, the rest, its tool calls and a closing summary (stop reason,
tokens, time). Tool and bash output shows as it comes too (clipped like
``rpcspy show`` clips it). :attr:`LiveView.tail` is the line still being
written, for a status bar.
"""

from __future__ import annotations

from collections.abc import Iterable

from rich.console import Console, ConsoleOptions, RenderableType, RenderResult
from rich.text import Text

from rpcspy.events import Event, Finding, Frame
from rpcspy.frameinfo import parse
from rpcspy.interactive.state import SessionState
from rpcspy.protocol.acp import looks_jsonrpc
from rpcspy.protocol.spec import ACP_V1
from rpcspy.render.items import Item
from rpcspy.render.summarize import clean
from rpcspy.render.text import (
    BLOCK_STYLES,
    INDENT,
    ItemView,
    TextOptions,
    block_text,
    finding_text,
    headline,
    indented,
)
from rpcspy.render.timeline import Timeline

_DEFAULT_OPTIONS = TextOptions()
_STREAMED = ("text", "thinking", "output")
_LIVE_KINDS = ("assistant", "tool_output", "bash_output")
"""Items shown while they grow: a streamed message, a tool's or a bash command's output."""


class Body:
    """Text under an item, indented like ``rpcspy show`` indents blocks."""

    def __init__(self, text: Text) -> None:
        self.text = text

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        yield from indented(console, self.text, max(options.max_width - INDENT, 20))


def streamed_text(kind: str, piece: str, first: bool) -> Text:
    """A piece of a streamed block, styled as its kind (thinking dimmed)."""
    text = Text()
    if kind == "thinking" and first:
        text.append("(thinking) ", "dim")
    text.append(clean(piece.removesuffix("\n")), BLOCK_STYLES.get(kind, ""))
    return text


class LiveView:
    """Feed events; print what :meth:`feed`, :meth:`flush` and :meth:`finish` return, in order."""

    def __init__(self, opts: TextOptions = _DEFAULT_OPTIONS, wrap: int = 100, show_info: bool = False) -> None:
        self.opts = opts
        self.show_info = show_info
        """Show ``info`` findings too (hidden by default: a newer agent's fields would flood the view)."""
        self.wrap = max(wrap, 20)
        """A streamed line longer than this prints before its end (at a space), not only in the tail."""
        self.timeline = Timeline()
        self._decided = False
        self.state = SessionState()
        self.tail = ""
        """The last, unfinished line of the message being streamed ("" if none)."""
        self._live: Item | None = None
        self._printed: list[int] = []
        self._lines = 0
        self._clipped = 0

    def feed(self, event: Event) -> list[RenderableType]:
        if not self._decided and isinstance(event, Frame) and event.dir in ("c2a", "a2c"):
            self._decided = True  # the first frame tells an ACP session (JSON-RPC) from pi's
            obj = parse(event.data)
            if isinstance(obj, dict) and looks_jsonrpc(obj):
                from rpcspy.render.acp_timeline import timeline_for

                self.timeline = timeline_for(ACP_V1)
        self.state.feed(event)
        if not self.show_info and isinstance(event, Finding) and event.severity == "info":
            return []
        return self._render(self.timeline.feed(event))

    def feed_all(self, events: Iterable[Event]) -> list[RenderableType]:
        """Feed a batch and flush: what a live source delivers at once."""
        out: list[RenderableType] = []
        for event in events:
            out += self.feed(event)
        return out + self.flush()

    def flush(self) -> list[RenderableType]:
        """End of a batch: release finished items, print the lines the stream completed."""
        return self._render(self.timeline.flush()) + self._progress()

    def finish(self) -> list[RenderableType]:
        """End of the session: whatever is still open, marked as cut off."""
        self.tail = ""
        return self._render(self.timeline.finish())

    # --- streaming -----------------------------------------------------------------------
    def _progress(self) -> list[RenderableType]:
        item = self.timeline.pending()
        if item is None or item.kind not in _LIVE_KINDS:
            self.tail = ""
            return []
        out: list[RenderableType] = []
        if item is not self._live:
            self._live, self._printed, self._lines, self._clipped = item, [], 0, 0
            out.append(self._headline(item))
        out += self._pieces(item, final=False)
        last = next((b for b in reversed(item.blocks) if b.kind in _STREAMED), None)
        idx = item.blocks.index(last) if last is not None else -1
        rest = last.text[self._printed[idx]:] if last is not None and idx < len(self._printed) else ""
        if self._clipped:
            rest = ""
        self.tail = clean(rest.rsplit("\n", 1)[-1])[-300:]
        return out

    def _headline(self, item: Item) -> RenderableType:
        line = headline(item)
        return _Fit(line)

    def _pieces(self, item: Item, final: bool) -> list[RenderableType]:
        """Text of streamed blocks not printed yet: whole lines (long ones at a space), or all when ``final``."""
        out: list[RenderableType] = []
        blocks = item.blocks
        for i, block in enumerate(blocks):
            if block.kind not in _STREAMED:
                continue
            while len(self._printed) <= i:
                self._printed.append(0)
            text = block.text
            done = min(self._printed[i], len(text))
            cuts: list[int] = []
            if final or any(b.text for b in blocks[i + 1:]):
                cuts.append(len(text))
            else:
                cuts.append(text.rfind("\n") + 1)
                at = max(done, cuts[0])
                while block.kind != "output" and len(text) - at > self.wrap:
                    space = text.rfind(" ", at, at + self.wrap)
                    at = space + 1 if space > at else at + self.wrap
                    cuts.append(at)
            for end in cuts:
                if end > done:
                    piece = self._clip(block.kind, text[done:end])
                    if piece:
                        out.append(Body(streamed_text(block.kind, piece, first=done == 0)))
                    done = end
            self._printed[i] = done
        return out

    def _clip(self, kind: str, piece: str) -> str:
        """Tool and bash output is clipped like ``rpcspy show`` clips it (``--full``: never)."""
        if kind != "output" or self.opts.full:
            return piece
        lines = piece.split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        room = max(self.opts.max_lines - self._lines, 0)
        self._lines += min(len(lines), room)
        self._clipped += max(len(lines) - room, 0)
        return "\n".join(ln if len(ln) <= self.opts.max_line else ln[: self.opts.max_line] + " …"
                         for ln in lines[:room])

    # --- finished items ------------------------------------------------------------------
    def _render(self, items: list[Item]) -> list[RenderableType]:
        out: list[RenderableType] = []
        for item in items:
            if item is self._live:
                out += self._close_live(item)
            else:
                out.append(ItemView(item, self.opts))
        return out

    def _close_live(self, item: Item) -> list[RenderableType]:
        out = self._pieces(item, final=True)
        if self._clipped:
            out.append(Text(" " * INDENT + f"… {self._clipped} more lines (rpcspy show --full shows them)",
                            "dim italic"))
        for block in item.blocks:
            if block.kind not in _STREAMED and (block.text or block.kind == "toolcall"):
                out.append(Body(block_text(block, self.opts)))
        for f in item.findings:
            out.append(Body(finding_text(f)))
        style = {"error": "bold red", "warning": "yellow"}.get(item.status or "", "dim")
        out.append(Text(" " * INDENT + "└ " + clean(item.summary), style, no_wrap=True, overflow="ellipsis"))
        self._live, self._printed, self.tail, self._clipped = None, [], "", 0
        return out


class _Fit:
    """One line cut to the width."""

    def __init__(self, text: Text) -> None:
        self.text = text

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        line = self.text.copy()
        line.truncate(options.max_width, overflow="ellipsis")
        yield line
