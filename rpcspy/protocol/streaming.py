"""``message_update`` and its ``assistantMessageEvent`` subtypes (protocol-notes 4.3, 10.5.1).

pi 0.73 / omp / Feb-2026: ``{type, assistantMessageEvent:{…, partial}, message}`` with the
full partial message twice. pi >= 0.84: delta-only ``{type, usage, assistantMessageEvent}``.
Only the nine block events are forwarded by real agents; ``start``/``done``/``error`` are
listed by the Feb-2026 doc and admitted only in that dialect.
"""

from typing import Any, Literal, Union

from msgspec import UNSET

from rpcspy.protocol.base import Base, Opt
from rpcspy.protocol.messages import MessageTypes
from rpcspy.protocol.spec import Spec

FORWARDED_EVENTS = (
    "text_start", "text_delta", "text_end",
    "thinking_start", "thinking_delta", "thinking_end",
    "toolcall_start", "toolcall_delta", "toolcall_end",
)


def build_streaming(spec: Spec, m: MessageTypes) -> tuple[type, Any]:
    """Return (MessageUpdate class, AssistantMessageEvent union) for one dialect."""
    Assistant = m.Assistant
    full = not spec.delta_updates

    # One base per dialect: with a `partial` snapshot (pi 0.73, omp, Feb doc) or delta-only.
    if full:

        class Event(Base, tag_field="type"):
            contentIndex: int
            partial: Assistant  # type: ignore[valid-type]  # runtime-built msgspec type
    else:

        class Event(Base, tag_field="type"):  # type: ignore[no-redef]
            contentIndex: int

    class TextStart(Event, tag="text_start"):
        pass

    class TextDelta(Event, tag="text_delta"):
        delta: str

    class TextEnd(Event, tag="text_end"):
        content: str

    class ThinkingStart(Event, tag="thinking_start"):
        pass

    class ThinkingDelta(Event, tag="thinking_delta"):
        delta: str

    class ThinkingEnd(Event, tag="thinking_end"):
        content: str

    class ToolcallStart(Event, tag="toolcall_start"):
        if spec.delta_updates:
            id: Opt[str] = UNSET
            toolName: Opt[str] = UNSET

    class ToolcallDelta(Event, tag="toolcall_delta"):
        delta: str

    class ToolcallEnd(Event, tag="toolcall_end"):
        toolCall: m.ToolCall  # type: ignore[name-defined]  # runtime-built msgspec type

    members: list[Any] = [TextStart, TextDelta, TextEnd, ThinkingStart, ThinkingDelta, ThinkingEnd,
                          ToolcallStart, ToolcallDelta, ToolcallEnd]
    if spec.doc_shapes:

        class Start(Base, tag_field="type", tag="start"):
            partial: Assistant  # type: ignore[valid-type]  # runtime-built msgspec type

        class Done(Base, tag_field="type", tag="done"):
            reason: Literal["stop", "length", "toolUse"]
            message: Assistant  # type: ignore[valid-type]  # runtime-built msgspec type

        class Error(Base, tag_field="type", tag="error"):
            reason: Literal["aborted", "error"]
            error: Assistant  # type: ignore[valid-type]  # runtime-built msgspec type

        members += [Start, Done, Error]

    AssistantMessageEvent = Union[tuple(members)]  # type: ignore[valid-type]  # runtime-built msgspec type

    if full:

        class MessageUpdate(Base, tag_field="type", tag="message_update"):
            assistantMessageEvent: AssistantMessageEvent  # type: ignore[valid-type]  # runtime-built msgspec type
            message: Assistant  # type: ignore[valid-type]  # runtime-built msgspec type
            if spec.omp_family:
                messageId: Opt[str] = UNSET
    else:

        class MessageUpdate(Base, tag_field="type", tag="message_update"):  # type: ignore[no-redef]
            assistantMessageEvent: AssistantMessageEvent  # type: ignore[valid-type]  # runtime-built msgspec type
            usage: m.Usage  # type: ignore[name-defined]  # runtime-built msgspec type

    return MessageUpdate, AssistantMessageEvent
