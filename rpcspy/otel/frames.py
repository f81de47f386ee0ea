"""An agent frame decoded for the span model (only the fields it reads, the rest skipped unparsed); the agent's name.

Most of an agent's bytes that reach the mapper are whole messages (``message_start``/``_end``,
``turn_end``, ``agent_end`` with every message of the run, ``get_messages`` answers): decoding them
into Python objects would cost more than everything else the exporter does. msgspec reads these
fields and steps over the rest; content (message blocks, tool arguments and results) is decoded
only when it is exported.
"""

from __future__ import annotations

from typing import Any

import msgspec

from rpcspy.protocol.vocabulary import MESSAGE_EDGES

_NULL = msgspec.Raw(b"null")


class _Message(msgspec.Struct):
    role: Any = None
    model: Any = None
    provider: Any = None
    usage: Any = None
    stopReason: Any = None  # noqa: N815 - the protocol's name
    responseId: Any = None  # noqa: N815
    errorMessage: Any = None  # noqa: N815
    content: msgspec.Raw = _NULL


class _Data(msgspec.Struct):
    disposition: Any = None
    sessionId: Any = None  # noqa: N815


class _Agent(msgspec.Struct):
    type: Any = None
    id: Any = msgspec.UNSET
    command: Any = msgspec.UNSET
    success: Any = None
    error: Any = None
    data: msgspec.Raw = _NULL
    message: msgspec.Raw = _NULL
    method: Any = None
    title: Any = None
    targetId: Any = None  # noqa: N815
    toolCallId: Any = None  # noqa: N815
    toolName: Any = None  # noqa: N815
    parentToolCallId: Any = msgspec.UNSET  # noqa: N815
    isError: Any = None  # noqa: N815
    willRetry: Any = None  # noqa: N815
    args: msgspec.Raw = _NULL
    result: msgspec.Raw = _NULL


_AGENT = msgspec.json.Decoder(_Agent)
_MESSAGE = msgspec.json.Decoder(_Message)
_DATA = msgspec.json.Decoder(_Data)
_ANY = msgspec.json.Decoder()
_ERRORS = (msgspec.DecodeError, UnicodeDecodeError, RecursionError, ValueError)


def _raw(value: msgspec.Raw) -> Any:
    try:
        return _ANY.decode(value)
    except _ERRORS:
        return None


def agent_frame(data: bytes, content: bool) -> dict[str, Any] | None:
    """The fields of an agent frame the mapper reads, as a dict (absent ones left out where presence
    matters); None when it is not a JSON object. ``content``: decode message content, tool arguments
    and results too."""
    try:
        f = _AGENT.decode(data)
    except (*_ERRORS, msgspec.ValidationError):
        return None
    obj: dict[str, Any] = {"type": f.type, "success": f.success, "error": f.error, "method": f.method,
                           "title": f.title, "targetId": f.targetId, "toolCallId": f.toolCallId,
                           "toolName": f.toolName, "isError": f.isError, "willRetry": f.willRetry}
    if f.id is not msgspec.UNSET:
        obj["id"] = f.id
    if f.command is not msgspec.UNSET:
        obj["command"] = f.command
    if f.parentToolCallId is not msgspec.UNSET:
        obj["parentToolCallId"] = f.parentToolCallId
    if f.type == "response" and f.data is not _NULL:
        try:
            d = _DATA.decode(f.data)
            obj["data"] = {"disposition": d.disposition, "sessionId": d.sessionId}
        except (*_ERRORS, msgspec.ValidationError):
            pass
    if f.type in MESSAGE_EDGES and f.message is not _NULL:
        try:
            m = _MESSAGE.decode(f.message)
        except (*_ERRORS, msgspec.ValidationError):
            m = None
        if m is not None:
            obj["message"] = {"role": m.role, "model": m.model, "provider": m.provider, "usage": m.usage,
                              "stopReason": m.stopReason, "responseId": m.responseId,
                              "errorMessage": m.errorMessage, "content": _raw(m.content) if content else None}
    if content:
        for name in ("args", "result"):
            raw = getattr(f, name)
            if raw is not _NULL:
                obj[name] = _raw(raw)
    return obj


