"""The protocol's vocabulary: the sets of frame types and methods the rest of rpcspy sorts frames by.

One home for each set (pump, checker, render, replay and the REPL import them). They are literals,
so importing them costs nothing (the proxy imports them at start); tests/protocol/test_vocabulary.py
derives each from the dialects' schemas and fails when they drift apart.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any


class Names(frozenset[Any]):
    """A set of protocol names. ``x in names`` is False for any ``x`` that is not a string, so
    membership can be asked of whatever a hostile frame holds (a list ``type`` is unhashable)."""

    __slots__ = ()

    def __contains__(self, item: object) -> bool:
        return type(item) is str and frozenset.__contains__(self, item)


def names(items: Iterable[str]) -> Names:
    return Names(items)

ANSWER_TYPES = names({"extension_ui_response", "host_tool_update", "host_tool_result", "host_uri_result"})
"""Client frames that answer the agent (a dialog, an omp host tool or URI request): no response comes back.
Every client frame type of every dialect that is not a command."""

AGENT_REQUEST_TYPES = names({"extension_ui_request", "host_tool_call", "host_uri_request"})
"""Agent frames that ask the client something under an ``id`` of the agent's own (answered by
:data:`ANSWER_TYPES`; fire-and-forget ``extension_ui_request`` methods expect no answer)."""

HOST_REQUEST_TYPES = names(AGENT_REQUEST_TYPES - {"extension_ui_request"})
"""omp's host requests: every one of them waits for an answer."""

AGENT_CANCEL_TYPES = names({"host_tool_cancel", "host_uri_cancel"})
"""Agent frames withdrawing a host request (``targetId`` names it)."""

ECHO_TYPES = names({"response", "bash_execution_update", "prompt_result"})
"""Agent frames whose ``id`` is a client command's id."""

RESPONSE_TYPE = "response"
"""The agent frame that answers a command (``success``, ``data`` or ``error``)."""

RUN_COMMANDS = names({"prompt", "abort_and_prompt"})
"""Commands whose success starts a run (unless a pi >= 0.99 ``disposition`` says otherwise)."""

QUEUE_COMMANDS = names({"steer", "follow_up"})
"""Commands that queue a message for the current (or next) run."""

DISPOSED_COMMANDS = names({"prompt", "steer", "follow_up"})
"""Commands whose success response carries ``data.disposition`` from pi 0.99 on."""

DIALOG_METHODS = ("select", "confirm", "input", "editor")
"""``extension_ui_request`` methods that wait for an ``extension_ui_response``."""

FIRE_AND_FORGET_METHODS = ("notify", "setStatus", "setWidget", "setTitle", "set_editor_text", "cancel", "open_url")
"""``extension_ui_request`` methods that expect no answer."""

DIALOGS = names(DIALOG_METHODS)
""":data:`DIALOG_METHODS` as a set, for membership tests."""

STOP_COMMANDS = names({"abort", "abort_and_prompt", "compact", "new_session", "switch_session", "fork", "clone",
                       "branch", "open_session", "handoff"})
"""Commands that end (or may tear down) a run in progress; their response can come after its settle."""

TEARDOWN_COMMANDS = names({"compact", "new_session", "switch_session", "fork", "clone", "branch", "open_session",
                           "handoff"})
"""Commands that replace the session or compact it, which may tear a run down (pi 0.73 drops the
run's closing events, or racing a ``prompt``, its opening ones): :data:`STOP_COMMANDS` but the aborts."""

SESSION_START_COMMANDS = names({"new_session", "switch_session", "fork", "clone"})
"""pi commands that replace the session and run extensions' ``session_start`` handlers before they are
answered (pi 1.6 once, 1.5 twice): what a handler emits comes before the response, and a dialog it opens
holds the response until answered (protocol-notes 12)."""

SLOW_COMMANDS = names({"bash", "compact", "abort", "new_session", "switch_session", "fork", "clone", "branch"})
"""Commands whose response may legitimately take long (never reported as overdue)."""

RUN_START = "agent_start"
RUN_END = "agent_end"
SETTLED = "agent_settled"
"""pi >= 0.84: the agent is idle (after the run, its retries, compaction and queued messages)."""
RUN_BOUNDARIES = names({RUN_START, RUN_END, SETTLED})
"""Events that open, close or settle a run: whatever prompt was starting has started (or lost its start)."""
OMP_PROMPT_RESULT = "prompt_result"
"""omp >= 18.3: closes one accepted prompt (by its id), after its work settles."""
OMP_SESSION_SETTLED = "session_settled"

COMPACTION_START = names({"compaction_start", "auto_compaction_start"})
COMPACTION_END = names({"compaction_end", "auto_compaction_end"})
RETRY_START = "auto_retry_start"
RETRY_END = "auto_retry_end"
QUEUE_UPDATE = "queue_update"
"""pi: full current queues (``steering``, ``followUp``) on every change."""

NOT_EMITTED_BY_OMP = names({"agent_settled", "compaction_start", "compaction_end"})
"""Paired events omp never emits: a ``set_event_filter`` without them hides nothing."""

HOST_CALLS: dict[str, str] = {"host_tool_call": "host_tool_result", "host_uri_request": "host_uri_result"}
"""omp requests to the host and the client frame that answers each."""
HOST_CANCELS: dict[str, str] = {"host_tool_cancel": "host_tool_call", "host_uri_cancel": "host_uri_request"}
"""omp's cancels and the request each withdraws."""

MESSAGE_EDGES = names({"message_start", "message_end"})
"""Events that carry a whole ``message`` (its ``role``): one opens it, one closes it."""
MESSAGE_EVENTS = names({"message_start", "message_update", "message_end"})
""":data:`MESSAGE_EDGES` and the ``message_update`` events streamed between them."""
TOOL_EXECUTION_EVENTS = names({"tool_execution_start", "tool_execution_update", "tool_execution_end"})
"""The frames of one tool call: ordered within the call; parallel calls interleave freely."""
SNAPSHOT_EVENTS = names({"message_start", "message_update"})
"""Events that carry the message being streamed as it is when the frame is written (its usage too);
``message_end`` carries the final message."""
PROGRESS_UPDATES = names({"message_update", "tool_execution_update"})
"""Progress frames: how many of them a run sends depends on how the data arrived."""
OUTPUT_UPDATES = names({"tool_execution_update", "bash_execution_update"})
"""Events that stream a running tool's or ``bash`` command's output so far."""
RUN_PROGRESS_EVENTS = names({"agent_start", "turn_start", "turn_end", "message_start", "message_update", "message_end",
                             "tool_execution_start", "tool_execution_update", "tool_execution_end", "queue_update"})
"""Events that report a run's progress, many per prompt (answer nothing, close nothing a client waits on
but the run itself)."""
READY = "ready"
"""omp: the agent is ready for commands (sent once, first)."""

DELTA_EVENTS = names({"text_delta", "thinking_delta", "toolcall_delta"})
"""``assistantMessageEvent`` types that carry a piece of a content block."""

__all__ = ["Names", "names", "ANSWER_TYPES", "AGENT_REQUEST_TYPES", "HOST_REQUEST_TYPES", "AGENT_CANCEL_TYPES", "ECHO_TYPES",
           "DIALOG_METHODS", "FIRE_AND_FORGET_METHODS", "DIALOGS", "RUN_COMMANDS", "QUEUE_COMMANDS",
           "DISPOSED_COMMANDS", "STOP_COMMANDS", "TEARDOWN_COMMANDS", "SESSION_START_COMMANDS", "SLOW_COMMANDS", "RUN_START", "RUN_END",
           "SETTLED", "RUN_BOUNDARIES", "OMP_PROMPT_RESULT", "OMP_SESSION_SETTLED", "COMPACTION_START",
           "COMPACTION_END", "RETRY_START", "RETRY_END", "QUEUE_UPDATE", "NOT_EMITTED_BY_OMP", "HOST_CALLS",
           "HOST_CANCELS", "DELTA_EVENTS", "MESSAGE_EDGES", "MESSAGE_EVENTS", "TOOL_EXECUTION_EVENTS",
           "SNAPSHOT_EVENTS", "PROGRESS_UPDATES", "OUTPUT_UPDATES", "RUN_PROGRESS_EVENTS",
           "READY", "RESPONSE_TYPE"]
