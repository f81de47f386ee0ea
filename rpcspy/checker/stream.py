"""Stream integrity of one assistant message: deltas vs ``*_end`` payloads vs ``message_end``.

Blocks are tracked per ``contentIndex`` (they interleave, and pi defers
``text_end(0)`` behind a tool call's deltas and ``thinking_end`` behind text).
Deltas are kept as lists of the decoded strings and joined once at ``*_end``:
linear in the message size, whatever the number of frames.
"""

from __future__ import annotations

import json
from typing import Any

from rpcspy.checker.findings import Sink

_KINDS = {
    "text_start": ("text", 0), "text_delta": ("text", 1), "text_end": ("text", 2),
    "thinking_start": ("thinking", 0), "thinking_delta": ("thinking", 1), "thinking_end": ("thinking", 2),
    "toolcall_start": ("toolcall", 0), "toolcall_delta": ("toolcall", 1), "toolcall_end": ("toolcall", 2),
}
_CUT_SHORT = frozenset({"aborted", "error"})
"""Stop reasons after which an open block may stay unclosed (omp on abort)."""
_FINAL_KEY = {"text": "text", "thinking": "thinking"}
_CONTENT_TYPE = {"text": "text", "thinking": "thinking", "toolcall": "toolCall"}
RECEIVED = "\n\nReceived arguments:\n"
"""pi >= 0.99 ends a tool call's ``argumentsError`` with this and the raw argument text (protocol-notes 12)."""
_ESCAPES = frozenset('"\\/bfnrtu')
_HEX = frozenset("0123456789abcdefABCDEF")


def repair_json(text: str) -> str:
    """pi's ``repairJson`` (pi-ai ``utils/json-parse``): inside strings, escape raw control characters and
    double a backslash before a character that cannot follow it."""
    out: list[str] = []
    in_string = False
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if not in_string or ch == '"':
            in_string = in_string != (ch == '"')
            out.append(ch)
        elif ch == "\\":
            nxt = text[i + 1] if i + 1 < n else ""
            if nxt == "u" and len(text) >= i + 6 and all(c in _HEX for c in text[i + 2:i + 6]):
                out.append(text[i:i + 6])
                i += 6
                continue
            if nxt and nxt in _ESCAPES:
                out.append(text[i:i + 2])
                i += 2
                continue
            out.append("\\\\")
        elif ord(ch) < 0x20:
            out.append(json.dumps(ch)[1:-1])
        else:
            out.append(ch)
        i += 1
    return "".join(out)


def parse_arguments(text: str) -> Any:
    """The arguments as pi parses them: JSON, else JSON after :func:`repair_json`; ValueError when neither."""
    try:
        return json.loads(text)
    except ValueError as exc:
        repaired = repair_json(text)
        if repaired == text:
            raise
        try:
            return json.loads(repaired)
        except ValueError:
            raise exc from None


class Block:
    __slots__ = ("kind", "delta_type", "seq", "pieces", "closed", "final", "call_id", "call_name")

    def __init__(self, kind: str, seq: int) -> None:
        self.kind, self.seq = kind, seq
        self.delta_type = f"{kind}_delta"
        self.pieces: list[str] = []
        self.closed = False
        self.final: Any = None
        self.call_id: Any = None
        self.call_name: Any = None


def _short(text: str, n: int = 40) -> str:
    return repr(text if len(text) <= n else text[:n] + "…")


def _first_difference(a: str, b: str) -> int:
    n = min(len(a), len(b))
    for i in range(n):
        if a[i] != b[i]:
            return i
    return n


class StreamTracker:
    """Checks the ``assistantMessageEvent``s of the assistant message in progress."""

    def __init__(self, sink: Sink) -> None:
        self.sink = sink
        self.blocks: dict[int, Block] = {}
        self.active = False

    def begin(self) -> None:
        self.blocks = {}
        self.active = True

    def stop(self) -> None:
        """Forget the message (cut off, or resynchronising after lost events)."""
        self.blocks = {}
        self.active = False

    def event(self, t: float, seq: int, ame: Any) -> None:
        if not self.active or type(ame) is not dict:
            return
        etype = ame.get("type")
        ci = ame.get("contentIndex")
        block = self.blocks.get(ci) if type(ci) is int else None
        if block is not None and etype == block.delta_type and not block.closed:  # fast path: a delta
            delta = ame.get("delta")
            if type(delta) is str:
                block.pieces.append(delta)
            return
        self._event(t, seq, ame, etype, ci, block)

    def _event(self, t: float, seq: int, ame: dict[str, Any], etype: Any, ci: Any, block: Block | None) -> None:
        kind_step = _KINDS.get(etype) if type(etype) is str else None
        if kind_step is None or type(ci) is not int:
            return  # start/done/error or malformed: the schema rules report those
        kind, step = kind_step
        name = etype
        if step == 0:
            if block is not None:
                self._order(t, seq, f"second `{name}` for contentIndex {ci} (first at frame {block.seq})", block.seq)
                return
            if ci != len(self.blocks):
                self._order(t, seq, f"`{name}` opens contentIndex {ci} but {len(self.blocks)} block(s) "
                            f"were started so far (expected {len(self.blocks)})", None)
            block = self.blocks[ci] = Block(kind, seq)
            if kind == "toolcall":
                block.call_id, block.call_name = ame.get("id"), ame.get("toolName")
            return
        if block is None:
            self._order(t, seq, f"`{name}` for contentIndex {ci}, which was never started", None)
            return
        if block.kind != kind:
            self._order(t, seq, f"`{name}` for contentIndex {ci}, which is a {block.kind} block", block.seq)
            return
        if block.closed:
            self._order(t, seq, f"`{name}` for contentIndex {ci} after its `{kind}_end`", block.seq)
            return
        if step == 1:
            delta = ame.get("delta")
            if isinstance(delta, str):
                block.pieces.append(delta)
            return
        block.closed = True
        if kind == "toolcall":
            self._toolcall_end(t, seq, ci, block, ame.get("toolCall"))
        else:
            self._text_end(t, seq, ci, block, ame.get("content"))
        block.pieces = []

    def _order(self, t: float, seq: int, message: str, related: int | None) -> None:
        self.sink.emit("stream.block_order", t, seq, "a2c", message,
                       path="$.assistantMessageEvent.contentIndex", related=related)

    def _text_end(self, t: float, seq: int, ci: int, block: Block, content: Any) -> None:
        block.final = content
        if not isinstance(content, str):
            return
        joined = "".join(block.pieces)
        if joined != content:
            at = _first_difference(joined, content)
            self.sink.emit(
                "stream.text_mismatch", t, seq, "a2c",
                f"{block.kind} deltas of contentIndex {ci} join to {len(joined)} chars but "
                f"`{block.kind}_end.content` has {len(content)}; first difference at char {at}: "
                f"{_short(joined[at:])} vs {_short(content[at:])}",
                path="$.assistantMessageEvent.content", related=block.seq)

    def _toolcall_end(self, t: float, seq: int, ci: int, block: Block, call: Any) -> None:
        if not isinstance(call, dict):
            return
        block.final = call
        where = "$.assistantMessageEvent.toolCall"
        for field, streamed in (("id", block.call_id), ("name", block.call_name)):
            if streamed is not None and streamed != call.get(field):
                self.sink.emit("stream.toolcall_mismatch", t, seq, "a2c",
                               f"toolcall_start said {field} {streamed!r}, toolcall_end has {call.get(field)!r}",
                               path=f"{where}.{field}", related=block.seq)
        joined = "".join(block.pieces)
        error = call.get("argumentsError")
        if isinstance(error, str):  # pi >= 0.99: the agent could not parse them either, and says so
            self._arguments_error(t, seq, ci, block, joined, error)
            return
        if not joined.strip():
            return  # provider does not stream arguments
        try:
            parsed = parse_arguments(joined)
        except ValueError as exc:  # a JSONDecodeError, or a plain ValueError for an over-long integer
            why = f"{exc.msg} at char {exc.pos}" if isinstance(exc, json.JSONDecodeError) else str(exc)
            self.sink.emit("stream.toolcall_mismatch", t, seq, "a2c",
                           f"toolcall deltas of contentIndex {ci} are not valid JSON ({why}): "
                           f"{_short(joined, 60)}", path=f"{where}.arguments", related=block.seq)
            return
        if parsed != call.get("arguments"):
            self.sink.emit("stream.toolcall_mismatch", t, seq, "a2c",
                           f"toolcall deltas of contentIndex {ci} parse to {_short(json.dumps(parsed), 60)} but "
                           f"arguments are {_short(json.dumps(call.get('arguments')), 60)}",
                           path=f"{where}.arguments", related=block.seq)

    def _arguments_error(self, t: float, seq: int, ci: int, block: Block, joined: str, error: str) -> None:
        """``argumentsError``: the deltas must be what the agent quotes, and must indeed not parse to an object."""
        path = "$.assistantMessageEvent.toolCall.argumentsError"
        _, marker, quoted = error.partition(RECEIVED)
        if marker and joined and quoted != joined:
            self.sink.emit("stream.toolcall_mismatch", t, seq, "a2c",
                           f"argumentsError quotes {_short(quoted, 60)} as the arguments received, but the toolcall "
                           f"deltas of contentIndex {ci} join to {_short(joined, 60)}", path=path, related=block.seq)
            return
        try:
            parsed = parse_arguments(joined) if joined.strip() else None
        except ValueError:
            return  # they do not parse, as the agent says
        if isinstance(parsed, dict):
            self.sink.emit("stream.toolcall_mismatch", t, seq, "a2c",
                           f"toolcall deltas of contentIndex {ci} parse to {_short(json.dumps(parsed), 60)}, yet "
                           f"toolcall_end carries argumentsError {_short(error, 60)}", path=path, related=block.seq)

    def end(self, t: float, seq: int, message: Any) -> None:
        """``message_end`` of the assistant message: open blocks and final content."""
        if not self.active:
            return
        blocks, self.blocks, self.active = self.blocks, {}, False
        stop = message.get("stopReason") if isinstance(message, dict) else None
        for ci, block in blocks.items():
            if not block.closed and stop not in _CUT_SHORT:
                self.sink.emit("stream.block_not_closed", t, seq, "a2c",
                               f"{block.kind} block at contentIndex {ci} has no `{block.kind}_end`",
                               related=block.seq)
        content = message.get("content") if isinstance(message, dict) else None
        if not blocks or not isinstance(content, list):
            return
        for ci, block in blocks.items():
            if block.closed and block.final is not None:
                self._final(t, seq, ci, block, content)

    def _final(self, t: float, seq: int, ci: int, block: Block, content: list[Any]) -> None:
        path = f"$.message.content[{ci}]"
        item = content[ci] if ci < len(content) else None
        if not isinstance(item, dict):
            self.sink.emit("stream.final_mismatch", t, seq, "a2c",
                           f"message_end has no content block {ci} for the streamed {block.kind} block",
                           path="$.message.content", related=block.seq)
            return
        if item.get("type") != _CONTENT_TYPE[block.kind]:
            self.sink.emit("stream.final_mismatch", t, seq, "a2c",
                           f"content[{ci}] is {item.get('type')!r} but a {block.kind} block was streamed",
                           path=f"{path}.type", related=block.seq)
            return
        if block.kind == "toolcall":
            call = block.final
            for field in ("id", "name", "arguments"):
                if item.get(field) != call.get(field):
                    self.sink.emit("stream.final_mismatch", t, seq, "a2c",
                                   f"content[{ci}].{field} differs from toolcall_end.toolCall.{field}",
                                   path=f"{path}.{field}", related=block.seq)
            return
        key = _FINAL_KEY[block.kind]
        if item.get(key) != block.final:
            got = item.get(key)
            self.sink.emit("stream.final_mismatch", t, seq, "a2c",
                           f"content[{ci}].{key} ({_short(str(got))}) differs from {block.kind}_end.content "
                           f"({_short(str(block.final))})", path=f"{path}.{key}", related=block.seq)
