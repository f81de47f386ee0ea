"""oh-my-pi (omp) frames, events and commands beyond pi's set (protocol-notes 1.3, 2.3, 4.7, 5.3-5.6).

Shapes come from the omp 18.3.4 types; objects whose fields are not pinned down there
are :class:`~rpcspy.protocol.base.Open` (extra keys are not reported).
"""

from typing import Any, Literal, Union

import msgspec
from msgspec import UNSET

from rpcspy.protocol.base import Base, Open, Opt, lit
from rpcspy.protocol.commands import Command, ExtensionUIResponse, simple
from rpcspy.protocol.events import Event
from rpcspy.protocol.messages import MessageTypes, TextContent
from rpcspy.protocol.omp_session import OmpTodoPhase as TodoPhase
from rpcspy.protocol.responses import NONE, DataSpec
from rpcspy.protocol.spec import Spec

# --- agent -> client frames -----------------------------------------------------------------

class Ready(Event, tag="ready"):
    """First frame omp writes: protocol versions and frame-size limits."""

    protocolVersion: int
    supportedProtocolVersions: list[int]
    maxFrameBytes: int
    maxReassembledFrameBytes: int


class PromptError(Base):
    message: str
    retryable: bool
    provider: Opt[str] = UNSET
    model: Opt[str] = UNSET
    httpStatus: Opt[int] = UNSET


class PromptResult(Event, tag="prompt_result"):
    """Exactly one per accepted prompt (18.3.4), after its response; correlate on ``id``."""

    agentInvoked: bool
    status: Literal["completed", "aborted", "error"]
    sessionSettled: bool
    id: Opt[Any] = UNSET
    error: Opt[PromptError] = UNSET


class SessionSettled(Event, tag="session_settled"):
    """The session went quiet: no run and no background work left."""


class CommandInput(Base):
    hint: Opt[str] = UNSET


class SubCommand(Base):
    name: str
    description: Opt[str] = UNSET
    usage: Opt[str] = UNSET


class AvailableCommand(Base):
    name: str
    source: str
    aliases: Opt[list[str]] = UNSET
    description: Opt[str] = UNSET
    input: Opt[CommandInput] = UNSET
    subcommands: Opt[list[SubCommand]] = UNSET


class AvailableCommandsUpdate(Event, tag="available_commands_update"):
    commands: list[AvailableCommand]


class RpcChunk(Event, tag="rpc_chunk"):
    """Protocol v2: one base64 piece (<= 256 KiB) of an oversized frame."""

    chunkId: str
    index: int
    count: int
    byteLength: int
    data: str


class HostToolCall(Event, tag="host_tool_call"):
    """The agent asks the host to run a tool registered with ``set_host_tools``."""

    id: str
    toolCallId: str
    toolName: str
    arguments: dict[str, Any]


class HostToolCancel(Event, tag="host_tool_cancel"):
    id: str
    targetId: str


class HostUriRequest(Event, tag="host_uri_request"):
    id: str
    operation: Literal["read", "write"]
    url: str
    content: Opt[str] = UNSET


class HostUriCancel(Event, tag="host_uri_cancel"):
    id: str
    targetId: str


class _OpenEvent(Open, tag_field="type"):
    """An omp event whose fields are not fully known."""


def _open(tag: str, **fields: Any) -> type:
    name = "".join(w.capitalize() for w in tag.split("_"))
    return msgspec.defstruct(name, list(fields.items()), bases=(_OpenEvent,), tag=tag)


OPEN_EVENTS = [
    _open("rpc_frame_error"), _open("retry_fallback_applied"), _open("retry_fallback_succeeded"),
    _open("model_changed"), _open("config_warnings_changed"), _open("advisor_cost_changed"),
    _open("advisor_yielded"), _open("ttsr_triggered", rules=Any), _open("todo_auto_clear"),
    _open("todo_reminder", todos=Any, attempt=int, maxAttempts=int), _open("irc_message", message=Any),
    _open("notice", level=str, message=str), _open("goal_updated", goal=Any),
    _open("command_output", text=str), _open("session_info_update", title=Any, sessionId=str),
    _open("config_update", model=Any, thinkingLevel=Any), _open("subagent_lifecycle", payload=Any),
    _open("subagent_progress", payload=Any), _open("subagent_event", payload=Any),
]


def omp_events(spec: Spec, CompactionResult: type) -> list[Any]:
    """omp's events and non-event frames (stdout), besides the pi events it shares."""

    class AutoCompactionStart(Event, tag="auto_compaction_start"):
        reason: Literal["threshold", "overflow", "idle", "incomplete"]
        action: Opt[str] = UNSET

    class AutoCompactionEnd(Event, tag="auto_compaction_end"):
        aborted: bool
        willRetry: bool
        action: Opt[str] = UNSET
        result: Opt[CompactionResult] = UNSET  # type: ignore[valid-type]  # runtime-built msgspec type
        errorMessage: Opt[str] = UNSET
        skipped: Opt[bool] = UNSET

    class ThinkingLevelChanged(Event, tag="thinking_level_changed"):
        """omp's own shape (pi's has ``level``): ``thinkingLevel`` is absent when undefined."""

        thinkingLevel: Opt[lit(spec.thinking_levels)] = UNSET  # type: ignore[valid-type]  # runtime-built msgspec type
        configured: Opt[str] = UNSET
        """The configured selector (e.g. ``auto``) when it differs from the effective level."""
        resolved: Opt[str] = UNSET

    class AutoRetryStart(Event, tag="auto_retry_start"):
        """Inside the run (after ``turn_end``, no ``agent_end`` before the retry's ``agent_start``)."""

        attempt: int
        maxAttempts: int
        delayMs: float
        """Jittered: ``244.71141790865218``."""
        errorMessage: str
        errorId: Opt[int] = UNSET

    class AutoRetryEnd(Event, tag="auto_retry_end"):
        success: bool
        attempt: int
        finalError: Opt[str] = UNSET
        retryErrors: Opt[Any] = UNSET

    return [Ready, PromptResult, SessionSettled, AvailableCommandsUpdate, RpcChunk, HostToolCall,
            HostToolCancel, HostUriRequest, HostUriCancel, AutoCompactionStart, AutoCompactionEnd,
            ThinkingLevelChanged, AutoRetryStart, AutoRetryEnd, *OPEN_EVENTS]


# --- client -> agent frames -----------------------------------------------------------------

class OmpExtensionUIResponse(ExtensionUIResponse, tag="extension_ui_response"):
    timedOut: Opt[bool] = UNSET


def omp_client_frames(m: MessageTypes) -> list[Any]:
    """omp's non-command client frames (never answered with a response)."""
    ToolContent = list[Union[TextContent, m.Image]]  # type: ignore[name-defined]  # runtime-built msgspec type

    class ToolResultPayload(Base):
        content: ToolContent
        details: Opt[Any] = UNSET

    class HostToolUpdate(Base, tag_field="type", tag="host_tool_update"):
        id: str
        partialResult: ToolResultPayload

    class HostToolResult(Base, tag_field="type", tag="host_tool_result"):
        id: str
        result: ToolResultPayload
        isError: Opt[bool] = UNSET

    class HostUriResult(Base, tag_field="type", tag="host_uri_result"):
        id: str
        content: Opt[str] = UNSET
        contentType: Opt[Literal["text/markdown", "application/json", "text/plain"]] = UNSET
        notes: Opt[list[str]] = UNSET
        immutable: Opt[bool] = UNSET
        isError: Opt[bool] = UNSET
        error: Opt[str] = UNSET

    return [OmpExtensionUIResponse, HostToolUpdate, HostToolResult, HostUriResult]


class HostToolDefinition(Base):
    name: str
    description: str
    parameters: dict[str, Any]
    label: Opt[str] = UNSET
    hidden: Opt[bool] = UNSET
    loadMode: Opt[Literal["essential", "discoverable"]] = UNSET
    readsSkillUris: Opt[bool] = UNSET


class HostUriScheme(Base):
    scheme: str
    description: Opt[str] = UNSET
    writable: Opt[bool] = UNSET
    immutable: Opt[bool] = UNSET


def omp_commands(spec: Spec, m: MessageTypes) -> list[Any]:
    """Commands only omp knows."""
    Images = Opt[list[m.Image]]  # type: ignore[name-defined]  # runtime-built msgspec type

    class NegotiateProtocol(Command, tag="negotiate_protocol"):
        protocolVersion: int

    class AbortAndPrompt(Command, tag="abort_and_prompt"):
        message: str
        images: Images = UNSET

    class OpenSession(Command, tag="open_session"):
        sessionDir: str
        provider: Opt[str] = UNSET
        modelId: Opt[str] = UNSET

    class SetFastMode(Command, tag="set_fast_mode"):
        enabled: bool

    class SetTodos(Command, tag="set_todos"):
        phases: list[TodoPhase]

    class SetHostTools(Command, tag="set_host_tools"):
        tools: list[HostToolDefinition]

    class SetHostUriSchemes(Command, tag="set_host_uri_schemes"):
        schemes: list[HostUriScheme]

    class SetSubagentSubscription(Command, tag="set_subagent_subscription"):
        level: Literal["off", "progress", "events"]

    class SetEventFilter(Command, tag="set_event_filter"):
        events: Union[list[str], None]
        messageUpdates: Opt[Literal["full", "delta"]] = UNSET

    class GetSubagentMessages(Command, tag="get_subagent_messages"):
        subagentId: Opt[str] = UNSET
        sessionFile: Opt[str] = UNSET
        fromByte: Opt[int] = UNSET

    class SetInterruptMode(Command, tag="set_interrupt_mode"):
        mode: Literal["immediate", "wait"]

    class Branch(Command, tag="branch"):
        """omp's name for pi's ``fork``."""

        entryId: str

    class Handoff(Command, tag="handoff"):
        customInstructions: Opt[str] = UNSET

    class GetMessagesPage(Command, tag="get_messages_page"):
        cursor: Opt[str] = UNSET
        limit: Opt[int] = UNSET

    class Login(Command, tag="login"):
        providerId: str

    return [NegotiateProtocol, AbortAndPrompt, OpenSession, SetFastMode, SetTodos, SetHostTools,
            SetHostUriSchemes, SetSubagentSubscription, SetEventFilter, GetSubagentMessages,
            SetInterruptMode, Branch, Handoff, GetMessagesPage, Login,
            simple("get_available_commands", "Slash commands (omp)."),
            simple("get_subagents", "Running subagents (omp)."),
            simple("get_branch_messages", "omp's name for get_fork_messages."),
            simple("get_login_providers", "Login providers (omp).")]


def omp_response_data(m: MessageTypes) -> dict[str, DataSpec]:
    """Success ``data`` of omp's own commands (and omp's variant of ``prompt``)."""

    class PromptAck(Base):
        agentInvoked: bool

    class ProtocolData(Base):
        protocolVersion: int

    class OpenSessionData(Base):
        cancelled: bool
        resumed: bool
        sessionId: str
        sessionFile: Opt[str] = UNSET

    class FastMode(Base):
        enabled: bool
        active: bool

    class CommandsData(Base):
        commands: list[AvailableCommand]

    class TodosData(Base):
        todoPhases: list[TodoPhase]

    class ToolNames(Base):
        toolNames: list[str]

    class Schemes(Base):
        schemes: list[str]

    class EventFilter(Base):
        events: Union[list[str], None]
        messageUpdates: Opt[str] = UNSET

    class Subagents(Open):
        subagents: list[Any]

    class HandoffData(Base):
        savedPath: Opt[str] = UNSET

    class MessagesPage(Base):
        messages: list[m.AgentMessage]  # type: ignore[name-defined]  # runtime-built msgspec type
        totalMessages: int
        nextCursor: Opt[str] = UNSET

    class LoginProviders(Open):
        providers: list[Any]

    class LoginData(Open):
        providerId: str

    return {
        "prompt": DataSpec(PromptAck, required=False),
        "abort_and_prompt": NONE, "set_interrupt_mode": NONE,
        "negotiate_protocol": DataSpec(ProtocolData),
        "open_session": DataSpec(OpenSessionData),
        "set_fast_mode": DataSpec(FastMode),
        "get_available_commands": DataSpec(CommandsData),
        "set_todos": DataSpec(TodosData),
        "set_host_tools": DataSpec(ToolNames),
        "set_host_uri_schemes": DataSpec(Schemes),
        "set_subagent_subscription": DataSpec(Any, required=False),
        "set_event_filter": DataSpec(EventFilter),
        "get_subagents": DataSpec(Subagents),
        "get_subagent_messages": DataSpec(Any),
        "handoff": DataSpec(Union[HandoffData, None]),
        "get_messages_page": DataSpec(MessagesPage),
        "get_login_providers": DataSpec(LoginProviders),
        "login": DataSpec(LoginData),
    }


__all__ = ["omp_events", "omp_client_frames", "omp_commands", "omp_response_data"]
