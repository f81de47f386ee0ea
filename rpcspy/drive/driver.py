"""What to send when: the steps of a drive script, paced by the session's events (pure).

Feed every event of the proxied session (:meth:`Driver.feed`) and call
:meth:`Driver.poll` with the time; it returns the lines to write to the agent now
(the next step, dialog answers). Whether a step's wait is over is read from a
:class:`~rpcspy.diagnose.Tracker` fed the same events, so a drive waits for exactly
what ``rpcspy why`` would call outstanding; a step that times out says why from it.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from typing import Any

import msgspec

from rpcspy.diagnose import knowledge as K
from rpcspy.diagnose.explain import explain
from rpcspy.diagnose.tracker import Tracker
from rpcspy.drive.script import DEFAULT_TIMEOUT, Step, Wait
from rpcspy.events import Exit, Frame, SpawnFailed

_TEXT_DELTA = b'"type":"text_delta"'
_decode = msgspec.json.decode


class _Head(msgspec.Struct):
    type: Any = None
    id: Any = None
    method: Any = None
    options: Any = None


_head = msgspec.json.Decoder(_Head)


@dataclass
class StepResult:
    step: Step
    status: str = "pending"
    """pending, ok, timeout, gone (the agent exited first) or skipped."""
    detail: str = ""
    sent_at: float | None = None
    done_at: float | None = None

    @property
    def ok(self) -> bool:
        return self.status == "ok"


def answer(request: _Head, rules: dict[str, Any]) -> dict[str, Any]:
    """The ``extension_ui_response`` to a dialog request by the script's rules (default: cancel)."""
    rule = rules.get(request.method, "cancel")
    out: dict[str, Any] = {"type": "extension_ui_response", "id": request.id}
    if rule == "cancel":
        out["cancelled"] = True
    elif request.method == "confirm":
        out["confirmed"] = bool(rule)
    elif request.method == "select" and rule == "first":
        options = request.options if isinstance(request.options, list) else []
        if options:
            first = options[0]
            out["value"] = first if isinstance(first, str) else first.get("value", "") if isinstance(first, dict) else ""
        else:
            out["cancelled"] = True
    else:
        out["value"] = rule if isinstance(rule, str) else json.dumps(rule)
    return out


class Driver:
    """Sends the steps one after another, each when the previous one's wait is over."""

    def __init__(self, steps: list[Step], *, timeout: float = DEFAULT_TIMEOUT) -> None:
        self.steps = steps
        self.timeout = timeout
        self.results = [StepResult(s) for s in steps]
        self.tracker = Tracker()
        self.rules: dict[str, Any] = {}
        self.outbox: list[bytes] = []
        self.i = 0
        self.sending = True
        self.cmd: Any = None
        self._await_cmd = False
        self.deltas = 0
        self.events: Counter[str] = Counter()
        self.deadline = 0.0
        self.gone: str | None = None
        self.done = False
        self._offset: float | None = None
        """Session time minus poll time, to tell how long things have been outstanding."""
        self.final: StepResult | None = None
        """The implicit last wait: the agent settles before its stdin is closed."""

    # ---- events ----------------------------------------------------------------------------
    def feed(self, event: Any) -> None:
        self.tracker.observe(event)
        self._offset = None
        if isinstance(event, Frame):
            if event.dir == "c2a":
                if self._await_cmd:
                    self.cmd, self._await_cmd = self.tracker.last_cmd, False
            elif event.dir == "a2c":
                self._agent(event.data)
        elif isinstance(event, Exit):
            self.gone = f"the agent exited with code {event.code}"
        elif isinstance(event, SpawnFailed):
            self.gone = f"the agent could not start: {event.error}"

    def _agent(self, data: bytes) -> None:
        if _TEXT_DELTA in data:
            self.deltas += 1
        try:
            head = _head.decode(data)
        except (msgspec.DecodeError, UnicodeDecodeError):
            return
        if isinstance(head.type, str):
            self.events[head.type] += 1
        if head.type == "extension_ui_request" and head.method in K.DIALOGS and head.id is not None:
            reply = answer(head, self.rules)
            self.outbox.append(json.dumps(reply, ensure_ascii=False, separators=(",", ":")).encode() + b"\n")

    # ---- pacing ----------------------------------------------------------------------------
    @property
    def current(self) -> StepResult | None:
        if self.i < len(self.results):
            return self.results[self.i]
        return self.final

    def poll(self, now: float) -> list[bytes]:
        """Lines to write to the agent now; sets :attr:`done` when the script is over."""
        out, self.outbox = self.outbox, []
        if self._offset is None:
            self._offset = self.tracker.t - now
        while not self.done:
            if self.sending:
                line = self._start(now)
                if line is not None:
                    out.append(line)
                continue
            result = self.current
            assert result is not None
            if self._satisfied(result.step.wait, result.step.obj is None, now):
                result.status, result.done_at = "ok", now
                self._next()
            elif self.gone is not None:
                result.status, result.detail = "gone", f"{self.gone} before {result.step.wait.describe()}"
                self._skip_rest()
            elif now >= self.deadline:
                result.status = "timeout"
                result.detail = self._why(result, now)
                self._skip_rest()
            else:
                break
        return out

    def _start(self, now: float) -> bytes | None:
        """Begin the current step (or the final settle, or finish); the line to send, if any."""
        self.sending = False
        if self.i >= len(self.steps):
            if self.final is not None or self._idle(now):
                self.done = True
                return None
            self.final = StepResult(Step(0, None, Wait("settle")))
            self.final.sent_at, self.deadline = now, now + self.timeout
            return None
        result = self.results[self.i]
        step = result.step
        self.rules.update(step.answers)
        self.deltas = 0
        self.events.clear()
        self.cmd = None
        self._await_cmd = step.obj is not None and step.wait.kind in ("settle", "response")
        result.sent_at = now
        self.deadline = now + (step.timeout or self.timeout)
        if self.gone is not None:
            return None
        return step.line

    def _next(self) -> None:
        if self.i < len(self.steps):
            self.i += 1
        self.sending = True

    def _skip_rest(self) -> None:
        for result in self.results[self.i + 1:]:
            result.status = "skipped"
        self.i = len(self.steps)
        self.done = True

    def _satisfied(self, wait: Wait, wait_only: bool, now: float) -> bool:
        kind = wait.kind
        if kind == "none":
            return True
        if kind == "deltas":
            return self.deltas >= wait.count
        if kind == "event":
            return self.events[wait.event or ""] >= wait.count
        if wait_only:
            return kind == "response" or self._idle(now)
        cmd = self.cmd
        if cmd is None or cmd.resp is None:
            return False
        if kind == "response" or cmd.success is not True or cmd.disposition == K.DISPOSITION_HANDLED:
            return True
        if (cmd.type in K.RUN_COMMANDS and cmd.disposition != K.DISPOSITION_QUEUED and cmd in self.tracker.starting
                and self._run_due(cmd, now + (self._offset or 0.0))):
            return False  # its run has not started yet
        return self._idle(now)

    def _idle(self, now: float) -> bool:
        tr = self.tracker
        at = now + (self._offset or 0.0)  # session time
        return (not tr.busy and not tr.omp_open and tr.omp_settle_due is None and tr.compaction is None
                and tr.retry is None and not any(self._run_due(c, at) for c in tr.starting))

    @staticmethod
    def _run_due(cmd: Any, at: float) -> bool:
        """An accepted run command whose run is still to come; a ``/name`` prompt that pi before 0.99
        answered without a disposition, and no run for a while, was an extension command (no run)."""
        if cmd.resp is None or cmd.success is not True:
            return False
        unsaid = cmd.slash and cmd.disposition is None
        return not (unsaid and at - cmd.resp_t >= K.UNSAID_HANDLED_GRACE)

    def _why(self, result: StepResult, now: float) -> str:
        at = max(self.tracker.t, now + (self._offset or 0.0))
        d = explain(self.tracker, at)
        reasons = "; ".join(i.text for i in d.outstanding) or "nothing is outstanding"
        sent = result.sent_at if result.sent_at is not None else now
        return f"waited {self.deadline - sent:.1f} s for {result.step.wait.describe()}: {reasons}"

    @property
    def completed(self) -> bool:
        """Every step (and the final settle) completed."""
        return all(r.ok for r in self.results) and (self.final is None or self.final.ok)
