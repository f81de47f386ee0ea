"""The timeline model: events in, display items out, one event at a time (pure).

``Timeline.feed(event)`` returns the items that are final; the recording
reader (``rpcspy show``), the live proxy (``rpcspy watch``) and the REPL all
drive it the same way. Coalescing: a streamed assistant message becomes one
item holding the text its deltas built; a message_start/message_end pair, a
run of stderr lines, of tool_execution_update or of bash_execution_update
frames become one item each. A frame that does not belong to the open group
closes it, so the timeline stays in order; a message that resumes afterwards
continues in a new item marked ``continued``.

Findings follow the frame they are about (the checker emits them right after
it). The last item is therefore held back until the next frame arrives (or
:meth:`Timeline.flush` is called at the end of a batch), so its findings are
attached to it and shown inline. A finding that comes later (one the checker can
only tell at a later frame) is an item of its own.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Container
from typing import Any, Protocol, cast

from rpcspy.events import Event, Finding, Frame, Severity
from rpcspy.frameinfo import NOT_JSON, parse, type_of
from rpcspy.protocol.pairing import Pairing, is_blank
from rpcspy.protocol.spec import skips_blank_lines
from rpcspy.protocol.vocabulary import ANSWER_TYPES, MESSAGE_EVENTS, OUTPUT_UPDATES
from rpcspy.render import describe
from rpcspy.render.items import Block, Item
from rpcspy.render.stream import AssistantStream
from rpcspy.render.summarize import compact

_REMEMBER = 4096


class Selector(Protocol):
    """What the timeline needs from a filter (see :class:`rpcspy.filters.FrameFilter`)."""

    only_findings: bool

    def match_frame(self, frame: Frame, obj: Any = ..., flagged: Any = None) -> bool: ...

    def match_event(self, event: Event) -> bool: ...

    def match_finding(self, finding: Finding) -> bool: ...


class _Group:
    """An item still collecting frames."""

    __slots__ = ("item", "key", "stream")

    def __init__(self, item: Item, key: tuple[Any, ...], stream: AssistantStream | None = None) -> None:
        self.item = item
        self.key = key
        self.stream = stream


class Timeline:
    """Incremental event -> item model.

    ``coalesce=False`` gives one item per frame (``rpcspy show --frames``);
    ``keep_frames`` stores the frames in their items (HTML export);
    ``select`` marks items the filter hides as ``selected=False``;
    ``flagged`` (the seqs findings are about, from a first pass over a
    recording) lets ``select.only_findings`` keep an item whose finding comes
    only after a later frame: without it, only findings already attached count.
    ``dialect`` (as ``check`` detects it; None: unknown) tells how the agent answers (omp skips
    blank lines).
    """

    def __init__(self, *, coalesce: bool = True, keep_frames: bool = False, select: Selector | None = None,
                 flagged: Container[int] | None = None, dialect: str | None = None) -> None:
        self.coalesce = coalesce
        self.keep_frames = keep_frames
        self.select = select
        self.flagged = flagged
        self._group: _Group | None = None
        self._tail: Item | None = None
        self._pairing = Pairing()
        self._omp = skips_blank_lines(dialect)
        self._tools: dict[Any, float] = {}
        self._dialogs: dict[Any, tuple[float, Any]] = {}
        self._answered: OrderedDict[Any, None] = OrderedDict()
        self._shown: OrderedDict[int, bool] = OrderedDict()
        self._stream: AssistantStream | None = None

    # -- public API -------------------------------------------------------------------------
    def feed(self, event: Event) -> list[Item]:
        """Take one event; return the items that became final."""
        out: list[Item] = []
        if isinstance(event, Finding):
            self._on_finding(event, out)
        elif isinstance(event, Frame):
            self._on_frame(event, out)
        else:
            self._close(out)
            self._emit(self._other(event), out)
        return out

    def flush(self) -> list[Item]:
        """End of a live batch: release the held item (later findings show on their own)."""
        out: list[Item] = []
        self._release_tail(out)
        return out

    def finish(self) -> list[Item]:
        """End of the recording: close what is open (marked incomplete) and release all."""
        out: list[Item] = []
        self._close(out)
        return out

    def pending(self) -> Item | None:
        """The item still collecting frames (a message being streamed), for live display."""
        g = self._group
        if g is None:
            return None
        if g.stream is not None:
            g.stream.fill(g.item)
        return g.item

    # -- plumbing ---------------------------------------------------------------------------
    def _matched(self, frame: Frame, obj: Any) -> bool:
        return self.select is None or self.select.match_frame(frame, obj)

    def _new(self, frame: Frame, matched: bool) -> Item:
        item = Item(kind="event", seq=frame.seq, t=frame.t, dir=frame.dir, selected=matched)
        item.add_frame(frame, self.keep_frames)
        return item

    def _emit(self, item: Item, out: list[Item]) -> None:
        if self.select is not None and self.select.only_findings and item.seqs and not item.findings \
                and (self.flagged is None or not any(s in self.flagged for s in item.seqs)):
            item.selected = False
        for s in item.seqs:
            self._shown[s] = item.selected
        while len(self._shown) > _REMEMBER:
            self._shown.popitem(last=False)
        out.append(item)

    def _release_tail(self, out: list[Item]) -> None:
        if self._tail is not None:
            self._emit(self._tail, out)
            self._tail = None

    def _close(self, out: list[Item]) -> None:
        """Close the open group (its stream was interrupted) and release the tail."""
        g = self._group
        if g is not None:
            self._group = None
            if g.stream is not None:
                g.stream.fill(g.item, interrupted=True)
            g.item.incomplete = g.key[0] in ("assistant", "message")
            if g.key[0] == "message":
                g.item.summary = (g.item.summary + "  (no message_end)").lstrip()
            self._emit(g.item, out)
        self._release_tail(out)

    def _hold(self, item: Item, out: list[Item]) -> None:
        self._release_tail(out)
        self._tail = item

    # -- findings ---------------------------------------------------------------------------
    def _on_finding(self, f: Finding, out: list[Item]) -> None:
        for holder in (self._group.item if self._group else None, self._tail):
            if holder is not None and f.frame is not None and holder.seqs \
                    and holder.seqs[0] <= f.frame <= holder.seqs[-1]:
                holder.findings.append(f)
                return
        self._close(out)
        shown = self._shown.get(f.frame) if f.frame is not None else None
        if shown is None:
            shown = self.select is None or self.select.match_finding(f)
        item = Item(kind="finding", seq=f.seq, t=f.t, dir=f.dir, label=f.rule, summary=f.message,
                    status=cast(Severity, f.severity), finding=f, selected=shown)
        out.append(item)

    # -- frames ---------------------------------------------------------------------------
    def _on_frame(self, frame: Frame, out: list[Item]) -> None:
        obj = None if frame.dir == "err" else parse(frame.data)
        matched = self._matched(frame, obj)
        g = self._group
        if g is not None and self._belongs(g, frame, obj):
            g.item.add_frame(frame, self.keep_frames)
            g.item.selected = g.item.selected or matched
            if self._grow(g, frame, obj):
                self._group = None
                self._tail = g.item
            return
        self._close(out)
        item = self._new(frame, matched)
        if frame.dir == "err":
            item.kind, item.label = "stderr", "stderr"
            self._open(item, ("err",), frame, obj, out)
        elif frame.dir == "c2a":
            self._hold(self._client(item, frame, obj), out)
        else:
            self._agent(item, frame, obj, out)

    def _open(self, item: Item, key: tuple[Any, ...], frame: Frame | None, obj: Any, out: list[Item],
              stream: AssistantStream | None = None) -> None:
        """Start a group with ``frame`` in it; without coalescing it is a one-frame item."""
        self._release_tail(out)
        g = _Group(item, key, stream)
        closed = self._grow(g, frame, obj) if frame is not None else False
        if self.coalesce and not closed:
            self._group = g
        else:
            self._tail = item

    def _belongs(self, g: _Group, frame: Frame, obj: Any) -> bool:
        kind = g.key[0]
        if kind == "err":
            return frame.dir == "err"
        if frame.dir != "a2c":
            return False
        t = type_of(obj)
        if kind == "assistant":
            return t == "message_update" or (t == "message_end" and _role(obj) == "assistant")
        if kind == "message":
            return t == "message_end" and _role(obj) == g.key[1]
        if kind == "tool_execution_update":
            return t == kind and bool(_hashable(obj.get("toolCallId")) == g.key[1])
        if kind == "bash_execution_update":
            return t == kind and bool(_hashable(obj.get("id")) == g.key[1])
        return False

    def _grow(self, g: _Group, frame: Frame, obj: Any) -> bool:
        """Fold one more frame into a group; True when it was the group's last frame."""
        item = g.item
        kind = g.key[0]
        n = len(item.seqs)
        if kind == "err":
            line = frame.data.decode("utf-8", "replace")
            if item.blocks:
                item.blocks[0].text += "\n" + line
            else:
                item.blocks.append(Block("output", line, clip=True))
            item.summary = f"{n} line{'s' if n > 1 else ''}"
        elif kind == "assistant":
            assert g.stream is not None
            if obj.get("type") == "message_update":
                g.stream.update(obj.get("assistantMessageEvent"), frame.t)
                return False
            g.stream.end(obj.get("message"), frame.t)
            g.stream.fill(item)
            self._stream = None
            return True
        elif kind == "message":
            item.blocks, item.summary = [], ""
            describe.message(item, obj.get("message"))
            return True
        elif kind == "tool_execution_update":
            item.summary = f"{n} update{'s' if n > 1 else ''}"
            text = describe.result_text(obj.get("partialResult"))
            item.blocks = [Block("output", text, clip=True)] if text else []
        elif kind == "bash_execution_update":
            d = obj.get("delta")
            text = (item.blocks[0].text if item.blocks else "") + (d if isinstance(d, str) else compact(d))
            item.blocks = [Block("output", text, clip=True)]
            item.summary = f"{n} chunk{'s' if n > 1 else ''}"
        return False

    # -- client frames ----------------------------------------------------------------------
    def _client(self, item: Item, frame: Frame, obj: Any) -> Item:
        t = type_of(obj)
        if t in ANSWER_TYPES:
            describe.client_answer(item, obj)
            if t == "extension_ui_response":
                self._dialog_answer(item, obj, frame.t)
            return item
        parsed = obj is not NOT_JSON
        self._pairing.client(frame.seq, frame.t, obj, parsed=parsed, blank=not parsed and is_blank(frame.data),
                             omp=self._omp)
        if t is None:
            return describe.invalid(item, frame.data, obj, "warning")
        return describe.command(item, obj)

    def _dialog_answer(self, item: Item, obj: dict[str, Any], t: float) -> None:
        key = _hashable(obj.get("id"))
        opened = self._dialogs.pop(key, None)
        if opened is not None:
            item.latency = t - opened[0]
            timeout = opened[1]
            if isinstance(timeout, (int, float)) and item.latency * 1000 > timeout:
                item.status = "warning"
                item.summary += f"  (after the dialog's {timeout} ms timeout: ignored)"
            self._answered[key] = None
            while len(self._answered) > _REMEMBER:
                self._answered.popitem(last=False)
        elif key in self._answered:
            item.status = "warning"
            item.summary += "  (dialog already answered: ignored)"
        else:
            item.status = "warning"
            item.summary += "  (no open dialog with this id: ignored)"

    # -- agent frames -----------------------------------------------------------------------
    def _agent(self, item: Item, frame: Frame, obj: Any, out: list[Item]) -> None:
        t = type_of(obj)
        if t is None:
            self._hold(describe.invalid(item, frame.data, obj, "error"), out)
        elif t == "response":
            self._hold(self._response(item, frame.seq, obj, frame.t), out)
        elif t in MESSAGE_EVENTS:
            self._message(item, frame, obj, t, out)
        elif t == "tool_execution_start":
            self._tools[_hashable(obj.get("toolCallId"))] = frame.t
            self._hold(describe.tool_start(item, obj), out)
        elif t == "tool_execution_end":
            describe.tool_end(item, obj)
            started = self._tools.pop(_hashable(obj.get("toolCallId")), None)
            if started is not None:
                item.latency = frame.t - started
            self._hold(item, out)
        elif t in OUTPUT_UPDATES:
            id_field = "toolCallId" if t == "tool_execution_update" else "id"
            item.kind = "tool_output" if t == "tool_execution_update" else "bash_output"
            item.label = f"tool {obj.get('toolName', '?')} output" if t == "tool_execution_update" else "bash output"
            item.ref = describe.ref(obj[id_field]) if id_field in obj else None
            self._open(item, (t, _hashable(obj.get(id_field))), frame, obj, out)
        elif t == "extension_ui_request":
            describe.ui_request(item, obj)
            if item.kind == "dialog":
                self._dialogs[_hashable(obj.get("id"))] = (frame.t, obj.get("timeout"))
            self._hold(item, out)
        else:
            self._hold(describe.event(item, obj), out)

    def _response(self, item: Item, seq: int, obj: dict[str, Any], t: float) -> Item:
        describe.response(item, obj)
        answer = self._pairing.response(seq, obj)
        p = answer.command
        if p is None:
            item.status = "warning" if item.status == "ok" else item.status
            item.summary = ("(no command waiting for it)  " + item.summary).rstrip()
        else:
            item.latency = t - p.t
            if not answer.fresh:
                item.summary = f"(another response to #{p.seq})  " + item.summary
            elif answer.kind == "idless_error":
                item.summary = f"(for #{p.seq}, id not echoed)  " + item.summary
        return item

    def _message(self, item: Item, frame: Frame, obj: dict[str, Any], t: str, out: list[Item]) -> None:
        role = _role(obj)
        if not self.coalesce:
            if t == "message_update":
                self._hold(describe.delta(item, obj), out)
                return
            describe.message(item, obj.get("message"))
            item.label = f"{t} {item.label}"
            if role == "assistant":
                describe.assistant_summary(item, obj.get("message"))
            self._hold(item, out)
            return
        if role == "assistant" or t == "message_update":
            item.kind, item.label = "assistant", "assistant"
            if t == "message_start" or self._stream is None:
                self._stream = AssistantStream(frame.t)
                item.continued = t != "message_start"  # the recording starts mid-message
            else:
                item.continued = True
            self._open(item, ("assistant",), None if t == "message_start" else frame, obj, out,
                       self._stream.segment())
        elif t == "message_start":
            describe.message(item, obj.get("message"))
            self._open(item, ("message", role), None, obj, out)
        else:  # a message_end with no message_start before it
            self._hold(describe.message(item, obj.get("message")), out)

    def _other(self, event: Event) -> Item:
        item = describe.process_event(event)
        if self.select is not None:
            item.selected = self.select.match_event(event)
        return item


def _role(obj: dict[str, Any]) -> Any:
    msg = obj.get("message")
    return msg.get("role") if isinstance(msg, dict) else None


def _hashable(value: Any) -> Any:
    return value if isinstance(value, (str, int, float, bool, type(None))) else compact(value)
