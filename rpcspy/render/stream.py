"""Rebuilding a streamed assistant message from its deltas (pure).

Blocks are keyed by ``contentIndex`` and start empty at their ``*_start``: the
snapshots (0.73 ``partial``, 0.87 pre-filled ``message_start``) are ignored, as
protocol-notes 10.5.3 advises, so the text shown is what the deltas built. A
block that got no delta shows its ``*_end`` payload; a message that got no
update at all (a request that failed before streaming) shows ``message_end``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from rpcspy.render.items import Block, Item
from rpcspy.render.summarize import compact, ms

_KINDS = ("text", "thinking", "toolcall")


@dataclass(slots=True)
class _Block:
    kind: str
    parts: list[str] = field(default_factory=list)
    end: Any = None
    name: Any = None


class AssistantStream:
    """One assistant message across the items (segments) that show it."""

    def __init__(self, t0: float) -> None:
        self.t0 = t0
        self.kinds: dict[Any, str] = {}
        self.names: dict[Any, Any] = {}
        self.streamed: set[Any] = set()
        """Block indexes that got at least one delta (in any segment)."""
        self.updates = 0
        self.first_delta: float | None = None
        self.last_t = t0
        self.final: Any = None
        self.ended = False
        self._blocks: dict[Any, _Block] = {}

    def segment(self) -> AssistantStream:
        """Start a new segment: later deltas go to a fresh item."""
        self._blocks = {}
        return self

    def update(self, ame: Any, t: float) -> None:
        """Fold one ``assistantMessageEvent``."""
        self.updates += 1
        self.last_t = t
        if not isinstance(ame, dict) or not isinstance(ame.get("type"), str):
            return
        kind, _, phase = ame["type"].rpartition("_")
        if kind not in _KINDS:
            return
        idx = ame.get("contentIndex")
        idx = idx if isinstance(idx, int) else -1
        self.kinds[idx] = kind
        block = self._blocks.get(idx)
        if block is None:
            block = self._blocks[idx] = _Block(kind)
        if phase == "start" and kind == "toolcall" and ame.get("toolName") is not None:
            self.names[idx] = ame["toolName"]
        elif phase == "delta":
            d = ame.get("delta")
            if isinstance(d, str):
                block.parts.append(d)
                self.streamed.add(idx)
                if self.first_delta is None and kind != "toolcall":
                    self.first_delta = t
        elif phase == "end":
            block.end = ame.get("toolCall" if kind == "toolcall" else "content")

    def end(self, message: Any, t: float) -> None:
        """The ``message_end``: the final message."""
        self.final = message
        self.last_t = t
        self.ended = True
        if not self.kinds and isinstance(message, dict) and isinstance(message.get("content"), list):
            for i, c in enumerate(message["content"]):
                if isinstance(c, dict):
                    ctype = c.get("type")
                    kind = {"text": "text", "thinking": "thinking", "toolCall": "toolcall"}.get(
                        ctype if isinstance(ctype, str) else "")
                    if kind:
                        key = "toolCall" if kind == "toolcall" else kind
                        self._blocks[i] = _Block(kind, end=c if kind == "toolcall" else c.get(key))

    def fill(self, item: Item, *, interrupted: bool = False) -> None:
        """Write this segment's blocks and the message's summary into ``item``.

        ``interrupted``: other frames (or the end of the recording) cut the segment
        short; otherwise a message without its message_end is still streaming.
        """
        blocks: list[Block] = []
        for idx in sorted(self._blocks, key=lambda k: (not isinstance(k, int), k if isinstance(k, int) else 0)):
            b = self._blocks[idx]
            text = "".join(b.parts)
            if b.kind == "toolcall":
                tc = b.end
                if isinstance(tc, dict):
                    text = f"{tc.get('name', '?')} {compact(tc.get('arguments'), 4000)}"
                    error = tc.get("argumentsError")
                    if isinstance(error, str):  # pi >= 0.99: the streamed arguments did not parse
                        text += f"  (arguments did not parse: {error.split(chr(10), 1)[0]})"
                else:
                    text = f"{self.names.get(idx, '?')} {text}"
                blocks.append(Block("toolcall", text, title="tool call"))
            else:
                if idx not in self.streamed and isinstance(b.end, str):
                    text = b.end
                blocks.append(Block(b.kind, text))  # type: ignore[arg-type]
        parts: list[str] = []
        msg = self.final if isinstance(self.final, dict) else {}
        stop = msg.get("stopReason")
        if stop is not None:
            parts.append(str(stop))
        usage = msg.get("usage")
        if isinstance(usage, dict) and isinstance(usage.get("output"), int) and usage["output"]:
            parts.append(f"{usage['output']} tokens")
        parts.append(f"{self.updates} update{'s' if self.updates != 1 else ''}")
        parts.append(ms(self.last_t - self.t0))
        if not self.ended:
            parts.append("interrupted" if interrupted else "streaming")
        item.summary = " · ".join(parts)
        err = msg.get("errorMessage")
        if err:
            blocks.append(Block("error", err if isinstance(err, str) else compact(err)))
        item.status = "error" if stop == "error" else "warning" if stop == "aborted" else None
        item.blocks = blocks

