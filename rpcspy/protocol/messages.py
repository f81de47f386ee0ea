"""Content blocks and messages (``AgentMessage``, discriminated by ``role``).

protocol-notes 4.2 (pi 0.73.1), 10.5.4/10.6 (pi >= 0.84), 11.1 (pi >= 0.99), 4.7 (omp) and seed 003 (Feb 2026).
"""

from dataclasses import dataclass
from typing import Any, Literal, Union

from msgspec import UNSET

from rpcspy.protocol.base import Base, Checked, Getter, Opt, Problem, lit
from rpcspy.protocol.spec import Spec


class TextContent(Base, tag_field="type", tag="text"):
    text: str
    textSignature: Opt[str] = UNSET


class ThinkingContent(Base, tag_field="type", tag="thinking"):
    thinking: str
    thinkingSignature: Opt[str] = UNSET
    redacted: Opt[bool] = UNSET


class ImageContent(Base, tag_field="type", tag="image"):
    """pi's ``ImageContent``: base64 ``data`` plus ``mimeType``."""

    data: str
    mimeType: str


class ImageSource(Base):
    """[old] Feb-2026 doc image source: ``{type:"base64", mediaType, data}`` (or a URL)."""

    type: Literal["base64", "url"]
    mediaType: Opt[str] = UNSET
    data: Opt[str] = UNSET
    url: Opt[str] = UNSET


class FebImageContent(Checked, tag_field="type", tag="image"):
    """Feb-2026 doc dialect: the ``source`` form, or pi's ``data``/``mimeType`` form."""

    source: Opt[ImageSource] = UNSET
    data: Opt[str] = UNSET
    mimeType: Opt[str] = UNSET

    @staticmethod
    def __rpcspy_check__(get: Getter) -> list[Problem]:
        if get("source") is not UNSET:
            return []
        missing = [k for k in ("data", "mimeType") if get(k) is UNSET]
        return [("missing_field", f"$.{k}", f"image needs 'source' or 'data' + 'mimeType'; '{k}' is missing")
                for k in missing]


class UsageCost(Base):
    input: float
    output: float
    cacheRead: float
    cacheWrite: float
    total: float


class UsageCost099(UsageCost):
    """pi >= 0.99: whether ``total`` is the provider's own figure (observed as a boolean on 1.5.2)."""

    totalFromProvider: Opt[bool] = UNSET


class NestedToolCallRecord(Base):
    """pi >= 0.99: one call a tool made to another tool (``ToolResultMessage.nestedCalls``)."""

    id: str
    name: str
    status: Literal["ok", "error", "unfinished"]
    arguments: Opt[dict[str, Any]] = UNSET
    argumentsBytes: Opt[int] = UNSET
    durationMs: Opt[float] = UNSET
    error: Opt[str] = UNSET


class NestedToolCalls(Base):
    calls: list[NestedToolCallRecord]
    complete: bool


class DiagnosticError(Base):
    message: str
    name: Opt[str] = UNSET
    stack: Opt[str] = UNSET
    code: Opt[Union[str, int]] = UNSET


class Diagnostic(Base):
    type: str
    timestamp: int
    error: Opt[DiagnosticError] = UNSET
    details: Opt[dict[str, Any]] = UNSET


class ForkMessage(Base):
    """An item of ``get_fork_messages`` / omp ``get_branch_messages``."""

    entryId: str
    text: str


class ToolDef(Base):
    """A tool definition as listed in a system message's ``toolsAdded``."""

    name: str
    description: str
    parameters: Any
    constrainedSampling: Opt[Any] = UNSET
    label: Opt[str] = UNSET


@dataclass(frozen=True)
class MessageTypes:
    """One dialect's content and message types."""

    Image: Any
    ToolCall: type
    Usage: type
    Assistant: type
    ToolResult: type
    AgentMessage: Any
    AgentToolResult: type
    UserContent: Any


def build_messages(spec: Spec) -> MessageTypes:  # noqa: C901 - one class per message role
    """Build the message types of one dialect."""
    Image: Any = FebImageContent if spec.doc_shapes else ImageContent
    UserContent = Union[TextContent, Image]

    class ToolCall(Base, tag_field="type", tag="toolCall"):
        id: str
        name: str
        arguments: dict[str, Any]
        thoughtSignature: Opt[str] = UNSET
        partialArgs: Opt[str] = UNSET
        """Only while streaming (message_update); omp keeps it in message_end."""
        streamIndex: Opt[int] = UNSET
        if spec.delta_updates:
            namespace: Opt[str] = UNSET
        if spec.dispositions:  # pi >= 0.99 (1.5.2, 1.6.0)
            argumentsError: Opt[str] = UNSET
            """The arguments did not parse (``arguments`` is then ``{}``): the parse error, then
            ``\n\nReceived arguments:\n`` and the raw text (protocol-notes 12)."""

    class Usage(Base):
        input: int
        output: int
        cacheRead: int
        cacheWrite: int
        totalTokens: int
        cost: UsageCost099 if spec.dispositions else UsageCost  # type: ignore[valid-type]  # runtime-built msgspec type
        if spec.delta_updates:
            reasoning: Opt[int] = UNSET
            cacheWrite1h: Opt[int] = UNSET

    class UserMessage(Base, tag_field="role", tag="user"):
        content: Union[str, list[UserContent]]
        timestamp: int
        if spec.omp_family:
            attribution: Opt[str] = UNSET
            steering: Opt[bool] = UNSET
            """A steering message delivered into the run (omp)."""
        if spec.doc_shapes:
            attachments: Opt[list[Any]] = UNSET

    class AssistantMessage(Base, tag_field="role", tag="assistant"):
        content: list[Union[TextContent, ThinkingContent, ToolCall]]
        api: str
        provider: str
        model: str
        usage: Usage
        stopReason: lit(spec.stop_reasons)  # type: ignore[valid-type]  # runtime-built msgspec type
        timestamp: int
        responseId: Opt[str] = UNSET
        responseModel: Opt[str] = UNSET
        errorMessage: Opt[str] = UNSET
        diagnostics: Opt[list[Diagnostic]] = UNSET
        if spec.delta_updates:
            rawStopReason: Opt[str] = UNSET
            providerThinkingLevel: Opt[str] = UNSET
            endTurn: Opt[bool] = UNSET
            deferred: Opt[Any] = UNSET
        if spec.dispositions:
            thinkingLevel: Opt[str] = UNSET
            durationMs: Opt[float] = UNSET
        if spec.omp_family:
            duration: Opt[float] = UNSET
            ttft: Opt[float] = UNSET
            completedAt: Opt[Union[int, None]] = UNSET
            contextSnapshot: Opt[dict[str, Any]] = UNSET
            errorId: Opt[int] = UNSET

    class ToolResultMessage(Base, tag_field="role", tag="toolResult"):
        toolCallId: str
        toolName: str
        content: list[Union[TextContent, Image]]
        isError: bool
        timestamp: int
        details: Opt[Any] = UNSET
        if spec.delta_updates:
            usage: Opt[Usage] = UNSET
        if spec.dispositions:
            durationMs: Opt[float] = UNSET
            nestedCalls: Opt[NestedToolCalls] = UNSET

    class BashExecutionMessage(Base, tag_field="role", tag="bashExecution"):
        command: str
        output: str
        cancelled: bool
        truncated: bool
        timestamp: int
        exitCode: Opt[int] = UNSET
        fullOutputPath: Opt[Union[str, None]] if spec.doc_shapes else Opt[str] = UNSET  # type: ignore[valid-type]  # runtime-built msgspec type
        excludeFromContext: Opt[bool] = UNSET

    class CustomMessage(Base, tag_field="role", tag="custom"):
        customType: str
        content: Union[str, list[UserContent]]
        display: bool
        timestamp: int
        details: Opt[Any] = UNSET

    class BranchSummaryMessage(Base, tag_field="role", tag="branchSummary"):
        summary: str
        fromId: str
        timestamp: int

    class CompactionSummaryMessage(Base, tag_field="role", tag="compactionSummary"):
        summary: str
        tokensBefore: int
        timestamp: int

    roles: list[Any] = [UserMessage, AssistantMessage, ToolResultMessage, BashExecutionMessage,
                        CustomMessage, BranchSummaryMessage, CompactionSummaryMessage]
    if spec.delta_updates:

        class SystemMessage(Base, tag_field="role", tag="system"):
            """pi >= 0.86: emitted after turn_start when the prompt or tool loadout changed."""

            content: Union[str, list[TextContent]]
            timestamp: int
            sections: Opt[dict[str, Union[str, None]]] = UNSET
            toolsAdded: Opt[list[ToolDef]] = UNSET
            toolsRemoved: Opt[list[Any]] = UNSET
            replace: Opt[bool] = UNSET

        roles.append(SystemMessage)

    class AgentToolResult(Base):
        """``tool_execution_update.partialResult`` / ``tool_execution_end.result``."""

        content: list[Union[TextContent, Image]]
        details: Opt[Any] = UNSET
        terminate: Opt[bool] = UNSET
        if spec.dispositions:
            structuredContent: Opt[Any] = UNSET

    return MessageTypes(
        Image=Image,
        ToolCall=ToolCall,
        Usage=Usage,
        Assistant=AssistantMessage,
        ToolResult=ToolResultMessage,
        AgentMessage=Union[tuple(roles)],
        AgentToolResult=AgentToolResult,
        UserContent=UserContent,
    )


__all__ = ["MessageTypes", "build_messages", "TextContent", "ThinkingContent", "ImageContent",
           "FebImageContent", "ImageSource", "UsageCost", "ForkMessage", "ToolDef"]
