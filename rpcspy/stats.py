"""Numbers about a session: latency, time to first token, throughput, bytes (pure).

``Stats(dialect=...).feed(event)`` for every event, then ``report()``: a JSON-ready dict (the
dialect, as ``check`` detects it, tells how the agent answers: omp skips blank client lines).

* commands: per command type, how many, how many failed, response latency
  (p50, p95, max in ms), how many got no response;
* runs (``agent_start`` .. ``agent_end``): time to first token (the first text or
  thinking delta), output tokens (``usage.output`` of the assistant messages),
  characters streamed, tokens/s and chars/s over the time the messages streamed;
* bytes and counts by frame type per direction, and for ``message_update`` how
  much is snapshot: pi 0.73's ``assistantMessageEvent.partial`` and ``message``;
* stderr lines, findings by rule, the exit status.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import msgspec

from rpcspy.events import Eof, Event, Exit, Finding, Frame, Note, SpawnFailed
from rpcspy.frameinfo import NOT_JSON, label_of, parse, type_of
from rpcspy.framing import DECODE_ERRORS
from rpcspy.protocol.pairing import Conversation, Pairing, Pending, is_blank
from rpcspy.protocol.spec import skips_blank_lines, spec_of
from rpcspy.protocol.vocabulary import MESSAGE_EDGES


class _RawEvent(msgspec.Struct):
    type: Any = None
    delta: Any = None
    partial: msgspec.Raw = msgspec.Raw()


class _RawUpdate(msgspec.Struct):
    assistantMessageEvent: _RawEvent | None = None
    message: msgspec.Raw = msgspec.Raw()


_update_decoder = msgspec.json.Decoder(_RawUpdate)
_MU_PREFIX = b'{"type":"message_update"'


def percentile(values: list[float], p: float) -> float:
    """Nearest-rank percentile of a non-empty list."""
    ordered = sorted(values)
    rank = max(1, math.ceil(p / 100 * len(ordered)))
    return ordered[rank - 1]


def _ms(v: float) -> float:
    return round(v * 1000, 3)


@dataclass
class _Run:
    start: float
    end: float | None = None
    first_token: float | None = None
    tokens: int = 0
    chars: int = 0
    stream_time: float = 0.0
    messages: int = 0
    stop_reasons: list[str] = field(default_factory=list)
    msg_first: float | None = None
    msg_start: float | None = None


@dataclass
class _TypeCount:
    count: int = 0
    bytes: int = 0


class Stats:
    """Accumulates one session's numbers, one event at a time."""

    def __init__(self, *, dialect: str | None = None) -> None:
        self._pairing = Pairing()
        self._omp = skips_blank_lines(dialect)
        """The session's dialect (as ``check`` detects it) is omp's: its blank client lines are no commands."""
        spec = spec_of(dialect)
        self._conv = Conversation() if spec is not None and spec.jsonrpc else None
        """ACP: requests both ways are the commands; a prompt turn (``session/prompt`` to its answer) a run."""
        self._turns: dict[int, _Run] = {}
        self._commands: dict[str, dict[str, Any]] = {}
        self._by_type: dict[str, dict[str, _TypeCount]] = {"c2a": {}, "a2c": {}}
        self._runs: list[_Run] = []
        self._run: _Run | None = None
        self.partial_bytes = 0
        self.message_bytes = 0
        self.frames = {"c2a": _TypeCount(), "a2c": _TypeCount(), "err": _TypeCount()}
        self.findings: dict[str, dict[str, Any]] = {}
        self.severities: dict[str, int] = {}
        self.exit: dict[str, Any] | None = None
        self.notes = 0
        self.first_t: float | None = None
        self.last_t = 0.0
        self.unmatched_responses = 0

    def feed(self, event: Event) -> None:
        """Count one event."""
        if self.first_t is None:
            self.first_t = event.t
        self.last_t = max(self.last_t, event.t)
        if isinstance(event, Frame):
            self._frame(event)
        elif isinstance(event, Finding):
            entry = self.findings.setdefault(event.rule, {"count": 0, "severity": event.severity})
            entry["count"] += 1
            self.severities[event.severity] = self.severities.get(event.severity, 0) + 1
        elif isinstance(event, Exit):
            self.exit = {"code": event.code, "signal": event.signal, "t": event.t}
        elif isinstance(event, SpawnFailed):
            self.exit = {"code": event.code, "signal": None, "t": event.t, "spawn_failed": event.error}
        elif isinstance(event, Note):
            self.notes += 1
        elif isinstance(event, Eof):
            pass

    # -- frames ---------------------------------------------------------------------------
    def _frame(self, frame: Frame) -> None:
        tc = self.frames[frame.dir]
        tc.count += 1
        tc.bytes += len(frame.data)
        if frame.dir == "err":
            return
        obj = parse(frame.data)
        t = (label_of(obj) if self._conv is not None else type_of(obj)) or ("invalid" if obj is NOT_JSON else "no type")
        per = self._by_type[frame.dir].setdefault(t, _TypeCount())
        per.count += 1
        per.bytes += len(frame.data)
        if self._conv is not None:
            if isinstance(obj, dict):
                self._jsonrpc(frame, obj, t)
            return
        if frame.dir == "c2a":
            parsed = obj is not NOT_JSON
            if self._pairing.client(frame.seq, frame.t, obj, parsed=parsed, blank=not parsed and is_blank(frame.data),
                                    omp=self._omp) is not None:  # a command (not an answer, nor a line omp skips)
                name = t if type_of(obj) else f"({t})"
                self._cmd(name)["count"] += 1
            return
        if t == "response":
            self._response(frame.seq, obj, frame.t)
        elif t == "message_update":
            self._update(frame, obj)
        elif t == "agent_start":
            self._run = _Run(frame.t)
            self._runs.append(self._run)
        elif t == "agent_end":
            if self._run is not None:
                self._run.end = frame.t
            self._run = None
        elif t in MESSAGE_EDGES:
            self._message(obj, t, frame.t)

    def _jsonrpc(self, frame: Frame, obj: dict[str, Any], t: str) -> None:
        """An ACP message: requests counted by method, answers timed, prompt turns and their chunks."""
        assert self._conv is not None
        method = obj.get("method")
        if isinstance(method, str) and "id" in obj:
            self._conv.request(frame.dir, frame.seq, frame.t, obj)
            self._cmd(method)["count"] += 1
            if method == "session/prompt":
                self._run = self._turns[frame.seq] = _Run(frame.t)
                self._runs.append(self._run)
        elif isinstance(method, str):
            run = self._run
            params = obj.get("params")
            update = params.get("update") if isinstance(params, dict) else None
            content = update.get("content") if isinstance(update, dict) else None
            text = content.get("text") if isinstance(content, dict) else None
            if run is not None and t in ("agent_message_chunk", "agent_thought_chunk") and isinstance(text, str):
                run.chars += len(text)
                if run.first_token is None:
                    run.first_token = frame.t
        elif "id" in obj:
            answer = self._conv.response(frame.dir, frame.seq, obj)
            p = answer.command
            if p is None or not answer.fresh:
                self.unmatched_responses += p is None
                return
            entry = self._cmd(p.name)
            entry["latencies"].append(frame.t - p.t)
            entry["errors"] += "error" in obj
            self._turn_end(p, obj, frame.t)

    def _turn_end(self, p: Pending, obj: dict[str, Any], t: float) -> None:
        run = self._turns.pop(p.seq, None)
        if run is None:
            return
        run.end = t
        result = obj.get("result")
        reason = result.get("stopReason") if isinstance(result, dict) else None
        run.stop_reasons.append(reason if isinstance(reason, str) else "error")
        if run.first_token is not None:
            run.stream_time = max(t - run.first_token, 0.0)
        if self._run is run:
            self._run = None

    def _cmd(self, name: str) -> dict[str, Any]:
        return self._commands.setdefault(name, {"count": 0, "errors": 0, "latencies": []})

    def _response(self, seq: int, obj: dict[str, Any], t: float) -> None:
        answer = self._pairing.response(seq, obj)
        p = answer.command
        if p is None or not answer.fresh:
            self.unmatched_responses += p is None
            return
        entry = self._cmd(p.name)
        entry["latencies"].append(t - p.t)
        if obj.get("success") is not True:
            entry["errors"] += 1

    def _update(self, frame: Frame, obj: dict[str, Any]) -> None:
        if frame.data.startswith(_MU_PREFIX):
            try:
                raw = _update_decoder.decode(frame.data)
            except DECODE_ERRORS:
                raw = None
            if raw is not None:
                self.message_bytes += len(raw.message)
                if raw.assistantMessageEvent is not None:
                    self.partial_bytes += len(raw.assistantMessageEvent.partial)
        run = self._run
        ame = obj.get("assistantMessageEvent")
        if run is None or not isinstance(ame, dict):
            return
        kind = ame.get("type")
        d = ame.get("delta")
        if kind in ("text_delta", "thinking_delta", "toolcall_delta") and isinstance(d, str):
            run.chars += len(d)
            if run.msg_first is None:
                run.msg_first = frame.t
            if run.first_token is None and kind != "toolcall_delta":
                run.first_token = frame.t

    def _message(self, obj: dict[str, Any], t: str, when: float) -> None:
        msg = obj.get("message")
        run = self._run
        if run is None or not isinstance(msg, dict) or msg.get("role") != "assistant":
            return
        if t == "message_start":
            run.msg_start, run.msg_first = when, None
            return
        run.messages += 1
        usage = msg.get("usage")
        if isinstance(usage, dict) and isinstance(usage.get("output"), int):
            run.tokens += usage["output"]
        if isinstance(msg.get("stopReason"), str):
            run.stop_reasons.append(msg["stopReason"])
        began = run.msg_first if run.msg_first is not None else run.msg_start
        if began is not None:
            run.stream_time += max(when - began, 0.0)
        run.msg_first = run.msg_start = None

    # -- report ---------------------------------------------------------------------------
    def report(self) -> dict[str, Any]:
        """Everything, JSON-ready; times in ms, rates per second."""
        unanswered: dict[str, int] = {}
        waiting = self._pairing.unanswered() if self._conv is None else [p for _, p in self._conv.waiting()]
        for p in waiting:
            unanswered[p.name] = unanswered.get(p.name, 0) + 1
        commands = {}
        for name in sorted(self._commands):
            c = self._commands[name]
            lat = c["latencies"]
            commands[name] = {
                "count": c["count"], "responses": len(lat), "errors": c["errors"],
                "unanswered": unanswered.get(name, 0),
                "p50_ms": _ms(percentile(lat, 50)) if lat else None,
                "p95_ms": _ms(percentile(lat, 95)) if lat else None,
                "max_ms": _ms(max(lat)) if lat else None,
            }
        a2c_bytes = self.frames["a2c"].bytes
        snapshot = self.partial_bytes + self.message_bytes
        return {
            "duration_s": round(self.last_t - (self.first_t or 0.0), 6),
            "frames": {d: {"count": c.count, "bytes": c.bytes} for d, c in self.frames.items()},
            "commands": commands,
            "unmatched_responses": self.unmatched_responses,
            "runs": [self._run_report(r) for r in self._runs],
            **({"runs_are": "prompt turns"} if self._conv is not None else {}),
            "types": {d: {t: {"count": c.count, "bytes": c.bytes}
                          for t, c in sorted(per.items(), key=lambda kv: -kv[1].bytes)}
                      for d, per in self._by_type.items()},
            "message_update": {
                "count": self._by_type["a2c"].get("message_update", _TypeCount()).count,
                "bytes": self._by_type["a2c"].get("message_update", _TypeCount()).bytes,
                "partial_bytes": self.partial_bytes,
                "message_bytes": self.message_bytes,
                "snapshot_share": round(snapshot / a2c_bytes, 4) if a2c_bytes else 0.0,
            },
            "stderr": {"lines": self.frames["err"].count, "bytes": self.frames["err"].bytes},
            "findings": {"total": sum(self.severities.values()), "by_severity": dict(sorted(self.severities.items())),
                         "by_rule": {r: self.findings[r] for r in sorted(self.findings)}},
            "notes": self.notes,
            "exit": self.exit,
        }

    def samples(self) -> dict[str, list[float]]:
        """The raw values behind the percentiles, in ms: ``latency_ms:<command>`` per command type,
        ``ttft_ms`` and ``settle_ms`` (a run's agent_start to agent_end) per run; for merging many sessions."""
        out: dict[str, list[float]] = {f"latency_ms:{name}": [v * 1000 for v in c["latencies"]]
                                       for name, c in self._commands.items()}
        out["ttft_ms"] = [(r.first_token - r.start) * 1000 for r in self._runs if r.first_token is not None]
        out["settle_ms"] = [(r.end - r.start) * 1000 for r in self._runs if r.end is not None]
        return out

    @staticmethod
    def _run_report(r: _Run) -> dict[str, Any]:
        return {
            "start_s": round(r.start, 6),
            "duration_ms": _ms(r.end - r.start) if r.end is not None else None,
            "ttft_ms": _ms(r.first_token - r.start) if r.first_token is not None else None,
            "messages": r.messages,
            "stop_reasons": r.stop_reasons,
            "output_tokens": r.tokens,
            "chars": r.chars,
            "stream_ms": _ms(r.stream_time),
            "tokens_per_s": round(r.tokens / r.stream_time, 1) if r.tokens and r.stream_time > 0 else None,
            "chars_per_s": round(r.chars / r.stream_time, 1) if r.chars and r.stream_time > 0 else None,
        }
