"""Display items: what a timeline shows, as plain data (no rich, no HTML).

The :class:`~rpcspy.render.timeline.Timeline` turns events into items; the text
and HTML renderers turn items into output. An item covers one frame, or several
coalesced ones (a streamed assistant message, a run of stderr lines, ...).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from rpcspy.events import Direction, Finding, Frame

BlockKind = Literal["text", "thinking", "toolcall", "output", "error", "json"]

KINDS = (
    "command",      # a client frame that expects a response
    "input",        # a client frame that is an answer (extension_ui_response, host_tool_result)
    "response",     # an agent response, paired with its command (latency)
    "event",        # any other agent event
    "assistant",    # a streamed assistant message, deltas coalesced
    "message",      # message_start/message_end of a user, system, toolResult or custom message
    "tool_start",   # tool_execution_start
    "tool_output",  # tool_execution_update frames of one tool call
    "tool_end",     # tool_execution_end, with its duration
    "bash_output",  # bash_execution_update frames of one bash command (pi >= 0.82)
    "dialog",       # extension_ui_request that waits for an answer
    "ui",           # fire-and-forget extension_ui_request
    "delta",        # one message_update (only when not coalescing)
    "stderr",       # agent stderr lines
    "invalid",      # a line that is not a JSON object with a type
    "start", "spawn_failed", "eof", "exit", "note", "unknown",
    "finding",      # a finding whose frame is not part of a shown item
)


@dataclass(slots=True)
class Block:
    """A multi-line body under an item's headline."""

    kind: BlockKind
    text: str
    title: str = ""
    clip: bool = False
    """The renderer may shorten it (tool output, stderr); assistant text is never clipped."""


@dataclass(slots=True)
class Item:
    """One line (plus optional blocks) of the timeline."""

    kind: str
    seq: int
    t: float
    dir: Direction | None = None
    label: str = ""
    """Headline: the command, event type or role (``prompt``, ``agent_start``, ``assistant``)."""
    summary: str = ""
    """One line of detail; renderers cut it to the width."""
    ref: str | None = None
    """An id worth showing (command id, toolCallId, dialog id)."""
    status: Literal["ok", "error", "warning", "info"] | None = None
    latency: float | None = None
    """Seconds from the command (tool start, dialog request) this item answers."""
    blocks: list[Block] = field(default_factory=list)
    seqs: list[int] = field(default_factory=list)
    """Every frame the item covers."""
    t_end: float = 0.0
    nbytes: int = 0
    frames: list[Frame] = field(default_factory=list)
    """The frames themselves, kept only when the timeline was asked to (HTML export)."""
    findings: list[Finding] = field(default_factory=list)
    finding: Finding | None = None
    """For ``kind == "finding"``: the finding shown on its own."""
    continued: bool = False
    """Continues an item that other frames interrupted."""
    incomplete: bool = False
    """Its closing frame had not arrived (yet) when it was emitted."""
    injected: bool = False
    """A frame of it was injected by rpcspy (``rpcspy inject``, the REPL), not sent by the client."""
    selected: bool = True
    """False when the filter hides it; renderers skip unselected items."""

    def add_frame(self, frame: Frame, keep: bool) -> None:
        self.seqs.append(frame.seq)
        self.t_end = frame.t
        self.nbytes += len(frame.data)
        self.injected = self.injected or frame.injected
        if keep:
            self.frames.append(frame)
