"""The timeline of an ACP session (JSON-RPC 2.0): prompt turns, chunks coalesced, tool calls, permission dialogs.

:class:`AcpTimeline` is the :class:`~rpcspy.render.timeline.Timeline` with ACP's frames described: a
run of ``agent_message_chunk`` (``agent_thought_chunk``, ``user_message_chunk``) updates becomes one
``assistant`` (``thinking``, ``user``) item with the text joined; a ``tool_call`` and the
``tool_call_update``s right after it one tool item; requests both ways are paired with their answers
(the answer shows its latency); a permission request is a dialog with its options, a plan its
entries. :func:`timeline_for` picks the timeline a dialect needs.
"""

from __future__ import annotations

from typing import Any

from rpcspy.events import Frame
from rpcspy.frameinfo import label_of
from rpcspy.protocol.acp import PERMISSION, PROMPT, kind_of
from rpcspy.protocol.pairing import Conversation
from rpcspy.protocol.spec import spec_of
from rpcspy.render import describe
from rpcspy.render.items import Block, Item
from rpcspy.render.summarize import compact, content_text, quote
from rpcspy.render.timeline import Timeline, _Group

CHUNKS = {"agent_message_chunk": ("assistant", "assistant", "text"),
          "agent_thought_chunk": ("assistant", "thinking", "thinking"),
          "user_message_chunk": ("message", "user", "text")}
"""A chunk's sessionUpdate -> (item kind, label, block kind)."""
STATUS = {"pending": "info", "in_progress": None, "completed": "ok", "failed": "error"}


def timeline_for(dialect: str | None, **kw: Any) -> Timeline:
    """The timeline that renders ``dialect``'s sessions (``kw`` as :class:`Timeline` takes them)."""
    spec = spec_of(dialect)
    return AcpTimeline(**kw) if spec is not None and spec.jsonrpc else Timeline(dialect=dialect, **kw)


def _text(content: Any) -> str:
    """The text of one ACP content block (or a list of them)."""
    return content_text([content] if isinstance(content, dict) else content)


def _update(obj: Any) -> dict[str, Any]:
    params = obj.get("params") if isinstance(obj, dict) else None
    update = params.get("update") if isinstance(params, dict) else None
    return update if isinstance(update, dict) else {}


class AcpTimeline(Timeline):
    """A :class:`Timeline` for ACP sessions."""

    def __init__(self, **kw: Any) -> None:
        super().__init__(**kw)
        self._conv = Conversation()

    # -- coalescing -----------------------------------------------------------------------------
    def _belongs(self, g: _Group, frame: Frame, obj: Any) -> bool:
        kind = g.key[0]
        if kind in ("err",):
            return super()._belongs(g, frame, obj)
        if frame.dir != "a2c" or not isinstance(obj, dict):
            return False
        update = _update(obj)
        if kind == "chunk":
            return bool(update.get("sessionUpdate") == g.key[1])
        if kind == "tool":
            return update.get("sessionUpdate") == "tool_call_update" and bool(update.get("toolCallId") == g.key[1])
        return False

    def _grow(self, g: _Group, frame: Frame, obj: Any) -> bool:
        kind, item = g.key[0], g.item
        if kind == "err":
            return super()._grow(g, frame, obj)
        update = _update(obj)
        n = len(item.seqs)
        if kind == "chunk":
            text = _text(update.get("content"))
            block_kind = CHUNKS[g.key[1]][2]
            if item.blocks:
                item.blocks[0].text += text
            else:
                item.blocks.append(Block(block_kind, text))  # type: ignore[arg-type]
            item.summary = f"{n} chunk{'s' if n > 1 else ''}"
        elif kind == "tool" and n > 1:
            self._tool_update(item, update)
        return False

    def _tool_update(self, item: Item, update: dict[str, Any]) -> None:
        status = update.get("status")
        if isinstance(status, str):
            item.status = STATUS.get(status, item.status)  # type: ignore[assignment]
            item.summary = f"{status}  ({len(item.seqs) - 1} update{'s' if len(item.seqs) > 2 else ''})"
        text = "\n".join(_text(c.get("content")) for c in update.get("content") or [] if isinstance(c, dict))
        if not text and update.get("rawOutput") is not None:
            raw = update["rawOutput"]
            text = _text(raw.get("content")) if isinstance(raw, dict) else compact(raw, 2000)
        if text:
            item.blocks = [Block("output", text, clip=True)]

    # -- client frames ----------------------------------------------------------------------------
    def _client(self, item: Item, frame: Frame, obj: Any) -> Item:
        if not isinstance(obj, dict) or "jsonrpc" not in obj:
            return super()._client(item, frame, obj) if isinstance(obj, dict) and "type" in obj \
                else describe.invalid(item, frame.data, obj, "warning")
        kind = kind_of(obj)
        if kind == "response":
            return self._answer(item, frame, obj, "input")
        item.kind, item.label = "command", str(obj.get("method"))
        item.ref = describe.ref(obj["id"]) if "id" in obj else None
        params = obj.get("params")
        if kind == "request":
            self._conv.request("c2a", frame.seq, frame.t, obj)
        if obj.get("method") == PROMPT and isinstance(params, dict):
            item.summary = quote(content_text(params.get("prompt")))
        else:
            item.summary = compact(params, 200) if params is not None else ""
        return item

    # -- agent frames -----------------------------------------------------------------------------
    def _agent(self, item: Item, frame: Frame, obj: Any, out: list[Item]) -> None:
        if not isinstance(obj, dict) or "jsonrpc" not in obj:
            super()._agent(item, frame, obj, out)
            return
        kind = kind_of(obj)
        if kind == "response":
            self._hold(self._answer(item, frame, obj, "response"), out)
            return
        method = obj.get("method")
        params: dict[str, Any] = obj["params"] if isinstance(obj.get("params"), dict) else {}
        if kind == "request":
            self._conv.request("a2c", frame.seq, frame.t, obj)
            item.ref = describe.ref(obj["id"])
        if method == "session/update":
            self._session_update(item, frame, obj, out)
            return
        item.kind, item.label = ("dialog" if kind == "request" else "event"), str(method)
        if method == PERMISSION:
            call: dict[str, Any] = params["toolCall"] if isinstance(params.get("toolCall"), dict) else {}
            options = [o.get("name") or o.get("optionId") for o in params.get("options") or [] if isinstance(o, dict)]
            item.label = "permission?"
            item.summary = f"{quote(str(call.get('title') or call.get('toolCallId') or ''), 80)}  " \
                           f"options: {', '.join(map(str, options))}"
        else:
            item.summary = compact({k: v for k, v in params.items() if k != "sessionId"}, 200)
        self._hold(item, out)

    def _session_update(self, item: Item, frame: Frame, obj: dict[str, Any], out: list[Item]) -> None:
        update = _update(obj)
        kind = update.get("sessionUpdate")
        if kind in CHUNKS and self.coalesce:
            item.kind, item.label, _ = CHUNKS[kind]
            self._open(item, ("chunk", kind), frame, obj, out)
            return
        if kind == "tool_call":
            item.kind, item.label = "tool_start", f"tool {update.get('kind') or ''}".rstrip()
            item.ref = describe.ref(update.get("toolCallId"))
            item.summary = quote(str(update.get("title") or ""), 120)
            status = update.get("status")
            item.status = STATUS.get(status) if isinstance(status, str) else None  # type: ignore[assignment]
            self._open(item, ("tool", update.get("toolCallId")), frame, obj, out)
            return
        if kind == "tool_call_update":
            item.kind, item.label = "tool_output", "tool update"
            item.ref = describe.ref(update.get("toolCallId"))
            item.seqs = item.seqs[:1]
            self._tool_update(item, update)
            item.summary = item.summary.split("  (")[0]
        elif kind == "plan":
            entries = [e for e in update.get("entries") or [] if isinstance(e, dict)]
            item.label, item.summary = "plan", f"{len(entries)} entr{'ies' if len(entries) != 1 else 'y'}"
            item.blocks = [Block("text", "\n".join(f"[{e.get('status')}] {e.get('content')}" for e in entries))]
        elif kind in CHUNKS:  # --frames: one item per chunk
            item.kind, item.label = "delta", str(kind)
            item.summary = quote(_text(update.get("content")), 200)
        else:
            item.label = str(kind or label_of(obj))
            item.summary = compact({k: v for k, v in update.items() if k != "sessionUpdate"}, 200)
        self._hold(item, out)

    def _answer(self, item: Item, frame: Frame, obj: dict[str, Any], kind: str) -> Item:
        """A response: ``✓ session/prompt  end_turn`` paired with its request, or ``✗ METHOD  error``."""
        answer = self._conv.response(frame.dir, frame.seq, obj)
        p = answer.command
        ok = "error" not in obj
        item.kind, item.status = kind, "ok" if ok else "error"
        item.ref = describe.ref(obj.get("id"))
        item.label = ("✓ " if ok else "✗ ") + (str(p.type) if p is not None else "?")
        result = obj.get("result") if ok else obj.get("error")
        if ok and isinstance(result, dict) and "stopReason" in result:
            item.summary = str(result["stopReason"])
        elif ok and isinstance(result, dict) and isinstance(result.get("outcome"), dict):
            outcome = result["outcome"]
            item.summary = str(outcome.get("optionId") or outcome.get("outcome"))
        else:
            item.summary = compact(result, 300)
        if p is None:
            item.status = "warning" if ok else "error"
            item.summary = ("(no request waiting for it)  " + item.summary).rstrip()
        else:
            item.latency = frame.t - p.t
            if not answer.fresh:
                item.summary = f"(another response to #{p.seq})  " + item.summary
        return item
