"""Headlines for single frames: commands, responses, events, dialogs, messages.

Each function takes a decoded JSON object (already known to be a dict with a
string ``type``) and returns an :class:`Item` filled with label, summary,
status and blocks. Nothing here keeps state; pairing and coalescing live in
:mod:`rpcspy.render.timeline`.
"""

from __future__ import annotations

from typing import Any

from rpcspy.events import Eof, Event, Exit, Note, SpawnFailed, Start
from rpcspy.frameinfo import NOT_JSON
from rpcspy.protocol.vocabulary import DIALOGS as DIALOG_METHODS
from rpcspy.render.items import Block, Item
from rpcspy.render.summarize import compact, content_text, fields, first_line, quote


def ref(value: Any) -> str:
    """An id for display: plain when it is a simple string, else as JSON (``""``, ``5``, ``null``)."""
    if isinstance(value, str) and value and value.isprintable() and " " not in value:
        return value
    return compact(value, 40)


def command(item: Item, obj: dict[str, Any]) -> Item:
    """A client command: ``prompt  message="hi"``."""
    item.kind = "command"
    item.label = obj["type"]
    item.ref = ref(obj.get("id")) if "id" in obj else None
    item.summary = fields(obj)
    return item


def client_answer(item: Item, obj: dict[str, Any]) -> Item:
    """A client frame that answers the agent (dialog answer, host tool result)."""
    item.kind = "input"
    item.label = "answer" if obj["type"] == "extension_ui_response" else obj["type"]
    item.ref = ref(obj["id"]) if "id" in obj else None
    item.summary = fields(obj)
    return item


def response(item: Item, obj: dict[str, Any]) -> Item:
    """``✓ get_state`` with its data, or ``✗ prompt`` with the error."""
    item.kind = "response"
    cmd = obj.get("command")
    ok = obj.get("success") is True
    name = cmd if isinstance(cmd, str) else compact(cmd, 40) if "command" in obj else "?"
    item.label = ("✓ " if ok else "✗ ") + name
    item.ref = ref(obj.get("id")) if "id" in obj else None
    item.status = "ok" if ok else "error"
    if ok:
        item.summary = compact(obj["data"], 300) if "data" in obj else ""
    else:
        err = obj.get("error")
        item.summary = err if isinstance(err, str) else compact(err)
        extra = {k: v for k, v in obj.items() if k not in ("id", "type", "command", "success", "error")}
        if extra:
            item.summary += "  " + fields(extra, ())
    return item


def message(item: Item, msg: Any) -> Item:
    """A whole non-assistant message (user, system, toolResult, custom...)."""
    item.kind = "message"
    if not isinstance(msg, dict):
        item.label = "message"
        item.summary = compact(msg)
        item.status = "warning"
        return item
    role = msg.get("role")
    item.label = role if isinstance(role, str) else "message"
    if role == "system":
        sections = msg.get("sections")
        parts = []
        if isinstance(sections, dict):
            parts.append("sections: " + ", ".join(map(str, sections)))
        for key in ("toolsAdded", "toolsRemoved"):
            if isinstance(msg.get(key), list):
                parts.append(f"{key}: {len(msg[key])}")
        item.summary = "  ".join(parts)
        return item
    if role == "toolResult":
        item.label = f"tool result {msg.get('toolName', '?')}"
        item.ref = ref(msg.get("toolCallId")) if "toolCallId" in msg else None
        if msg.get("isError") is True:
            item.status = "error"
    elif role == "custom":
        item.label = f"custom {msg.get('customType', '?')}"
    elif role == "bashExecution":
        item.summary = f"$ {msg.get('command')}"
    text = content_text(msg.get("content"))
    if text:
        if "\n" in text.strip() or len(text) > 160:
            item.blocks.append(Block("output" if role == "toolResult" else "text", text, clip=role != "user"))
        else:
            item.summary = quote(text, 200)
    return item


def tool_start(item: Item, obj: dict[str, Any]) -> Item:
    item.kind = "tool_start"
    item.label = f"tool {obj.get('toolName', '?')}"
    item.ref = ref(obj["toolCallId"]) if "toolCallId" in obj else None
    item.summary = compact(obj.get("args"), 300)
    return item


def result_text(result: Any) -> str:
    """The text of a tool result or partial result (``{content, details?}``)."""
    if isinstance(result, dict):
        return content_text(result.get("content"))
    return compact(result)


def tool_end(item: Item, obj: dict[str, Any]) -> Item:
    item.kind = "tool_end"
    failed = obj.get("isError") is True
    item.label = f"tool {obj.get('toolName', '?')} {'failed' if failed else 'done'}"
    item.ref = ref(obj["toolCallId"]) if "toolCallId" in obj else None
    item.status = "error" if failed else "ok"
    text = result_text(obj.get("result"))
    if "\n" in text.strip():
        item.summary = f"{text.strip().count(chr(10)) + 1} lines"
        item.blocks.append(Block("output", text, clip=True))
    else:
        item.summary = first_line(text)
    return item


def ui_request(item: Item, obj: dict[str, Any]) -> Item:
    """An extension UI request: a dialog that waits, or a fire-and-forget update."""
    method = obj.get("method")
    item.kind = "dialog" if isinstance(method, str) and method in DIALOG_METHODS else "ui"
    item.label = f"{'dialog' if item.kind == 'dialog' else 'ui'} {method if isinstance(method, str) else '?'}"
    item.ref = ref(obj["id"]) if "id" in obj else None
    rest = {k: v for k, v in obj.items() if k not in ("type", "id", "method")}
    if method == "notify":
        level = rest.get("notifyType")
        item.status = "error" if level == "error" else "warning" if level == "warning" else None
    if method == "editor" and isinstance(rest.get("prefill"), str) and "\n" in rest["prefill"]:
        item.blocks.append(Block("text", rest.pop("prefill"), title="prefill"))
    item.summary = fields(rest, ())
    return item


def _count(items: list[Any], noun: str) -> str:
    return f"{len(items)} {noun}{'' if len(items) == 1 else 's'}"


_EVENT_SUMMARY = {
    "agent_end": lambda o: " ".join(
        [_count(o["messages"], "message") if isinstance(o.get("messages"), list) else ""]
        + (["willRetry"] if o.get("willRetry") is True else [])
    ).strip(),
    "turn_end": lambda o: (
        f"stopReason={o['message'].get('stopReason')}" if isinstance(o.get("message"), dict) else ""
    ) + (f" toolResults={len(o['toolResults'])}" if isinstance(o.get("toolResults"), list) and o["toolResults"]
         else ""),
    "entry_appended": lambda o: fields(o["entry"], ("id", "parentId", "timestamp"), 60)
    if isinstance(o.get("entry"), dict) else compact(o.get("entry")),
    "available_commands_update": lambda o: _count(o["commands"], "command")
    if isinstance(o.get("commands"), list) else fields(o),
}

_EVENT_STATUS = {"extension_error": "error", "auto_retry_start": "warning", "rpc_frame_error": "error"}


def event(item: Item, obj: dict[str, Any]) -> Item:
    """Any other agent event: its type and its fields on one line."""
    item.kind = "event"
    t = obj["type"]
    item.label = t
    try:
        item.summary = _EVENT_SUMMARY[t](obj) if t in _EVENT_SUMMARY else fields(obj)
    except (KeyError, TypeError, AttributeError):
        item.summary = fields(obj)
    item.status = _EVENT_STATUS.get(t)  # type: ignore[assignment]
    if t == "compaction_end" and obj.get("errorMessage"):
        item.status = "error"
    elif t == "auto_retry_end":
        item.status = "ok" if obj.get("success") is True else "error"
    return item


def delta(item: Item, obj: dict[str, Any]) -> Item:
    """One message_update, when deltas are not coalesced."""
    item.kind = "delta"
    ame = obj.get("assistantMessageEvent")
    if not isinstance(ame, dict):
        item.label = "message_update"
        item.summary = fields(obj)
        return item
    item.label = f"message_update {ame.get('type', '?')}"
    rest = {k: v for k, v in ame.items() if k not in ("type", "partial")}
    item.summary = fields(rest, (), 200)
    return item


_SIGNALS = {1: "SIGHUP", 2: "SIGINT", 6: "SIGABRT", 9: "SIGKILL", 13: "SIGPIPE", 15: "SIGTERM"}
_EOF_TEXT = {"c2a": "agent stdin closed", "a2c": "agent stdout closed", "err": "agent stderr closed"}


def process_event(event: Event) -> Item:
    """Process start, spawn failure, EOF, exit, notes: what rpcspy saw besides frames."""
    item = Item(kind="note", seq=event.seq, t=event.t)
    if isinstance(event, Start):
        item.kind, item.label = "start", "started"
        item.summary = f"pid {event.pid}: " + " ".join(event.argv)
    elif isinstance(event, SpawnFailed):
        item.kind, item.label, item.status = "spawn_failed", "spawn failed", "error"
        item.summary = f"{event.error} (exit {event.code})"
    elif isinstance(event, Eof):
        item.kind, item.label, item.dir = "eof", "EOF", event.dir
        item.summary = _EOF_TEXT.get(event.dir, event.dir)
    elif isinstance(event, Exit):
        item.kind, item.label = "exit", f"exit {event.code}"
        item.status = "ok" if event.code == 0 else "error"
        if event.signal:
            item.summary = f"killed by signal {event.signal} ({_SIGNALS.get(event.signal, '?')})"
    elif isinstance(event, Note):
        item.label = "note"
        item.dir = event.dir
        item.summary = event.text + (f"  ({event.dropped_bytes} bytes dropped)" if event.dropped_bytes else "")
        item.status = {"warning": "warning", "error": "error"}.get(event.level)  # type: ignore[assignment]
    else:
        item.kind, item.label = "unknown", f"{type(event).__name__}"
        item.summary = compact(getattr(event, "kind", ""))
    return item


def invalid(item: Item, data: bytes, obj: Any, status: str) -> Item:
    """A line that is not a JSON object with a string type."""
    item.kind = "invalid"
    item.status = status  # type: ignore[assignment]
    if obj is NOT_JSON:
        item.label = "not JSON"
        item.summary = quote(data.decode("utf-8", "replace"), 300)
    else:
        item.label = "no type"
        item.summary = compact(obj, 300)
    return item


def assistant_summary(item: Item, msg: Any) -> None:
    """stopReason and error of an assistant message shown frame by frame."""
    if isinstance(msg, dict):
        stop = msg.get("stopReason")
        item.summary = f"stopReason={stop}" + (f"  {quote(msg['errorMessage'])}" if msg.get("errorMessage") else "")
        if stop in ("error", "aborted"):
            item.status = "error" if stop == "error" else "warning"

