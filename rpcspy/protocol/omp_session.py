"""omp's own session entries and todo lists (omp 18.3.4 ``session-entries.d.ts`` and ``isTodoPhase``).

pi's entry shapes (``payloads.OTHER_ENTRIES``) do not fit omp: omp's ``model_change`` carries one
``model`` string, its ``thinking_level_change`` may hold ``null``, and it has entry types pi does
not (``model_usage``, ``title_change``, ``session_init``, ...). Entries are
:class:`~rpcspy.protocol.base.Open` (omp adds fields often); the fields typed here are the ones
the 18.3.4 types require.
"""

from typing import Any, Literal, Union

import msgspec
from msgspec import UNSET

from rpcspy.protocol.base import Open, Opt, opt
from rpcspy.protocol.messages import MessageTypes
from rpcspy.protocol.payloads import BashResult, ContextUsage, FebSessionStats, TokenTotals

TODO_STATUSES = ("pending", "in_progress", "completed", "abandoned", "blocked")


class OmpTodoItem(Open):
    """A task of a todo phase: omp checks ``content`` and ``status`` only (no ``id``)."""

    content: str
    status: Literal["pending", "in_progress", "completed", "abandoned", "blocked"]
    id: Opt[str] = UNSET


class OmpTodoPhase(Open):
    """``set_todos.phases[]``, ``get_state.todoPhases[]``: a named list of tasks."""

    name: str
    tasks: list[OmpTodoItem]
    id: Opt[str] = UNSET


class _Entry(Open, tag_field="type"):
    id: str
    parentId: Union[str, None]
    timestamp: str


def _entry(tag: str, **fields: Any) -> type:
    name = "Omp" + "".join(w.capitalize() for w in tag.split("_")) + "Entry"
    spec = [(k, *v) if isinstance(v, tuple) else (k, v) for k, v in fields.items()]
    return msgspec.defstruct(name, spec, bases=(_Entry,), tag=tag)


OMP_OTHER_ENTRIES = (
    _entry("model_usage", purpose=str, api=str, provider=str, model=str, usage=Any, stopReason=str),
    _entry("thinking_level_change", thinkingLevel=(opt(Union[str, None]), UNSET),
           configured=(opt(Union[str, None]), UNSET)),
    _entry("model_change", model=str),
    _entry("service_tier_change", serviceTier=Any),
    _entry("compaction", summary=str, firstKeptEntryId=str, tokensBefore=float),
    _entry("branch_summary", fromId=str, summary=str),
    _entry("reset_boundary"),
    _entry("custom", customType=str),
    _entry("custom_message", customType=str, content=Any, display=bool),
    _entry("label", targetId=str),
    _entry("title_change", title=str, source=str),
    _entry("ttsr_injection", injectedRules=list[str]),
    _entry("session_init", systemPrompt=str, task=str, tools=list[str]),
    _entry("mode_change", mode=str),
    _entry("credential_pin", provider=str, hash=str),
)
"""Every omp session entry type except ``message`` (which needs the dialect's messages)."""


class OmpBashResult(BashResult):
    """omp's ``bash`` data (``exec/bash-executor.d.ts``): line and byte counts, artifacts."""

    totalLines: Opt[int] = UNSET
    totalBytes: Opt[int] = UNSET
    outputLines: Opt[int] = UNSET
    outputBytes: Opt[int] = UNSET
    timedOut: Opt[bool] = UNSET
    artifactId: Opt[str] = UNSET
    artifactError: Opt[Any] = UNSET
    workingDir: Opt[str] = UNSET
    images: Opt[list[Any]] = UNSET


class OmpTokens(TokenTotals):
    reasoning: Opt[int] = UNSET


class OmpSessionStats(FebSessionStats):
    """omp's ``get_session_stats`` data (``session/agent-session-types.d.ts``)."""

    tokens: OmpTokens
    premiumRequests: Opt[float] = UNSET
    credits: Opt[dict[str, Any]] = UNSET
    routedModels: Opt[dict[str, float]] = UNSET
    contextUsage: Opt[ContextUsage] = UNSET


def omp_entry_union(m: MessageTypes) -> Any:
    """omp's ``SessionEntry``: ``get_entries.entries[]``, ``get_tree`` nodes' ``entry``."""
    message = _entry("message", message=m.AgentMessage)
    return Union[(message, *OMP_OTHER_ENTRIES)]


__all__ = ["OmpTodoItem", "OmpTodoPhase", "OmpBashResult", "OmpSessionStats", "OMP_OTHER_ENTRIES", "omp_entry_union", "TODO_STATUSES"]
