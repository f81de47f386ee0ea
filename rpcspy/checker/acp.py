"""The ACP rules (``acp.*``): a JSON-RPC session's messages judged against the ACP v1 schema's prose.

The :class:`~rpcspy.protocol.acp_state.AcpState` follows the session; this module compares each
message with the state before it and reports: unknown or duplicate response ids, notifications with an
id, requests without one, methods the negotiated capabilities do not allow, unknown sessions and tool
calls, tool statuses going backwards, a prompt answered over an open permission dialog, a cancel not
honoured, malformed error objects, and, at the end, requests never answered. A success ``result`` is
checked against its request's method (``schema.*`` findings, related to the request).
"""

from __future__ import annotations

from typing import Any

from rpcspy.checker.findings import Sink
from rpcspy.protocol.acp import (
    AGENT_REQUESTS,
    CANCEL,
    CANCELLED,
    CLIENT_METHODS,
    INITIALIZE,
    NOTIFICATIONS,
    PERMISSION,
    PROMPT,
    STATUS_ORDER,
    UPDATE,
    error_shape,
    kind_of,
    validate_result,
)
from rpcspy.protocol.acp_state import AcpState, Session
from rpcspy.protocol.acp_types import PROTOCOL_VERSION
from rpcspy.protocol.pairing import show_id

_KINDS = frozenset({"unknown_type", "missing_field", "wrong_type", "bad_enum", "unknown_field", "invalid"})
_SESSIONLESS = frozenset({INITIALIZE, "authenticate", "logout", "session/new", "session/list",
                          "session/load", "session/resume", "$/cancel_request"})
"""Methods whose ``sessionId`` (if any) is not one an earlier message must have made known."""


def _who(direction: str) -> str:
    return "client" if direction == "c2a" else "agent"


class AcpRules:
    """Feed every decoded message (``dict``) in stream order; :meth:`finish` at the end."""

    def __init__(self, sink: Sink) -> None:
        self.sink = sink
        self.state = AcpState()
        self._heard: dict[str, float] = {}
        """When the agent last said something about each session (an update, a request of its own)."""

    def message(self, t: float, seq: int, direction: str, obj: dict[str, Any]) -> None:
        kind = kind_of(obj)
        method = obj.get("method")
        method = method if isinstance(method, str) else None  # a hostile method (a list...) is no name
        if kind == "request" and method in NOTIFICATIONS:
            self.sink.emit("acp.notification_with_id", t, seq, direction,
                           f"`{method}` is a notification but carries id {show_id(obj['id'])}", path="$.id")
            obj = {k: v for k, v in obj.items() if k != "id"}
        elif kind == "notification" and isinstance(method, str) and (method in CLIENT_METHODS or
                                                                     method in AGENT_REQUESTS) \
                and method not in NOTIFICATIONS:
            self.sink.emit("acp.request_without_id", t, seq, direction,
                           f"`{method}` is a request but has no id: no answer will come")
        if kind == "response":
            self._before_response(t, seq, direction, obj)
        elif kind in ("request", "notification") and isinstance(method, str):
            self._before_call(t, seq, direction, method, obj)
        step = self.state.message(direction, seq, t, obj)
        if step.kind == "response":
            self._answered(t, seq, direction, obj, step)
        if direction == "a2c" and isinstance(step.session_id, str):
            self._heard[step.session_id] = t

    # ---- requests and notifications ---------------------------------------------------------------
    def _before_call(self, t: float, seq: int, direction: str, method: str, obj: dict[str, Any]) -> None:
        state, sink = self.state, self.sink
        if method != INITIALIZE and not state.initialized and "id" in obj and not method.startswith("_"):
            sink.emit("acp.before_initialize", t, seq, direction,
                      f"`{method}` sent before `initialize` was answered")
        gate = state.negotiated.refused(method)
        if gate is not None:
            sink.emit("acp.capability", t, seq, direction,
                      f"`{method}` needs `{gate.spelled}`, which the {gate.by} did not advertise in `initialize`",
                      related=state.initialize_seq)
        params = obj.get("params")
        if method == PROMPT:
            for index, flag in state.negotiated.refused_content(params):
                sink.emit("acp.capability", t, seq, direction, f"prompt block {index} needs "
                          f"`agentCapabilities.promptCapabilities.{flag}`, not advertised",
                          path=f"$.params.prompt[{index}]", related=state.initialize_seq)
        if not isinstance(params, dict):
            return
        sid = params.get("sessionId")
        if method in _SESSIONLESS or not isinstance(sid, str):
            return
        session = state.sessions.get(sid)
        if session is None:
            sink.emit("acp.unknown_session", t, seq, direction,
                      f"`{method}` for session {sid!r}, which no `session/new`, load or resume made",
                      path="$.params.sessionId")
            return
        if method == UPDATE:
            self._update(t, seq, session, params.get("update"))
        elif method == PERMISSION:
            call = params.get("toolCall")
            if isinstance(call, dict):
                self._status(t, seq, session, call, "$.params.toolCall", announces=True)

    def _update(self, t: float, seq: int, session: Session, update: Any) -> None:
        if not isinstance(update, dict):
            return
        kind = update.get("sessionUpdate")
        if kind == "tool_call_update":
            self._status(t, seq, session, update, "$.params.update", announces=False)
        elif kind == "tool_call" and isinstance(update.get("toolCallId"), str) and update["toolCallId"] in session.tools:
            self._status(t, seq, session, update, "$.params.update", announces=True)

    def _status(self, t: float, seq: int, session: Session, call: dict[str, Any], path: str, *,
                announces: bool) -> None:
        tid, status = call.get("toolCallId"), call.get("status")
        if not isinstance(tid, str):
            return
        known = session.tools.get(tid)
        if known is None:
            if not announces:
                self.sink.emit("acp.unknown_tool_call", t, seq, "a2c",
                               f"tool_call_update for {tid!r}, which no `tool_call` announced",
                               path=f"{path}.toolCallId")
            return
        if not isinstance(status, str) or status not in STATUS_ORDER or known.status not in STATUS_ORDER:
            return
        done = STATUS_ORDER[known.status] == 2
        if STATUS_ORDER[status] < STATUS_ORDER[known.status] or (done and status != known.status):
            self.sink.emit("acp.tool_status_backwards", t, seq, "a2c",
                           f"tool call {tid!r} goes from {known.status!r} to {status!r}",
                           path=f"{path}.status", related=known.seq)

    # ---- responses --------------------------------------------------------------------------------
    def _before_response(self, t: float, seq: int, direction: str, obj: dict[str, Any]) -> None:
        if "error" in obj:
            wrong = error_shape(obj["error"])
            if wrong is not None:
                self.sink.emit("acp.bad_error", t, seq, direction, wrong, path="$.error")
        if "result" in obj and "error" in obj:
            self.sink.emit("acp.bad_error", t, seq, direction, "a response has both `result` and `error`")

    def _answered(self, t: float, seq: int, direction: str, obj: dict[str, Any], step: Any) -> None:
        answer, p, sink = step.answer, step.pending, self.sink
        if answer.kind == "unknown_id":
            sink.emit("acp.unknown_id", t, seq, direction, f"response to id {show_id(obj.get('id'))}, which no "
                      f"{_who('a2c' if direction == 'c2a' else 'c2a')} request is waiting on", path="$.id")
            return
        if answer.kind == "duplicate":
            sink.emit("acp.duplicate_response", t, seq, direction, f"second response to `{p.type}` "
                      f"(id {show_id(p.id)}), first answered at frame {answer.first}", related=answer.first)
            return
        if p is None or not answer.fresh or not isinstance(p.type, str):
            return
        if "result" in obj and "error" not in obj:
            for issue in validate_result(p.type, obj["result"]):
                kind = issue.kind if issue.kind in _KINDS else "invalid"
                sink.emit(f"schema.{kind}", t, seq, direction, issue.message, path=issue.path, related=p.seq)
        session = step.session
        result = obj.get("result")
        if p.type == INITIALIZE and direction == "a2c" and isinstance(result, dict) \
                and result.get("protocolVersion", PROTOCOL_VERSION) != PROTOCOL_VERSION:
            sink.emit("acp.protocol_version", t, seq, direction, f"the agent chose protocolVersion "
                      f"{show_id(result['protocolVersion'])}; rpcspy checks ACP v{PROTOCOL_VERSION}",
                      path="$.result.protocolVersion", related=p.seq)
        if p.type == PROMPT and session is not None:
            self._prompt_answered(t, seq, obj, step, session)
        elif p.type == PERMISSION and session is not None and session.cancel is not None \
                and p.seq < session.cancel[0]:
            outcome = obj.get("result", {}).get("outcome") if isinstance(obj.get("result"), dict) else None
            if not (isinstance(outcome, dict) and outcome.get("outcome") == CANCELLED):
                sink.emit("acp.permission_not_cancelled", t, seq, direction,
                          f"permission request (frame {p.seq}) pending at `session/cancel` (frame "
                          f"{session.cancel[0]}) answered without the `cancelled` outcome", related=session.cancel[0])

    def _prompt_answered(self, t: float, seq: int, obj: dict[str, Any], step: Any, session: Session) -> None:
        asked = [q for q in session.asked.values() if q.type == PERMISSION]
        if asked:
            q = asked[0]
            self.sink.emit("acp.prompt_during_permission", t, seq, "a2c",
                           f"`session/prompt` (frame {step.pending.seq}) answered while the permission request of "
                           f"frame {q.seq} (id {show_id(q.id)}) still waits for the client", related=q.seq)
        if step.cancel is not None:
            result = obj.get("result")
            reason = result.get("stopReason") if isinstance(result, dict) else None
            if reason != CANCELLED:
                got = f"stopReason {reason!r}" if "result" in obj else "an error"
                self.sink.emit("acp.cancel_not_honoured", t, seq, "a2c",
                               f"prompt cancelled by `{CANCEL}` at frame {step.cancel[0]} ended with {got}",
                               related=step.cancel[0])

    # ---- time ---------------------------------------------------------------------------------------
    def overdue(self, now: float, limit: float) -> None:
        """Report requests unanswered for ``limit`` seconds, both ways (once each; ``check
        --unanswered-after``). A ``session/prompt`` is a whole turn: it is overdue when its session has
        been silent that long (no update, no request of the agent's), and not while the agent itself
        waits on the client's answer in that session (that request is reported instead)."""
        for direction, p in self.state.waiting():
            if p.reported or now - p.t < limit:
                continue
            owes = _who("a2c" if direction == "c2a" else "c2a")
            sid = p.note if isinstance(p.note, str) else None
            if p.type == PROMPT and sid is not None:
                session = self.state.sessions.get(sid)
                if session is not None and session.asked:
                    continue
                quiet = now - max(p.t, self._heard.get(sid, p.t))
                if quiet < limit:
                    continue
                p.reported = True
                self.sink.emit("acp.unanswered", now, p.seq, direction,
                               f"`{PROMPT}` (id {show_id(p.id)}) not answered after {now - p.t:.1f} s, its session "
                               f"silent for {quiet:.1f} s: the agent owes the turn's stopReason")
                continue
            p.reported = True
            what = " (a permission dialog not rendered, or not answered?)" if p.type == PERMISSION else ""
            self.sink.emit("acp.unanswered", now, p.seq, direction,
                           f"`{p.type}` (id {show_id(p.id)}) from the {_who(direction)} not answered after "
                           f"{now - p.t:.1f} s: the {owes} owes the answer{what}")

    # ---- end ----------------------------------------------------------------------------------------
    def finish(self, t: float, why: str = "") -> None:
        for direction, p in self.state.waiting():
            if p.reported:
                continue
            owes = _who("a2c" if direction == "c2a" else "c2a")
            self.sink.emit("acp.unanswered", t, p.seq, direction,
                           f"`{p.type}` (id {show_id(p.id)}) from the {_who(direction)} never answered: the "
                           f"{owes} owed the answer{why}")
