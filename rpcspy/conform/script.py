"""What a conformance case does (steps) and what it saw (a transcript), plus its verdict. Pure."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Literal

from rpcspy.events import Finding, Frame

Status = Literal["passed", "deviation", "failed", "skipped"]
STATUSES: tuple[Status, ...] = ("passed", "deviation", "failed", "skipped")


@dataclass(frozen=True)
class Send:
    """Write ``pieces`` to the agent's stdin, ``gap`` seconds apart (one piece: one write)."""

    pieces: tuple[bytes, ...]
    gap: float = 0.1


def send(obj: dict[str, Any] | bytes, end: bytes = b"\n") -> Send:
    """One write: a command as compact JSON (raw non-ASCII) plus ``end``, or raw bytes as given."""
    if isinstance(obj, bytes):
        return Send((obj,))
    return Send((json.dumps(obj, ensure_ascii=False, separators=(",", ":")).encode() + end,))


AwaitKind = Literal["response", "event", "dialog", "delta", "idle", "exit", "quiet", "rpc", "request", "update", "turn"]


@dataclass(frozen=True)
class Await:
    """Read until: the ``response`` to id ``arg`` (None: any id-less response); the ``event`` of
    type ``arg``; a ``dialog`` request (``extension_ui_request`` of a dialog method); the first text ``delta``; ``idle`` (an ``agent_end`` then ``arg`` s of
    quiet, default 0.7); the agent's ``exit``; or ``quiet`` for ``arg`` seconds.
    ACP (JSON-RPC): the ``rpc`` response to id ``arg``; the agent's ``request`` of method ``arg``;
    a ``session/update`` whose ``sessionUpdate`` is ``arg``; the ``turn``: every ``session/prompt``
    the case sent answered.
    ``count``: wait for that many matches (counted from the start of the case)."""

    kind: AwaitKind
    arg: Any = None
    timeout: float = 15.0
    count: int = 1


@dataclass(frozen=True)
class Close:
    """Close the agent's stdin (EOF)."""


@dataclass(frozen=True)
class Kill:
    """Send signal ``signum`` to the agent."""

    signum: int = 15


@dataclass(frozen=True)
class Answer:
    """Answer the latest dialog request (``extension_ui_request`` of a dialog method) with
    ``{"type": "extension_ui_response", "id": <its id>, **payload}``."""

    payload: tuple[tuple[str, Any], ...]


@dataclass(frozen=True)
class Grant:
    """ACP: answer the agent's latest unanswered ``session/request_permission`` with its first
    option whose ``kind`` starts with ``kind`` (``allow``, ``reject``), or ``cancelled``."""

    kind: str


@dataclass(frozen=True)
class Trigger:
    """ACP: send ``session/prompt`` with each text in turn (ids ``ids``) until one makes the agent
    ask a permission (``session/request_permission``); a turn that ends without one moves on to
    the next text. Agents ask for different things: omp for a shell command, pi-acp for an
    extension's confirm dialog."""

    texts: tuple[str, ...]
    ids: tuple[int, ...]
    timeout: float = 30.0


Step = Send | Await | Close | Kill | Answer | Grant | Trigger


@dataclass
class Transcript:
    """Everything a case saw: frames of both directions in order, waits that timed out, the exit."""

    frames: list[Frame] = field(default_factory=list)
    timeouts: list[str] = field(default_factory=list)
    exit_code: int | None = None
    """The agent's exit status if it exited before the runner tore it down (-N: signal N)."""
    stderr: str = ""
    findings: list[Finding] = field(default_factory=list)
    """What rpcspy's checker says about the frames."""

    def objs(self, direction: str = "a2c") -> list[dict[str, Any]]:
        """The JSON objects of one direction (lines that are not objects are left out)."""
        out = []
        for f in self.frames:
            if f.dir != direction:
                continue
            try:
                value = json.loads(f.data)
            except ValueError:
                continue
            if isinstance(value, dict):
                out.append(value)
        return out

    def responses(self, id_: Any = ..., *, idless: bool = False) -> list[dict[str, Any]]:
        """Responses echoing ``id_`` (any id when omitted), or only id-less ones."""
        rs = [o for o in self.objs() if o.get("type") == "response"]
        if idless:
            return [o for o in rs if "id" not in o]
        return rs if id_ is ... else [o for o in rs if o.get("id") == id_]

    def events(self, *types: str) -> list[dict[str, Any]]:
        return [o for o in self.objs() if o.get("type") in types]

    def types(self) -> list[str]:
        return [str(o.get("type")) for o in self.objs()]

    # -- JSON-RPC (ACP) ---------------------------------------------------------------------
    def rpc(self, id_: Any) -> list[dict[str, Any]]:
        """The agent's JSON-RPC responses to ``id_`` (same value and type: ``1`` is not ``"1"``)."""
        return [o for o in self.objs() if "method" not in o and ("result" in o or "error" in o)
                and same_id(o.get("id"), id_)]

    def sent(self) -> list[dict[str, Any]]:
        """The client's JSON objects (what the case sent)."""
        return self.objs("c2a")

    def requests(self, method: str) -> list[dict[str, Any]]:
        """The agent's requests (with an id) of ``method``."""
        return [o for o in self.objs() if o.get("method") == method and "id" in o]

    def updates(self, kind: str | None = None) -> list[dict[str, Any]]:
        """The ``update`` objects of the agent's ``session/update`` notifications (of one kind)."""
        out = []
        for o in self.objs():
            if o.get("method") != "session/update":
                continue
            update = (o.get("params") or {}).get("update")
            if isinstance(update, dict) and (kind is None or update.get("sessionUpdate") == kind):
                out.append(update)
        return out

    def rules(self, prefix: str = "") -> list[str]:
        """Checker rule ids found (``prefix`` filters: ``lifecycle.``)."""
        return [f.rule for f in self.findings if f.rule.startswith(prefix)]

    @property
    def died(self) -> bool:
        return self.exit_code is not None


def same_id(a: Any, b: Any) -> bool:
    """JSON-RPC id equality: value and type (``True`` is not ``1``, ``1`` is not ``"1"``)."""
    return type(a) is type(b) and a == b


@dataclass(frozen=True)
class Verdict:
    status: Status
    detail: str


def passed(detail: str) -> Verdict:
    return Verdict("passed", detail)


def deviation(detail: str) -> Verdict:
    return Verdict("deviation", detail)


def failed(detail: str) -> Verdict:
    return Verdict("failed", detail)


def skipped(detail: str) -> Verdict:
    return Verdict("skipped", detail)


def short(obj: Any, limit: int = 160) -> str:
    """A one-line JSON rendering cut at ``limit`` characters."""
    text = json.dumps(obj, ensure_ascii=False)
    return text if len(text) <= limit else text[: limit - 3] + "..."
