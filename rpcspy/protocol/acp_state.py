"""An ACP session's state, followed message by message (pure): what the checker's rules and ``why`` read.

:meth:`AcpState.message` classifies each decoded JSON-RPC message, pairs it (:class:`~rpcspy.protocol.
pairing.Conversation`), records what ``initialize`` negotiated, the sessions, their prompt turns, tool
calls and outstanding agent requests, and returns a :class:`Step` saying what happened; it never
judges. The checker (:mod:`rpcspy.checker.acp`) turns steps into findings.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from rpcspy.protocol.acp import CANCEL, INITIALIZE, NOTIFICATIONS, PERMISSION, PROMPT, UPDATE, Negotiated, kind_of
from rpcspy.protocol.pairing import Answer, Conversation, Pending

SESSION_OPENERS = frozenset({"session/load", "session/resume"})
"""Requests whose ``params.sessionId`` names a session the client already knows (``session/new``'s is in
its result)."""


@dataclass(slots=True)
class ToolCall:
    id: str
    seq: int
    status: str
    title: str = ""
    updates: int = 0


@dataclass(slots=True)
class Session:
    id: str
    seq: int
    """The frame that made it known (the ``session/new`` answer, or a load/resume request)."""
    prompts: list[Pending] = field(default_factory=list)
    """``session/prompt`` requests not answered yet."""
    cancel: tuple[int, float] | None = None
    """(seq, t) of a ``session/cancel`` sent while a prompt was outstanding, until that prompt is answered."""
    tools: dict[str, ToolCall] = field(default_factory=dict)
    asked: dict[int, Pending] = field(default_factory=dict)
    """The agent's requests to the client for this session not answered yet, by seq."""


@dataclass(slots=True)
class Step:
    """What one message was."""

    kind: str
    """``request``, ``notification``, ``response``, ``invalid``."""
    method: str | None = None
    pending: Pending | None = None
    """A request: it, waiting; a response: the request it answers (None when unknown)."""
    older: Pending | None = None
    """A request reusing an id still waiting on the same side."""
    answer: Answer | None = None
    session: Session | None = None
    session_id: Any = None
    """The ``sessionId`` the message names (params, or the answered request's params)."""
    cancel: tuple[int, float] | None = None
    """A ``session/prompt`` answer: the ``session/cancel`` (seq, t) sent while it was outstanding."""


class AcpState:
    """Feed every decoded message in stream order (``direction`` ``c2a`` or ``a2c``)."""

    def __init__(self, *, bounded: bool = False) -> None:
        self.conv = Conversation(bounded=bounded)
        self.negotiated = Negotiated()
        self.sessions: dict[str, Session] = {}
        self.initialize_seq: int | None = None
        self.initialized = False
        self.t = 0.0

    def message(self, direction: str, seq: int, t: float, obj: dict[str, Any]) -> Step:
        self.t = t
        kind = kind_of(obj)
        if kind == "response":
            return self._response(direction, seq, obj)
        if kind == "invalid":
            return Step("invalid")
        method = obj.get("method")
        method = method if isinstance(method, str) else None
        params = obj.get("params")
        sid = params.get("sessionId") if isinstance(params, dict) else None
        session = self.sessions.get(sid) if isinstance(sid, str) else None
        if kind == "notification" or (method is not None and method in NOTIFICATIONS):
            if method == CANCEL and session is not None and session.prompts and session.cancel is None:
                session.cancel = (seq, t)
            if method == UPDATE and session is not None and isinstance(params, dict):
                self._update(session, seq, params.get("update"))
            return Step(kind, method, session=session, session_id=sid)
        pending, older = self.conv.request(direction, seq, t, obj)
        if method == INITIALIZE and direction == "c2a":
            self.initialize_seq = seq
            self.negotiated.initialize_sent(params)
        elif method in SESSION_OPENERS and isinstance(sid, str) and session is None:
            session = self.sessions[sid] = Session(sid, seq)
        if session is not None:
            if method == PROMPT:
                session.prompts.append(pending)
            elif direction == "a2c":
                session.asked[seq] = pending
                if method == PERMISSION and isinstance(params, dict):
                    self._tool(session, seq, params.get("toolCall"), announce=True)
        pending.note = sid
        return Step("request", method, pending, older, session=session, session_id=sid)

    def _response(self, direction: str, seq: int, obj: dict[str, Any]) -> Step:
        answer = self.conv.response(direction, seq, obj)
        p = answer.command
        if p is None or not answer.fresh:
            return Step("response", answer=answer, pending=p, method=p.type if p is not None else None)
        method = p.type if isinstance(p.type, str) else None
        result = obj.get("result")
        sid = p.note
        if method == INITIALIZE and direction == "a2c":
            self.initialized = "result" in obj
            self.negotiated.initialize_answered(result)
        elif method == "session/new" and isinstance(result, dict) and isinstance(result.get("sessionId"), str):
            sid = result["sessionId"]
            self.sessions.setdefault(sid, Session(sid, seq))
        session = self.sessions.get(sid) if isinstance(sid, str) else None
        cancel = None
        if session is not None:
            if p in session.prompts:
                session.prompts.remove(p)
                cancel = session.cancel
                if not session.prompts:
                    session.cancel = None
            session.asked.pop(p.seq, None)
        return Step("response", method, p, answer=answer, session=session, session_id=sid, cancel=cancel)

    def _update(self, session: Session, seq: int, update: Any) -> None:
        if not isinstance(update, dict):
            return
        if update.get("sessionUpdate") == "tool_call":
            self._tool(session, seq, update, announce=True)
        elif update.get("sessionUpdate") == "tool_call_update":
            self._tool(session, seq, update, announce=False)

    @staticmethod
    def _tool(session: Session, seq: int, call: Any, *, announce: bool) -> None:
        """Record a tool call (announced) or an update of a known one (the rules compare before this)."""
        if not isinstance(call, dict) or not isinstance(call.get("toolCallId"), str):
            return
        tid, status = call["toolCallId"], call.get("status")
        known = session.tools.get(tid)
        if known is None:
            if announce:
                title = call.get("title")
                session.tools[tid] = ToolCall(tid, seq, status if isinstance(status, str) else "pending",
                                              title if isinstance(title, str) else "")
            return
        known.updates += 1
        if isinstance(status, str):
            known.status = status
        if isinstance(call.get("title"), str):
            known.title = call["title"]

    def waiting(self) -> list[tuple[str, Pending]]:
        """(sender's direction, request) still unanswered, oldest first."""
        return self.conv.waiting()
