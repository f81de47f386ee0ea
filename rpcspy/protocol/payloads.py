"""Payload types shared by responses and events: models, session state, stats, results.

protocol-notes 3.0 (pi 0.73.1), 10.4/10.6 (pi >= 0.84), 5.6 (omp) and seed 003.
"""

from typing import Any, Literal, Union

from msgspec import UNSET

from rpcspy.protocol.base import Base, Open, Opt

QueueMode = Literal["all", "one-at-a-time"]


class ModelCost(Base):
    input: float
    output: float
    cacheRead: float
    cacheWrite: float


class Model(Base):
    id: str
    name: str
    api: str
    provider: str
    baseUrl: str
    reasoning: bool
    input: list[Literal["text", "image"]]
    cost: ModelCost
    contextWindow: int
    maxTokens: int
    thinkingLevelMap: Opt[dict[str, Union[str, None]]] = UNSET
    headers: Opt[dict[str, str]] = UNSET
    compat: Opt[dict[str, Any]] = UNSET


class OmpModel(Model):
    """omp adds provider identity and capability flags."""

    identity: Opt[dict[str, Any]] = UNSET
    requiresGlyphTokenization: Opt[bool] = UNSET
    supportsComputerUse: Opt[bool] = UNSET
    compatConfig: Opt[dict[str, Any]] = UNSET
    thinking: Opt[Any] = UNSET


class TokenTotals(Base):
    input: int
    output: int
    cacheRead: int
    cacheWrite: int
    total: int


class ContextUsage(Base):
    tokens: Union[int, None]
    """``null`` right after compaction."""
    contextWindow: int
    percent: Union[float, None]


class FebSessionStats(Base):
    """Feb-2026 doc: no ``contextUsage`` yet."""

    sessionId: str
    userMessages: int
    assistantMessages: int
    toolCalls: int
    toolResults: int
    totalMessages: int
    tokens: TokenTotals
    cost: float
    sessionFile: Opt[str] = UNSET


class SessionStats(FebSessionStats):
    contextUsage: Opt[ContextUsage] = UNSET


class BashResult(Base):
    output: str
    cancelled: bool
    truncated: bool
    exitCode: Opt[int] = UNSET
    """Absent when cancelled."""
    fullOutputPath: Opt[str] = UNSET


class SourceInfo(Base):
    path: str
    source: str
    scope: Literal["user", "project", "temporary"]
    origin: Literal["package", "top-level"]
    baseDir: Opt[str] = UNSET


class SlashCommand(Base):
    """``get_commands`` item (pi >= 0.62: ``sourceInfo``)."""

    name: str
    source: Literal["extension", "prompt", "skill"]
    sourceInfo: SourceInfo
    description: Opt[str] = UNSET


class FebSlashCommand(Base):
    """``get_commands`` item as the Feb-2026 doc shows it (``location``/``path``)."""

    name: str
    source: Literal["extension", "prompt", "skill"]
    description: Opt[str] = UNSET
    location: Opt[Literal["user", "project", "path"]] = UNSET
    path: Opt[str] = UNSET


class Cancelled(Base):
    cancelled: bool


class ForkResult(Base):
    cancelled: bool
    text: Opt[str] = UNSET
    """Absent when an extension cancelled."""


class ExportResult(Base):
    path: str


class LastAssistantText(Base):
    """pi sends ``{}`` (key absent) when there is no assistant text."""

    text: Opt[Union[str, None]] = UNSET


class QueueContents(Base):
    """``queue_update`` lists / ``clear_queue`` data: message texts only."""

    steering: list[str]
    followUp: list[str]


class SessionTreeEntryBase(Base, tag_field="type"):
    """Common fields of session entries (``get_entries``, ``entry_appended``)."""

    id: str
    parentId: Union[str, None]
    timestamp: str


class ModelChangeEntry(SessionTreeEntryBase, tag="model_change"):
    provider: str
    modelId: str


class ThinkingLevelChangeEntry(SessionTreeEntryBase, tag="thinking_level_change"):
    thinkingLevel: str


class SessionInfoEntry(SessionTreeEntryBase, tag="session_info"):
    name: Opt[str] = UNSET


class ContextEditEntry(SessionTreeEntryBase, tag="context_edit"):
    targetId: str
    replacement: Any


class _OpenEntry(Open, tag_field="type"):
    id: str
    parentId: Union[str, None]
    timestamp: str


class CompactionEntry(_OpenEntry, tag="compaction"):
    summary: str


class BranchSummaryEntry(_OpenEntry, tag="branch_summary"):
    summary: str


class CustomEntry(_OpenEntry, tag="custom"):
    customType: str


class CustomMessageEntry(_OpenEntry, tag="custom_message"):
    customType: str


class LabelEntry(_OpenEntry, tag="label"):
    targetId: str


OTHER_ENTRIES = (ModelChangeEntry, ThinkingLevelChangeEntry, SessionInfoEntry, ContextEditEntry,
                 CompactionEntry, BranchSummaryEntry, CustomEntry, CustomMessageEntry, LabelEntry)
"""Every session entry type except ``message`` (which needs the dialect's messages)."""
