"""Events (agent stdout, no ``id``), a tagged union on ``type``.

protocol-notes 4.1/4.4/4.6 (pi 0.73.1), 10.5 (pi >= 0.84), 11.1 (pi >= 0.99), seed 003 (Feb 2026: auto_compaction_*,
no queue_update/session_info_changed/thinking_level_changed). omp's own events are in
:mod:`rpcspy.protocol.omp`.
"""

from typing import Any, Literal

from msgspec import UNSET

from rpcspy.protocol.base import Base, Opt, lit
from rpcspy.protocol.messages import MessageTypes
from rpcspy.protocol.spec import Spec


class Event(Base, tag_field="type"):
    """Base of every event."""


class AgentStart(Event, tag="agent_start"):
    """A run begins."""


class TurnStart(Event, tag="turn_start"):
    """A turn (one assistant response plus its tool calls) begins."""


class ToolExecutionStart(Event, tag="tool_execution_start"):
    toolCallId: str
    toolName: str
    args: Any


class AutoRetryStart(Event, tag="auto_retry_start"):
    """After a run failed with a transient error; a new run follows after ``delayMs``."""

    attempt: int
    maxAttempts: int
    delayMs: int
    errorMessage: str


class AutoRetryEnd(Event, tag="auto_retry_end"):
    success: bool
    attempt: int
    finalError: Opt[str] = UNSET


class ExtensionError(Event, tag="extension_error"):
    extensionPath: str
    event: str
    error: str


def build_events(spec: Spec, m: MessageTypes, MessageUpdate: type, CompactionResult: type,
                 Entry: Any) -> list[Any]:
    """Every pi event of the dialect (omp adds its own, see :mod:`rpcspy.protocol.omp`)."""
    Msg = m.AgentMessage
    MsgId = Opt[str]

    class AgentEnd(Event, tag="agent_end"):
        """A run ended; ``messages`` holds every message created in it."""

        messages: list[Msg]  # type: ignore[valid-type]  # runtime-built msgspec type
        if spec.delta_updates:
            willRetry: bool
        if spec.omp_family:
            isTerminal: Opt[bool] = UNSET
            yielded: Opt[bool] = UNSET
            awaitingAsyncWork: Opt[bool] = UNSET
            messageCount: Opt[int] = UNSET
            telemetry: Opt[Any] = UNSET
            coverage: Opt[Any] = UNSET

    class TurnEnd(Event, tag="turn_end"):
        message: Msg  # type: ignore[valid-type]  # runtime-built msgspec type
        toolResults: list[m.ToolResult]  # type: ignore[name-defined]  # runtime-built msgspec type

    class MessageStart(Event, tag="message_start"):
        message: Msg  # type: ignore[valid-type]  # runtime-built msgspec type
        if spec.omp_family:
            messageId: MsgId = UNSET

    class MessageEnd(Event, tag="message_end"):
        message: Msg  # type: ignore[valid-type]  # runtime-built msgspec type
        if spec.omp_family:
            messageId: MsgId = UNSET

    class ToolExecutionUpdate(Event, tag="tool_execution_update"):
        toolCallId: str
        toolName: str
        args: Any
        partialResult: m.AgentToolResult  # type: ignore[name-defined]  # runtime-built msgspec type
        """Cumulative: replace, don't append."""
        if spec.dispositions:
            parentToolCallId: Opt[str] = UNSET
            """A nested call made by another tool (id ``<parent>/<n>``, not in the transcript)."""

    class ToolExecutionEnd(Event, tag="tool_execution_end"):
        toolCallId: str
        toolName: str
        result: m.AgentToolResult  # type: ignore[name-defined]  # runtime-built msgspec type
        isError: bool
        if spec.dispositions:
            durationMs: Opt[float] = UNSET
            """How long the tool's ``execute()`` took; absent when it did not run."""
            parentToolCallId: Opt[str] = UNSET

    out: list[Any] = [AgentStart, AgentEnd, TurnStart, TurnEnd, MessageStart, MessageUpdate, MessageEnd,
                      ToolExecutionUpdate, ToolExecutionEnd, AutoRetryStart, AutoRetryEnd, ExtensionError]
    if spec.omp_family or spec.dispositions:

        class DialectToolExecutionStart(ToolExecutionStart, tag="tool_execution_start"):
            if spec.omp_family:
                intent: Opt[str] = UNSET
            if spec.dispositions:
                parentToolCallId: Opt[str] = UNSET

        out.append(DialectToolExecutionStart)
    else:
        out.append(ToolExecutionStart)

    if not (spec.doc_shapes or spec.omp_family):

        class QueueUpdate(Event, tag="queue_update"):
            """Full current queues (message texts), on every enqueue and dequeue."""

            steering: list[str]
            followUp: list[str]

        class CompactionStart(Event, tag="compaction_start"):
            reason: Literal["manual", "threshold", "overflow"]

        class CompactionEnd(Event, tag="compaction_end"):
            reason: Literal["manual", "threshold", "overflow"]
            aborted: bool
            willRetry: bool
            result: Opt[CompactionResult] = UNSET  # type: ignore[valid-type]  # runtime-built msgspec type
            """Absent on failure or abort."""
            errorMessage: Opt[str] = UNSET

        class SessionInfoChanged(Event, tag="session_info_changed"):
            name: Opt[str] = UNSET

        class ThinkingLevelChanged(Event, tag="thinking_level_changed"):
            level: lit(spec.thinking_levels)  # type: ignore[valid-type]  # runtime-built msgspec type

        out += [QueueUpdate, CompactionStart, CompactionEnd, SessionInfoChanged, ThinkingLevelChanged]

    if spec.doc_shapes:

        class AutoCompactionStart(Event, tag="auto_compaction_start"):
            reason: Literal["threshold", "overflow"]

        class AutoCompactionEnd(Event, tag="auto_compaction_end"):
            aborted: bool
            willRetry: bool
            result: Opt[CompactionResult | None] = UNSET  # type: ignore[valid-type]  # runtime-built msgspec type
            """The doc says ``null`` on failure or abort."""
            errorMessage: Opt[str] = UNSET

        out += [AutoCompactionStart, AutoCompactionEnd]

    if spec.delta_updates:

        class AgentSettled(Event, tag="agent_settled"):
            """pi will not continue automatically (after retries and auto-compaction)."""

            if spec.dispositions:
                aborted: Opt[bool] = UNSET
                """pi >= 1.1: the run ended because it was aborted."""

        class BashExecutionUpdate(Event, tag="bash_execution_update"):
            """A chunk of a ``bash`` command's output; ``id`` echoes that command's id."""

            delta: str
            id: Opt[Any] = UNSET

        class EntryAppended(Event, tag="entry_appended"):
            entry: Entry

        class SummarizationRetryScheduled(Event, tag="summarization_retry_scheduled"):
            attempt: int
            maxAttempts: int
            delayMs: int
            errorMessage: str

        class SummarizationRetryAttemptStart(Event, tag="summarization_retry_attempt_start"):
            source: Literal["compaction", "branchSummary"]
            reason: Opt[str] = UNSET

        class SummarizationRetryFinished(Event, tag="summarization_retry_finished"):
            pass

        out += [AgentSettled, BashExecutionUpdate, EntryAppended, SummarizationRetryScheduled,
                SummarizationRetryAttemptStart, SummarizationRetryFinished]
    return out
