"""A session's events to finished spans (the GenAI conventions' model; docs/otel.md draws it).

* ``rpcspy.session {agent}``: the whole session, from the agent's start to its exit; the root,
  or a child of the ``TRACEPARENT`` span;
* ``invoke_agent {agent}``: one run, from the command that started it (``prompt``,
  ``abort_and_prompt``; else its ``agent_start``) to its settle as the dialect says it:
  ``agent_settled`` (pi >= 0.84), omp's ``prompt_result``/``session_settled``, else ``agent_end``
  (a run whose ``agent_end`` says ``willRetry`` goes on through its retry);
* ``chat {model}``: one model call of a run, from its turn's start (or the tool results it
  answers) to the assistant's ``message_end``, with usage and finish reason;
* ``execute_tool {name}``: one tool call, under the tool that made it (``parentToolCallId``),
  else under the run;
* ``rpcspy.command {type}``: a client command to its response; ``rpcspy.dialog {method}``: a
  dialog to its answer; findings, fire-and-forget UI requests and rpcspy's warnings are events.

Feed every event in order (:meth:`SpanMapper.feed` returns the spans it closed); :meth:`finish`
closes what is still open. Pure: no I/O, never raises on bad frames.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import Any

import msgspec

from rpcspy.events import Event, Exit, Finding, Frame, Note, SpawnFailed, Start
from rpcspy.otel import semconv as S
from rpcspy.otel.acp import AcpSpans
from rpcspy.otel.builder import OpenSpan, SpanBuilder
from rpcspy.otel.content import Content, result_text
from rpcspy.otel.frames import agent_frame
from rpcspy.otel.ids import TraceParent, parse_traceparent, session_key, span_id, trace_id
from rpcspy.otel.spans import Attributes, AttrValue, SpanRecord
from rpcspy.protocol import vocabulary as V
from rpcspy.protocol.acp import looks_jsonrpc
from rpcspy.protocol.pairing import Pairing, id_key
from rpcspy.recording.naming import agent_name

TRACEPARENT_NOTE = "otel: traceparent "
"""How a live export records the ``TRACEPARENT`` it used, so a later offline export finds it."""
SKIP_PREFIXES = (b'{"type":"message_update"', b'{"type":"tool_execution_update"', b'{"type":"turn_end"',
                 b'{"type":"message_start","message":{"role":"user"',
                 b'{"type":"message_start","message":{"role":"system"',
                 b'{"type":"message_start","message":{"role":"toolResult"')
"""Frames that move no span, as pi and omp begin them (the bulk of a session: message updates, and the
turn's whole message again at its end): skipped without decoding."""
_SETTLES = frozenset({V.SETTLED, V.OMP_PROMPT_RESULT, V.OMP_SESSION_SETTLED})
_MARKS = frozenset({*V.COMPACTION_START, *V.COMPACTION_END, V.RETRY_START, V.RETRY_END})
MAX_OPEN = 10_000
"""Open dialogs kept at most (a session that never answers must not grow without end)."""
_decode = msgspec.json.decode


@dataclass(slots=True)
class _Run:
    span: OpenSpan
    ended: float | None = None
    """The agent_end's time once it came: the run waits for its settle."""
    retry: bool = False
    tools: dict[Any, bytes] = field(default_factory=dict)
    chat: OpenSpan | None = None
    chat_from: float | None = None
    turn: int = 0
    output: str | None = None


class SpanMapper(SpanBuilder):
    """Feed a session's events in order; collect the spans it returns."""

    def __init__(self, started_unix: float, *, content: bool = False, parent: TraceParent | None = None,
                 session_attrs: Attributes | None = None) -> None:
        super().__init__(started_unix, parent)
        self._content = Content() if content else None
        self._explicit = parent is not None
        self._session_attrs = dict(session_attrs or {})
        self._agent = "agent"
        self._run: _Run | None = None
        self._prompts: deque[tuple[int, float, Any]] = deque(maxlen=64)
        """Run commands not yet started: seq, time, message."""
        self._pairing = Pairing(bounded=True)
        self._dialogs: dict[Any, OpenSpan] = {}
        self._conversation: str | None = None
        self._done = False
        self._acp: AcpSpans | None = None
        """Set by the first JSON-RPC frame (an ACP session): it maps every JSON-RPC frame from then on."""

    def _begin(self, start: Start | None, t: float) -> None:
        self._key = session_key(self._started, start.t if start else t, start.pid if start else 0,
                                list(start.argv) if start else [])
        self.trace_id = self._parent.trace_id if self._parent else trace_id(self._key)
        self._agent = agent_name(start.argv) if start else "agent"
        sid = span_id(self._key, "session", start.seq if start else 0)
        attrs: Attributes = {S.AGENT_NAME: self._agent}
        if start:
            attrs[S.ARGV] = [str(a) for a in start.argv]
        attrs.update(self._session_attrs)
        self._session = OpenSpan(sid, None, f"{S.SESSION} {self._agent}", "internal", t, attrs)
        self._open.append(self._session)

    def _parent_span(self) -> OpenSpan | None:
        return self._run.span if self._run is not None and self._run.ended is None else self._session

    # ---- feeding ------------------------------------------------------------------------------------
    def feed(self, event: Event) -> list[SpanRecord]:
        out: list[SpanRecord] = []
        if self._done:
            return out
        t = event.t
        self._last_t = max(self._last_t, t)
        if isinstance(event, Note) and event.text.startswith(TRACEPARENT_NOTE):
            if not self._explicit:
                try:
                    self._parent = parse_traceparent(event.text[len(TRACEPARENT_NOTE):])
                    self.trace_id = self._parent.trace_id if self._key else self.trace_id
                except ValueError:
                    pass
            return out
        if self._key is None:
            if not isinstance(event, (Start, Frame, SpawnFailed, Exit)):
                return out
            self._begin(event if isinstance(event, Start) else None, t)
            if isinstance(event, Start):
                return out
        if type(event) is Frame:
            if event.dir != "err" and not event.data.startswith(SKIP_PREFIXES):
                self._frame(event, out)
        elif isinstance(event, Finding):
            self._finding(event)
        elif isinstance(event, Note):
            if event.level != "info":
                self._event("rpcspy.note", t, {"rpcspy.note.level": event.level, "rpcspy.note.text": event.text},
                            self._session)
        elif isinstance(event, Exit):
            assert self._session is not None
            self._session.attrs[S.EXIT_CODE] = event.code
            out += self.finish(t, error=f"exit status {event.code}" if event.code else None)
        elif isinstance(event, SpawnFailed):
            out += self.finish(t, error=f"the agent could not be started: {event.error}")
        return out

    def finish(self, t: float | None = None, *, error: str | None = None) -> list[SpanRecord]:
        """Close every open span at ``t`` (default: the last event's time), the session last."""
        out: list[SpanRecord] = []
        if self._done or self._key is None:
            return out
        self._done = True
        t = self._last_t if t is None else t
        if self._run is not None:
            self._end_run(out, unfinished=self._run.ended is None, t=t)
        for span in reversed(self._open[:]):
            if span is not self._session:
                self._close(span, t, out, unfinished=True)
        if self._session is not None:
            self._close(self._session, t, out, error=error)
        return out

    def _frame(self, frame: Frame, out: list[SpanRecord]) -> None:
        if self._acp is not None or frame.data.startswith(b'{"jsonrpc"'):
            try:
                obj = _decode(frame.data)
            except (msgspec.DecodeError, UnicodeDecodeError, RecursionError, ValueError):
                return
            if type(obj) is dict and looks_jsonrpc(obj):
                if self._acp is None:
                    self._acp = AcpSpans(self, self._agent)
                self._acp.frame(frame, obj, self._session, out)
                return
        if frame.dir == "a2c":
            agent = agent_frame(frame.data, self._content is not None)
            if agent is None:
                return
            kind = agent["type"] if isinstance(agent["type"], str) else ""
            if kind == V.RESPONSE_TYPE:
                self._response(frame, agent, out)
            else:
                self._agent_event(frame, kind, agent, out)
            return
        try:
            obj = _decode(frame.data)
        except (msgspec.DecodeError, UnicodeDecodeError, RecursionError, ValueError):
            if frame.dir == "c2a":
                p = self._pairing.client(frame.seq, frame.t, None, parsed=False)
                if p is not None:
                    p.note = self._span("command", frame.seq, f"{S.COMMAND} (invalid)", "internal", frame.t,
                                        self._session, {"rpcspy.command.type": "(invalid)"})
            return
        if type(obj) is not dict:
            return
        ctype = obj.get("type")
        self._client(frame, ctype if isinstance(ctype, str) else "", obj, out)

    # ---- client ---------------------------------------------------------------------------------
    def _client(self, frame: Frame, kind: str, obj: dict[str, Any], out: list[SpanRecord]) -> None:
        if kind in V.ANSWER_TYPES:
            span = self._dialogs.pop(id_key(obj.get("id")), None)
            if span is not None:
                answer = "cancelled" if obj.get("cancelled") is True else "answered"
                span.attrs["rpcspy.dialog.answer"] = answer
                if self._content is not None:
                    for k in ("value", "confirmed"):
                        if k in obj:
                            span.attrs[f"rpcspy.dialog.{k}"] = self._content.json(obj[k])
                self._close(span, frame.t, out)
            return
        p = self._pairing.client(frame.seq, frame.t, obj)
        if p is None:
            return
        attrs: Attributes = {"rpcspy.command.type": kind or "(no type)"}
        if "id" in obj:
            attrs["rpcspy.command.id"] = str(obj["id"])
        if frame.injected:
            attrs["rpcspy.command.injected"] = True
        p.note = self._span("command", frame.seq, f"{S.COMMAND} {kind or '(no type)'}", "internal", frame.t,
                            self._session, attrs)
        if kind in V.RUN_COMMANDS:
            if self._run is not None and self._run.ended is not None:
                self._end_run(out)
            self._prompts.append((frame.seq, frame.t, obj.get("message")))

    def _response(self, frame: Frame, obj: dict[str, Any], out: list[SpanRecord]) -> None:
        answer = self._pairing.response(frame.seq, obj)
        cmd = answer.command
        if not answer.fresh or cmd is None or not isinstance(cmd.note, OpenSpan):
            return
        span: OpenSpan = cmd.note
        ok = obj.get("success") is True
        span.attrs["rpcspy.command.success"] = ok
        data = obj.get("data")
        disposition = data.get("disposition") if isinstance(data, dict) else None
        if isinstance(disposition, str):
            span.attrs["rpcspy.command.disposition"] = disposition
        if cmd.type in V.RUN_COMMANDS and (not ok or disposition in ("queued", "handled")):
            self._prompts = deque((p for p in self._prompts if p[0] != cmd.seq), maxlen=64)
        if ok and cmd.type == "get_state" and isinstance(data, dict) and isinstance(data.get("sessionId"), str):
            self._conversation = data["sessionId"]
        error = obj.get("error")
        self._close(span, frame.t, out, error=None if ok else str(error) if error is not None else "failed")

    # ---- agent events ---------------------------------------------------------------------------
    def _agent_event(self, frame: Frame, kind: str, obj: dict[str, Any], out: list[SpanRecord]) -> None:
        t, run = frame.t, self._run
        if kind == V.RUN_START:
            if run is not None and (run.ended is None or run.retry):
                run.ended = None  # omp's retry saga, or a retry pi announced at agent_end: the same run
                return
            if run is not None:
                self._end_run(out)
            self._start_run(frame)
        elif kind in _SETTLES:
            if run is not None and run.ended is not None:
                self._end_run(out, settle=kind, t=t)
        elif run is None or run.ended is not None:
            if kind == "extension_ui_request":
                self._ui(frame, obj, out)
            elif kind in _MARKS:
                self._event(f"rpcspy.{kind}", t, {}, self._session)
        elif kind == "turn_start":
            run.turn += 1
            run.chat_from = t
        elif kind == "message_start":
            message = obj.get("message")
            if isinstance(message, dict) and message.get("role") == "assistant" and run.chat is None:
                start = run.chat_from if run.chat_from is not None else t
                run.chat = self._span("chat", frame.seq, S.CHAT, "client", start, run.span,
                                      {S.OPERATION: S.CHAT, S.TURN: run.turn})
                run.chat.attrs[S.TIME_TO_FIRST_CHUNK] = round(t - start, 6)
        elif kind == "message_end":
            self._message_end(frame, obj, run, out)
        elif kind == "tool_execution_start":
            self._tool_start(frame, obj, run)
        elif kind == "tool_execution_end":
            self._tool_end(frame, obj, run, out)
        elif kind == V.RUN_END:
            run.ended = t
            run.retry = obj.get("willRetry") is True
            for span in reversed(self._open[:]):  # the model call and tools it left open end with it
                if span is run.chat or span.span_id in run.tools.values():
                    self._close(span, t, out, unfinished=True)
            run.chat = None
            run.tools.clear()
        elif kind == "extension_ui_request":
            self._ui(frame, obj, out)
        elif kind in _MARKS:
            self._event(f"rpcspy.{kind}", t, {}, run.span)

    def _start_run(self, frame: Frame) -> None:
        prompt = self._prompts.popleft() if self._prompts else None
        seq, start, message = prompt if prompt else (frame.seq, frame.t, None)
        attrs: Attributes = {S.OPERATION: S.INVOKE_AGENT, S.AGENT_NAME: self._agent}
        if self._conversation:
            attrs[S.CONVERSATION_ID] = self._conversation
        if prompt:
            attrs[S.RUN_TRIGGER] = "prompt"
        if self._content is not None and message is not None:
            attrs[S.INPUT_MESSAGES] = self._content.messages("user", message)
        span = self._span("run", seq, f"{S.INVOKE_AGENT} {self._agent}", "internal", start, self._session, attrs)
        self._run = _Run(span)

    def _end_run(self, out: list[SpanRecord], *, settle: str = V.RUN_END, t: float | None = None,
                 unfinished: bool = False) -> None:
        run = self._run
        if run is None:
            return
        self._run = None
        end = t if t is not None else run.ended if run.ended is not None else self._last_t
        for span in reversed(self._open[:]):
            if span.parent == run.span.span_id or span.span_id in run.tools.values():
                self._close(span, end, out, unfinished=True)
        run.span.attrs[S.DIALECT_SETTLE] = settle if not unfinished else "(session ended)"
        if run.output is not None:
            run.span.attrs[S.OUTPUT_MESSAGES] = run.output
        self._close(run.span, end, out, unfinished=unfinished)

    def _message_end(self, frame: Frame, obj: dict[str, Any], run: _Run, out: list[SpanRecord]) -> None:
        message = obj.get("message")
        if not isinstance(message, dict):
            return
        if message.get("role") != "assistant":
            run.chat_from = frame.t
            return
        chat = run.chat or self._span("chat", frame.seq, S.CHAT, "client",
                                      run.chat_from if run.chat_from is not None else frame.t, run.span,
                                      {S.OPERATION: S.CHAT, S.TURN: run.turn})
        run.chat = None
        a = chat.attrs
        model, provider, reason = message.get("model"), message.get("provider"), message.get("stopReason")
        if isinstance(model, str):
            chat.name = f"{S.CHAT} {model}"
            a[S.REQUEST_MODEL] = a[S.RESPONSE_MODEL] = model
        if isinstance(provider, str):
            a[S.PROVIDER] = provider
        if isinstance(message.get("responseId"), str):
            a[S.RESPONSE_ID] = message["responseId"]
        if isinstance(reason, str):
            a[S.FINISH_REASONS] = [reason]
        if self._conversation:
            a[S.CONVERSATION_ID] = self._conversation
        usage = message.get("usage")
        if isinstance(usage, dict):
            for key, name in (("input", S.INPUT_TOKENS), ("output", S.OUTPUT_TOKENS),
                              ("cacheRead", S.CACHE_READ_TOKENS), ("cacheWrite", S.CACHE_CREATION_TOKENS),
                              ("reasoning", S.REASONING_TOKENS)):
                value = usage.get(key)
                if isinstance(value, int) and not isinstance(value, bool):
                    a[name] = value
        if self._content is not None:
            run.output = a[S.OUTPUT_MESSAGES] = self._content.messages(
                "assistant", message.get("content"), reason if isinstance(reason, str) else None)
        error = None
        if reason in ("error", "aborted"):
            a[S.ERROR_TYPE] = str(reason)
            detail = message.get("errorMessage")
            error = str(detail) if detail is not None else str(reason)
        self._close(chat, frame.t, out, error=error)

    def _tool_start(self, frame: Frame, obj: dict[str, Any], run: _Run) -> None:
        name = obj.get("toolName") if isinstance(obj.get("toolName"), str) else "?"
        call = obj.get("toolCallId")
        parent_id = run.tools.get(id_key(obj.get("parentToolCallId")))
        parent = next((s for s in self._open if s.span_id == parent_id), None) if parent_id else None
        attrs: Attributes = {S.OPERATION: S.EXECUTE_TOOL, S.TOOL_NAME: str(name), S.TOOL_TYPE: "function"}
        if call is not None:
            attrs[S.TOOL_CALL_ID] = str(call)
        if "parentToolCallId" in obj:
            attrs["rpcspy.tool.parent_call_id"] = str(obj["parentToolCallId"])
        if self._content is not None and "args" in obj:
            attrs[S.TOOL_ARGUMENTS] = self._content.json(obj["args"])
        span = self._span("tool", frame.seq, f"{S.EXECUTE_TOOL} {name}", "internal", frame.t,
                          parent or run.span, attrs)
        run.tools[id_key(call)] = span.span_id

    def _tool_end(self, frame: Frame, obj: dict[str, Any], run: _Run, out: list[SpanRecord]) -> None:
        sid = run.tools.get(id_key(obj.get("toolCallId")))
        span = next((s for s in self._open if s.span_id == sid), None) if sid else None
        if span is None:
            return
        if self._content is not None and "result" in obj:
            span.attrs[S.TOOL_RESULT] = self._content.json(result_text(obj["result"]))
        error = None
        if obj.get("isError") is True:
            span.attrs[S.ERROR_TYPE] = "tool_error"
            error = "the tool reported an error"
        self._close(span, frame.t, out, error=error)

    def _ui(self, frame: Frame, obj: dict[str, Any], out: list[SpanRecord]) -> None:
        method = obj.get("method")
        if method in V.DIALOGS:
            attrs: Attributes = {"rpcspy.dialog.method": str(method)}
            title = obj.get("title")
            if self._content is not None and isinstance(title, str):
                attrs["rpcspy.dialog.title"] = self._content.text(title)
            self._dialogs[id_key(obj.get("id"))] = self._span("dialog", frame.seq, f"{S.DIALOG} {method}",
                                                              "internal", frame.t, self._parent_span(), attrs)
            if len(self._dialogs) > MAX_OPEN:
                stale = self._dialogs.pop(next(iter(self._dialogs)))
                self._close(stale, frame.t, out, unfinished=True)
        elif method == "cancel":
            span = self._dialogs.pop(id_key(obj.get("targetId")), None)
            if span is not None:
                span.attrs["rpcspy.dialog.answer"] = "withdrawn"
                self._close(span, frame.t, out)
        elif isinstance(method, str):
            self._event(f"{S.UI} {method}", frame.t, {"rpcspy.ui.method": method})

    def _finding(self, finding: Finding) -> None:
        attrs: dict[str, AttrValue] = {"rpcspy.finding.rule": finding.rule,
                                       "rpcspy.finding.severity": finding.severity,
                                       "rpcspy.finding.group": finding.group,
                                       "rpcspy.finding.message": finding.message}
        if finding.frame is not None:
            attrs["rpcspy.finding.frame"] = finding.frame
        self._event(S.FINDING, finding.t, attrs)
