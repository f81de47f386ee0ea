"""Dialect-aware helpers for driving a run: prompt, wait until idle, pick events apart."""

from __future__ import annotations

from typing import Any

from tests.support.driver import AgentProcess, Predicate

Event = dict[str, Any]


def idle_event(dialect: str) -> str:
    """The event that closes a run: pi >= 0.84 adds ``agent_settled`` after ``agent_end``."""
    return "agent_settled" if dialect in ("pi-0.84", "pi-0.99") else "agent_end"


def is_idle(dialect: str) -> Predicate:
    kind = idle_event(dialect)
    return lambda msg: msg.get("type") == kind


def prompt(ap: AgentProcess, dialect: str, message: str, id_: str, timeout: float = 30.0) -> list[Event]:
    """Send a ``prompt`` and read until the run is over; return every frame read."""
    ap.send({"id": id_, "type": "prompt", "message": message})
    return ap.read_until(is_idle(dialect), timeout)


def assistant_events(events: list[Event], kind: str) -> list[Event]:
    """The ``assistantMessageEvent``s of type ``kind`` (``text_delta``, ``thinking_delta``...)."""
    return [
        e["assistantMessageEvent"]
        for e in events
        if e.get("type") == "message_update" and e.get("assistantMessageEvent", {}).get("type") == kind
    ]


def joined_deltas(events: list[Event], kind: str) -> str:
    """The concatenated ``delta`` strings of the ``kind`` events."""
    return "".join(e.get("delta", "") for e in assistant_events(events, kind))


def of_type(events: list[Event], *types: str) -> list[Event]:
    return [e for e in events if e.get("type") in types]


def last_assistant(events: list[Event]) -> Event:
    """The message of the last assistant ``message_end``."""
    ends = [e["message"] for e in of_type(events, "message_end") if e["message"].get("role") == "assistant"]
    assert ends, "no assistant message_end in the run"
    return ends[-1]
