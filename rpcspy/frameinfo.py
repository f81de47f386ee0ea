"""Decoding one frame for display and filtering: what it is, without trusting it.

Frames are untrusted bytes. :func:`parse` never raises: it returns the decoded
JSON value, or :data:`NOT_JSON`. ``message_update`` frames of pi 0.73 carry two
full snapshots of the message (``partial`` and ``message``); they are decoded
through a Struct that skips both, so coalescing a long stream stays cheap.
"""

from __future__ import annotations

from typing import Any

import msgspec

from rpcspy.events import Frame
from rpcspy.framing import DECODE_ERRORS


class _NotJson:
    __slots__ = ()

    def __repr__(self) -> str:
        return "NOT_JSON"


NOT_JSON: Any = _NotJson()
"""Returned by :func:`parse` for bytes that are not one JSON value."""


class _AssistantEvent(msgspec.Struct):
    type: Any = None
    contentIndex: Any = None
    delta: Any = None
    content: Any = None
    toolCall: Any = None
    id: Any = None
    toolName: Any = None
    reason: Any = None


class _MessageUpdate(msgspec.Struct):
    type: Any = None
    assistantMessageEvent: _AssistantEvent | None = None
    usage: Any = None


_MU_PREFIX = b'{"type":"message_update"'
_mu_decoder = msgspec.json.Decoder(_MessageUpdate)
_decoder = msgspec.json.Decoder()


def parse(data: bytes) -> Any:
    """The frame's JSON value, or :data:`NOT_JSON`; message_update without snapshots."""
    if data.startswith(_MU_PREFIX):
        try:
            mu = _mu_decoder.decode(data)
        except DECODE_ERRORS:
            pass
        else:
            obj: dict[str, Any] = {"type": "message_update"}
            if mu.usage is not None:
                obj["usage"] = mu.usage
            if mu.assistantMessageEvent is not None:
                ame = mu.assistantMessageEvent
                obj["assistantMessageEvent"] = {
                    f: getattr(ame, f) for f in ame.__struct_fields__ if getattr(ame, f) is not None
                }
            return obj
    try:
        return _decoder.decode(data)
    except DECODE_ERRORS:
        return NOT_JSON


def type_of(obj: Any) -> str | None:
    """``obj["type"]`` when obj is an object with a string type (pi's frames)."""
    if isinstance(obj, dict):
        t = obj.get("type")
        if isinstance(t, str):
            return t
    return None


def label_of(obj: Any) -> str | None:
    """:func:`type_of`, or for a JSON-RPC message (ACP) its ``method`` (a ``session/update``: the
    update's kind, e.g. ``agent_message_chunk``), or ``result`` / ``error`` for a response."""
    t = type_of(obj)
    if t is None and isinstance(obj, dict) and "jsonrpc" in obj:
        return _jsonrpc_type(obj)
    return t


def _jsonrpc_type(obj: dict[str, Any]) -> str | None:
    method = obj.get("method")
    if isinstance(method, str):
        if method == "session/update":
            params = obj.get("params")
            update = params.get("update") if isinstance(params, dict) else None
            kind = update.get("sessionUpdate") if isinstance(update, dict) else None
            if isinstance(kind, str):
                return kind
        return method
    if "error" in obj:
        return "error"
    return "result" if "result" in obj else None


def type_keys(frame: Frame, obj: Any = None) -> tuple[str, ...]:
    """Names a filter's ``--type`` can match for this frame.

    The frame's ``type``; for responses also the ``command``; for message_update
    the nested event type (``text_delta``...); for extension UI requests the
    ``method``; for ACP the method, and a ``session/update``'s kind. Agent stderr is ``stderr``; anything that is not a JSON object
    with a string ``type`` is ``invalid``.
    """
    if frame.dir == "err":
        return ("stderr",)
    if obj is None:
        obj = parse(frame.data)
    t = label_of(obj)
    if t is None:
        return ("invalid",)
    keys = [t]
    if "jsonrpc" in obj and isinstance(obj.get("method"), str) and obj["method"] != t:
        keys.append(obj["method"])  # session/update and its kind
    if t == "response":
        cmd = obj.get("command")
        if isinstance(cmd, str):
            keys.append(cmd)
    elif t == "message_update":
        ame = obj.get("assistantMessageEvent")
        if isinstance(ame, dict) and isinstance(ame.get("type"), str):
            keys.append(ame["type"])
    elif t == "extension_ui_request" and isinstance(obj.get("method"), str):
        keys.append(obj["method"])
    return tuple(keys)


def decode_text(data: bytes) -> str:
    """Bytes as text for display: invalid UTF-8 shown with replacement characters."""
    return data.decode("utf-8", "replace")
