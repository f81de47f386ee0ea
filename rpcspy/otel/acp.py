"""ACP (JSON-RPC 2.0) frames to spans, the same model as pi's (docs/otel.md, "ACP sessions").

* ``invoke_agent {agent}``: a ``session/prompt`` request to its response, whose ``stopReason`` is
  the finish reason (``cancelled`` too; an error response is an error);
* ``execute_tool {title}``: a ``session/update`` ``tool_call`` to the ``tool_call_update`` that
  says ``completed`` or ``failed``, under the prompt that was running;
* ``rpcspy.command {method}``: any other client request to its response;
* ``rpcspy.dialog {method}``: an agent's request to the client (``session/request_permission``,
  ``fs/*``, ``terminal/*``) to the client's answer, with the option chosen or ``cancelled``;
* ``session/cancel`` is an event on the prompt it cancels.

Pure; never raises on bad frames; what stays open is bounded by :data:`MAX_OPEN`.
"""

from __future__ import annotations

from typing import Any

from rpcspy.events import Frame
from rpcspy.otel import semconv as S
from rpcspy.otel.builder import OpenSpan, SpanBuilder
from rpcspy.otel.spans import Attributes, SpanRecord
from rpcspy.protocol.pairing import id_key

MAX_OPEN = 10_000
PROMPT = "session/prompt"
CANCEL = "session/cancel"
_TOOL_DONE = {"completed": None, "failed": "failed"}


class AcpSpans:
    """The ACP half of a :class:`~rpcspy.otel.mapper.SpanMapper`: it opens and closes spans through it."""

    def __init__(self, builder: SpanBuilder, agent: str) -> None:
        self._b, self.agent = builder, agent
        self._requests: dict[tuple[str, Any], tuple[str, OpenSpan]] = {}
        """(direction, id) -> (method, span) of a request not yet answered."""
        self._prompt: OpenSpan | None = None
        self._tools: dict[Any, OpenSpan] = {}

    def frame(self, frame: Frame, obj: dict[str, Any], session: OpenSpan | None, out: list[SpanRecord]) -> None:
        method, has_id = obj.get("method"), "id" in obj
        if isinstance(method, str) and has_id:
            self._request(frame, method, obj, session)
        elif isinstance(method, str):
            self._notification(frame, method, obj, out)
        elif has_id and ("result" in obj or "error" in obj):
            self._answer(frame, obj, out)

    def _request(self, frame: Frame, method: str, obj: dict[str, Any], session: OpenSpan | None) -> None:
        if len(self._requests) >= MAX_OPEN:
            return
        key = (frame.dir, id_key(obj["id"]))
        attrs: Attributes = {"rpcspy.jsonrpc.id": str(obj["id"]), "rpcspy.jsonrpc.method": method}
        if frame.dir == "c2a" and method == PROMPT:
            attrs.update({S.OPERATION: S.INVOKE_AGENT, S.AGENT_NAME: self.agent, S.RUN_TRIGGER: method})
            params = obj.get("params")
            if isinstance(params, dict) and isinstance(params.get("sessionId"), str):
                attrs[S.CONVERSATION_ID] = params["sessionId"]
            span = self._b._span("run", frame.seq, f"{S.INVOKE_AGENT} {self.agent}", "internal", frame.t, session,
                                 attrs)
            self._prompt = span
        elif frame.dir == "c2a":
            span = self._b._span("command", frame.seq, f"{S.COMMAND} {method}", "internal", frame.t, session, attrs)
        else:
            parent = self._prompt if self._prompt is not None and not self._prompt.closed else session
            span = self._b._span("dialog", frame.seq, f"{S.DIALOG} {method}", "internal", frame.t, parent, attrs)
        self._requests[key] = (method, span)

    def _answer(self, frame: Frame, obj: dict[str, Any], out: list[SpanRecord]) -> None:
        asker = "a2c" if frame.dir == "c2a" else "c2a"
        found = self._requests.pop((asker, id_key(obj.get("id"))), None)
        if found is None:
            return
        method, span = found
        error = obj.get("error")
        result = obj.get("result")
        if isinstance(result, dict):
            reason = result.get("stopReason")
            if isinstance(reason, str):
                span.attrs[S.FINISH_REASONS] = [reason]
            outcome = result.get("outcome")
            if isinstance(outcome, dict) and isinstance(outcome.get("outcome"), str):
                span.attrs["rpcspy.dialog.answer"] = outcome["outcome"]
                if isinstance(outcome.get("optionId"), str):
                    span.attrs["rpcspy.dialog.option"] = outcome["optionId"]
        if method == PROMPT:
            for tool in list(self._tools.values()):
                self._b._close(tool, frame.t, out, unfinished=True)
            self._tools.clear()
        message = None
        if error is not None:
            message = str(error.get("message")) if isinstance(error, dict) else str(error)
        self._b._close(span, frame.t, out, error=message)

    def _notification(self, frame: Frame, method: str, obj: dict[str, Any], out: list[SpanRecord]) -> None:
        if method == CANCEL and self._prompt is not None and not self._prompt.closed:
            self._b._event("rpcspy.acp.cancel", frame.t, {}, self._prompt)
            return
        params = obj.get("params")
        update = params.get("update") if isinstance(params, dict) else None
        if not isinstance(update, dict):
            return
        kind, call = update.get("sessionUpdate"), update.get("toolCallId")
        if not isinstance(call, str):
            return
        if kind == "tool_call" and call not in self._tools and len(self._tools) < MAX_OPEN:
            title = update.get("title") if isinstance(update.get("title"), str) else update.get("kind")
            name = title if isinstance(title, str) else "tool"
            parent = self._prompt if self._prompt is not None and not self._prompt.closed else None
            self._tools[call] = self._b._span("tool", frame.seq, f"{S.EXECUTE_TOOL} {name}", "internal", frame.t,
                                              parent, {S.OPERATION: S.EXECUTE_TOOL, S.TOOL_NAME: name,
                                                       S.TOOL_CALL_ID: call})
        status = update.get("status")
        if kind in ("tool_call", "tool_call_update") and status in _TOOL_DONE and call in self._tools:
            self._b._close(self._tools.pop(call), frame.t, out, error=_TOOL_DONE[status])
