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

__all__ = ["Names", "names", "ANSWER_TYPES", "AGENT_REQUEST_TYPES", "HOST_REQUEST_TYPES", "AGENT_CANCEL_TYPES", "ECHO_TYPES",
           "DIALOG_METHODS", "FIRE_AND_FORGET_METHODS", "DIALOGS", "RUN_COMMANDS", "QUEUE_COMMANDS",
           "DISPOSED_COMMANDS", "RESPONSE_TYPE"]
