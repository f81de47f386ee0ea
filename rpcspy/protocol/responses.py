"""Response envelope and the success ``data`` of every command (protocol-notes 2.2, 3, 10.4, 5.6).

``DataSpec(type, required)``: ``type is None`` means the command's success response carries
no ``data`` key; ``required=False`` means ``data`` may be absent (omp ``prompt``).
"""

from dataclasses import dataclass
from typing import Any, Generic, Literal, TypeVar, Union

from msgspec import UNSET

from rpcspy.protocol import payloads as p
from rpcspy.protocol.base import Base, Opt, lit
from rpcspy.protocol.messages import ForkMessage, MessageTypes
from rpcspy.protocol.spec import Spec

E = TypeVar("E")


class TreeNode(Base, Generic[E]):
    """``get_tree`` node: an entry and its children (recursive)."""

    entry: E
    children: "list[TreeNode[E]]"
    label: Opt[str] = UNSET
    labelTimestamp: Opt[str] = UNSET


class Response(Base, tag_field="type", tag="response"):
    """``{id?, type:"response", command, success, data?|error}``.

    ``id`` echoes whatever JSON value the command carried (checked on the command side);
    ``command`` is absent for non-object or type-less input. ``error`` is required when
    ``success`` is false, and ``data`` is checked per command; both checks live in
    :func:`rpcspy.protocol.validate` (a JSON Schema cannot tie them to ``success``).
    """

    success: bool
    id: Opt[Any] = UNSET
    command: Opt[str] = UNSET
    data: Opt[Any] = UNSET
    error: Opt[str] = UNSET


class OmpResponse(Response, tag="response"):
    code: Opt[str] = UNSET
    """omp: machine-readable failure reason, e.g. "session_busy"."""


@dataclass(frozen=True, slots=True)
class DataSpec:
    type: Any
    required: bool = True


NONE = DataSpec(None)


class PromptDisposition(Base):
    """pi >= 0.99 ``prompt`` data: ``handled`` means an extension or input handler consumed it (no run)."""

    disposition: Literal["started", "queued", "handled"]


class QueuedDisposition(Base):
    """pi >= 0.99 ``steer``/``follow_up`` data."""

    disposition: Literal["handled", "queued"]


def session_entry_union(m: MessageTypes) -> Any:
    class MessageEntry(p.SessionTreeEntryBase, tag="message"):
        message: m.AgentMessage  # type: ignore[name-defined]  # runtime-built msgspec type

    return Union[(MessageEntry, *p.OTHER_ENTRIES)]


def compaction_result(spec: Spec, m: MessageTypes) -> type:
    """``compact`` data and ``compaction_end.result``."""

    class CompactionResult(Base):
        summary: str
        firstKeptEntryId: str
        tokensBefore: int
        details: Opt[Any] = UNSET
        """Default compactor: ``{"readFiles": [], "modifiedFiles": []}``."""
        if spec.delta_updates:
            estimatedTokensAfter: Opt[float] = UNSET
            usage: Opt[m.Usage] = UNSET  # type: ignore[name-defined]  # runtime-built msgspec type

    return CompactionResult


def build_response_data(spec: Spec, m: MessageTypes, entry: Any, CompactionResult: type) -> dict[str, DataSpec]:
    """Map each pi command of the dialect to its success ``data`` type (omp adds its own)."""
    Level = lit(spec.thinking_levels)
    ModelT: Any = p.OmpModel if spec.omp_family else p.Model

    class MessagesData(Base):
        messages: list[m.AgentMessage]  # type: ignore[name-defined]  # runtime-built msgspec type

    class ModelsData(Base):
        models: list[ModelT]

    class CycleModelData(Base):
        model: ModelT
        isScoped: bool
        if spec.omp_family:
            thinkingLevel: Opt[Level] = UNSET  # type: ignore[valid-type]  # runtime-built msgspec type
        else:
            thinkingLevel: Level  # type: ignore[no-redef, valid-type]  # runtime-built msgspec type, per dialect

    class LevelData(Base):
        level: Level  # type: ignore[valid-type]  # runtime-built msgspec type

    class ForkMessagesData(Base):
        messages: list[ForkMessage]

    class CommandsData(Base):
        commands: list[p.FebSlashCommand] if spec.doc_shapes else list[p.SlashCommand]  # type: ignore[valid-type]  # runtime-built msgspec type

    class SessionState(Base):
        """``get_state`` data (pi)."""

        thinkingLevel: Level  # type: ignore[valid-type]  # runtime-built msgspec type
        isStreaming: bool
        isCompacting: bool
        steeringMode: p.QueueMode
        followUpMode: p.QueueMode
        sessionId: str
        autoCompactionEnabled: bool
        messageCount: int
        pendingMessageCount: int
        model: Opt[Union[ModelT, None]] if spec.doc_shapes else Opt[ModelT] = UNSET  # type: ignore[valid-type]  # runtime-built msgspec type
        sessionFile: Opt[str] = UNSET
        sessionName: Opt[str] = UNSET

    data: dict[str, DataSpec] = {
        "prompt": NONE, "steer": NONE, "follow_up": NONE, "abort": NONE,
        "new_session": DataSpec(p.Cancelled),
        "get_state": DataSpec(SessionState),
        "get_messages": DataSpec(MessagesData),
        "set_model": DataSpec(ModelT),
        "cycle_model": DataSpec(Union[CycleModelData, None]),
        "get_available_models": DataSpec(ModelsData),
        "set_thinking_level": NONE,
        "cycle_thinking_level": DataSpec(Union[LevelData, None]),
        "set_steering_mode": NONE, "set_follow_up_mode": NONE,
        "compact": DataSpec(CompactionResult),
        "set_auto_compaction": NONE, "set_auto_retry": NONE, "abort_retry": NONE,
        "bash": DataSpec(p.BashResult), "abort_bash": NONE,
        "get_session_stats": DataSpec(p.FebSessionStats if spec.doc_shapes else p.SessionStats),
        "export_html": DataSpec(p.ExportResult),
        "switch_session": DataSpec(p.Cancelled),
        "fork": DataSpec(p.ForkResult),
        "get_fork_messages": DataSpec(ForkMessagesData),
        "get_last_assistant_text": DataSpec(p.LastAssistantText),
        "set_session_name": NONE,
        "get_commands": DataSpec(CommandsData),
    }
    if not spec.doc_shapes:
        data["clone"] = DataSpec(p.Cancelled)
    if spec.delta_updates or spec.omp_family:

        class LevelsData(Base):
            levels: list[Level]  # type: ignore[valid-type]  # runtime-built msgspec type

        class EntriesData(Base):
            entries: list[entry]
            leafId: Union[str, None]

        class TreeData(Base):
            tree: list[TreeNode[entry]]
            leafId: Union[str, None]

        data["get_available_thinking_levels"] = DataSpec(LevelsData)
        data["get_entries"] = DataSpec(EntriesData)
        data["get_tree"] = DataSpec(TreeData)
    if spec.delta_updates:
        data["clear_queue"] = DataSpec(p.QueueContents)
    if spec.dispositions:
        data["prompt"] = DataSpec(PromptDisposition)
        data["steer"] = data["follow_up"] = DataSpec(QueuedDisposition)
    if spec.omp_family:
        from rpcspy.protocol.omp_session import OmpBashResult, OmpSessionStats  # omp's modules: only for omp

        for name in ("fork", "get_fork_messages", "get_commands", "clone"):
            data.pop(name, None)
        data["branch"] = DataSpec(p.ForkResult)
        data["get_branch_messages"] = DataSpec(ForkMessagesData)
        data["get_state"] = DataSpec(omp_state(Level, ModelT))
        data["bash"] = DataSpec(OmpBashResult)
        data["get_session_stats"] = DataSpec(OmpSessionStats)
    return data


def omp_state(Level: Any, ModelT: Any) -> type:
    """omp ``get_state`` data: ``queuedMessageCount`` instead of ``pendingMessageCount``, and more."""
    from rpcspy.protocol.omp_session import OmpTodoPhase

    class OmpSessionState(Base):
        isStreaming: bool
        isCompacting: bool
        steeringMode: p.QueueMode
        followUpMode: p.QueueMode
        interruptMode: lit(("immediate", "wait"))  # type: ignore[valid-type]  # runtime-built msgspec type
        sessionId: str
        autoCompactionEnabled: bool
        messageCount: int
        queuedMessageCount: int
        todoPhases: list[OmpTodoPhase]
        fastModeEnabled: Opt[bool] = UNSET
        fastModeActive: Opt[bool] = UNSET
        tokensPerSecond: Opt[Union[float, None]] = UNSET
        thinkingLevel: Opt[Level] = UNSET
        model: Opt[ModelT] = UNSET
        sessionFile: Opt[str] = UNSET
        sessionName: Opt[str] = UNSET
        hasPendingAsyncWork: Opt[bool] = UNSET
        isSettled: Opt[bool] = UNSET
        queuedMessages: Opt[p.QueueContents] = UNSET
        systemPrompt: Opt[list[str]] = UNSET
        dumpTools: Opt[list[Any]] = UNSET
        contextUsage: Opt[p.ContextUsage] = UNSET

    return OmpSessionState
