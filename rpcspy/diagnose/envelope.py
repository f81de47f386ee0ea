"""Big frames read as an envelope: only the fields the tracker uses, without building the rest."""

from __future__ import annotations

from typing import Any

import msgspec

_decode = msgspec.json.decode
BIG = 1 << 20
"""Frames larger than this are read as an envelope (the fields the tracker uses), not decoded whole."""
_SCALARS = ("type", "id", "jsonrpc", "method", "command", "success", "error", "streamingBehavior",
            "protocolVersion", "willRetry", "messageCount", "messageId", "sessionSettled", "steering", "followUp",
            "reason", "title", "timeout", "targetId", "toolName", "operation", "url", "maxFrameBytes",
            "originalType", "toolCallId")


class _Envelope(msgspec.Struct):
    type: Any = msgspec.UNSET
    id: Any = msgspec.UNSET
    jsonrpc: Any = msgspec.UNSET
    method: Any = msgspec.UNSET
    command: Any = msgspec.UNSET
    success: Any = msgspec.UNSET
    error: Any = msgspec.UNSET
    streamingBehavior: Any = msgspec.UNSET
    protocolVersion: Any = msgspec.UNSET
    willRetry: Any = msgspec.UNSET
    messageCount: Any = msgspec.UNSET
    messageId: Any = msgspec.UNSET
    sessionSettled: Any = msgspec.UNSET
    steering: Any = msgspec.UNSET
    followUp: Any = msgspec.UNSET
    reason: Any = msgspec.UNSET
    title: Any = msgspec.UNSET
    timeout: Any = msgspec.UNSET
    targetId: Any = msgspec.UNSET
    toolName: Any = msgspec.UNSET
    operation: Any = msgspec.UNSET
    url: Any = msgspec.UNSET
    maxFrameBytes: Any = msgspec.UNSET
    originalType: Any = msgspec.UNSET
    toolCallId: Any = msgspec.UNSET
    message: msgspec.Raw = msgspec.Raw(b"")
    data: msgspec.Raw = msgspec.Raw(b"")


class _Role(msgspec.Struct):
    role: Any = None


class _Disposition(msgspec.Struct):
    disposition: Any = None


_envelope = msgspec.json.Decoder(_Envelope)
_shapes = (("message", msgspec.json.Decoder(_Role)), ("data", msgspec.json.Decoder(_Disposition)))
"""Built at import: a plan msgspec builds on first use is not safe to build from two threads (rpcspy/plans.py)."""


def envelope(data: bytes) -> Any:
    """A big frame as a dict of only the fields the tracker reads (``message`` and ``data`` reduced to the
    role and the disposition), without building the rest: constant work per field, not per byte kept."""
    try:
        env = _envelope.decode(data)
    except (msgspec.DecodeError, msgspec.ValidationError):
        try:
            return _decode(data)  # not an object: whatever it is, it is not a frame the tracker reads
        except msgspec.DecodeError:
            return None
    out = {k: v for k in _SCALARS if (v := getattr(env, k)) is not msgspec.UNSET}
    for name, shape in _shapes:
        raw = bytes(getattr(env, name))
        if raw:
            out[name] = msgspec.structs.asdict(shape.decode(raw)) if raw[:1] == b"{" \
                else _decode(raw) if len(raw) < 4096 else ""
    return out
