"""Pairing of stdout events: runs, turns, messages, tool executions, compaction, retries.

Known legitimate gaps are not errors: EOF cuts a run off (reported at ``info``),
and in pi 0.73 ``compact``/``new_session``/``switch_session``/``fork``/``clone``
during a run drop its closing events (or, racing a ``prompt``, its opening ones).
While such a command is pending, and after it until the next ``agent_start``,
the checker is *lenient*: it resynchronises silently instead of reporting
missing start events.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rpcspy.checker.findings import Sink
from rpcspy.checker.stream import StreamTracker
from rpcspy.protocol.vocabulary import AGENT_CANCEL_TYPES, AGENT_REQUEST_TYPES, ECHO_TYPES, NOT_EMITTED_BY_OMP

ID_ALLOWED = ECHO_TYPES | AGENT_REQUEST_TYPES | AGENT_CANCEL_TYPES
"""Stdout frames that legitimately carry an ``id``."""
_OUTSIDE_RUN_OK = frozenset({"custom"})
"""Roles that may be emitted outside a run (extension ``sendMessage`` without ``triggerTurn``)."""


def _role(obj: dict[str, Any]) -> Any:
    message = obj.get("message")
    role = message.get("role") if isinstance(message, dict) else None
    return role if isinstance(role, str) else None  # a malformed role is the schema rules' business


class Lifecycle:
    """The run/turn/message state machine of the agent's event stream."""

    def __init__(self, sink: Sink, stream: StreamTracker) -> None:
        self.sink = sink
        self.stream = stream
        self.run: int | None = None
        """Seq of the open run's ``agent_start``."""
        self.turn: int | None = None
        self.msg: tuple[Any, int] | None = None
        """(role, seq of message_start) of the open message."""
        self.tools: dict[Any, int] = {}
        self.turn_calls: set[Any] | None = None
        """Tool call ids of the turn's assistant message (None until its message_end)."""
        self.compaction: tuple[Any, int, str] | None = None
        self.retry: int | None = None
        self.expect_retry: int | None = None
        self.last_will_retry: Any = None
        self.busy = False
        """Between ``agent_start`` and ``agent_settled`` (pi >= 0.84) or ``agent_end``."""
        self.settles = False
        """The agent emits ``agent_settled`` (pi >= 0.84)."""
        self.lenient = False
        self.teardowns = 0
        self.filtered = False
        """The client's ``set_event_filter`` (omp) hides events these rules pair: they stand back."""
        self.retry_in_run: int | None = None
        """omp: seq of an ``auto_retry_start`` inside the open run (its retry run follows, no agent_end)."""
        self.traits: Callable[[], Any] = lambda: None
        """The dialect's :class:`~rpcspy.checker.schema.Traits` (set by the engine; None: unknown)."""
        self._dispatch = {
            "agent_start": self._agent_start, "agent_end": self._agent_end,
            "agent_settled": self._agent_settled,
            "turn_start": self._turn_start, "turn_end": self._turn_end,
            "message_start": self._message_start, "message_update": self._message_update,
            "message_end": self._message_end,
            "tool_execution_start": self._tool_start, "tool_execution_update": self._tool_update,
            "tool_execution_end": self._tool_end,
            "compaction_start": self._compaction_start, "auto_compaction_start": self._compaction_start,
            "compaction_end": self._compaction_end, "auto_compaction_end": self._compaction_end,
            "auto_retry_start": self._retry_start, "auto_retry_end": self._retry_end,
        }

    @property
    def soft(self) -> bool:
        """Missing start events are expected (a session command tore the run down)."""
        return self.lenient or self.teardowns > 0

    def message_update(self, t: float, seq: int, obj: dict[str, Any]) -> None:
        """Shortcut of :meth:`event` for ``message_update``, the most frequent frame."""
        if "id" in obj:
            self._emit("lifecycle.event_with_id", t, seq,
                       f"event `message_update` carries an id ({obj['id']!r}); only responses do", path="$.id")
        if self.filtered:
            return
        msg = self.msg
        if msg is not None and msg[0] == "assistant":
            self.stream.event(t, seq, obj.get("assistantMessageEvent"))
        else:
            self._message_update(t, seq, obj)

    def event(self, t: float, seq: int, etype: Any, obj: dict[str, Any]) -> None:
        if "id" in obj and etype not in ID_ALLOWED and self._known(etype):
            self.sink.emit("lifecycle.event_with_id", t, seq, "a2c",
                           f"event `{etype}` carries an id ({obj['id']!r}); only responses do", path="$.id")
        handler = self._dispatch.get(etype)
        if handler is not None and not self.filtered:
            handler(t, seq, obj)

    def _known(self, etype: Any) -> bool:
        """Does the dialect know this frame type? (An unknown one is reported once, at info.)"""
        traits = self.traits()
        return traits is None or not isinstance(etype, str) or traits.knows(etype)

    def _retry_in_run(self) -> bool:
        traits = self.traits()
        return traits is not None and traits.retry_in_run

    def filter_events(self, events: Any) -> None:
        """The client set omp's event filter to ``events`` (``None``: every event again)."""
        hidden = isinstance(events, list) and not (set(self._dispatch) - NOT_EMITTED_BY_OMP) <= set(events)
        if hidden and not self.filtered:
            self._close_run()
            self.compaction = self.retry = self.expect_retry = self.retry_in_run = None
        elif not hidden and self.filtered:
            self.lenient = True  # resynchronise at the next agent_start
        self.filtered = hidden

    def _emit(self, rule: str, t: float, seq: int, message: str, related: int | None = None,
              path: str | None = None) -> None:
        self.sink.emit(rule, t, seq, "a2c", message, related=related, path=path)

    # ---- runs ------------------------------------------------------------------------------
    def _close_run(self) -> None:
        self.run = self.turn = self.msg = None
        self.tools.clear()
        self.turn_calls = None
        self.stream.stop()

    def _agent_start(self, t: float, seq: int, obj: dict[str, Any]) -> None:
        if self.expect_retry is not None:
            self._emit("lifecycle.retry_unbalanced", t, seq, "agent_end had willRetry:true but the next run "
                       "started without auto_retry_start", self.expect_retry)
            self.expect_retry = None
        if self.run is not None and not self.soft and self.retry_in_run is None:
            self._emit("lifecycle.run_unbalanced", t, seq,
                       f"agent_start while the run started at frame {self.run} is still open", self.run)
        self.retry_in_run = None
        self._close_run()
        self.run = seq
        self.busy = True
        self.lenient = False

    def _agent_end(self, t: float, seq: int, obj: dict[str, Any]) -> None:
        if self.run is None:
            if not self.soft:
                self._emit("lifecycle.run_unbalanced", t, seq, "agent_end without agent_start")
        elif not self.soft:
            if self.msg is not None:
                self._emit("lifecycle.message_unbalanced", t, seq,
                           f"agent_end while the {self.msg[0]} message started at frame {self.msg[1]} is open",
                           self.msg[1])
            if self.turn is not None:
                self._emit("lifecycle.turn_unbalanced", t, seq,
                           f"agent_end while the turn started at frame {self.turn} is open", self.turn)
        self._close_run()
        will_retry = obj.get("willRetry")
        self.last_will_retry = will_retry
        self.expect_retry = seq if will_retry is True else None
        if not self.settles:
            self.busy = False

    def _agent_settled(self, t: float, seq: int, obj: dict[str, Any]) -> None:
        self.settles = True
        if self.run is not None:
            self._emit("lifecycle.settled_while_running", t, seq,
                       f"agent_settled while the run started at frame {self.run} is open "
                       "(pi does so after a dropped back-to-back prompt); the run continues", self.run)
            return
        if self.expect_retry is not None:
            self._emit("lifecycle.retry_unbalanced", t, seq,
                       "agent_end had willRetry:true but agent_settled came without auto_retry_start",
                       self.expect_retry)
            self.expect_retry = None
        self.busy = False

    # ---- turns -----------------------------------------------------------------------------
    def _turn_start(self, t: float, seq: int, obj: dict[str, Any]) -> None:
        if not self.soft:
            if self.run is None:
                self._emit("lifecycle.turn_unbalanced", t, seq, "turn_start outside a run (no agent_start)")
            elif self.turn is not None:
                self._emit("lifecycle.turn_unbalanced", t, seq,
                           f"turn_start while the turn started at frame {self.turn} is open", self.turn)
        self.turn = seq
        self.turn_calls = None
        self.msg = None

    def _turn_end(self, t: float, seq: int, obj: dict[str, Any]) -> None:
        if not self.soft:
            if self.turn is None:
                self._emit("lifecycle.turn_unbalanced", t, seq, "turn_end without turn_start")
            if self.msg is not None:
                self._emit("lifecycle.message_unbalanced", t, seq,
                           f"turn_end while the {self.msg[0]} message started at frame {self.msg[1]} is open",
                           self.msg[1])
            for call_id, start in self.tools.items():
                self._emit("lifecycle.tool_unbalanced", t, seq,
                           f"turn_end while tool call {call_id!r} (started at frame {start}) has no "
                           "tool_execution_end", start)
        self.tools.clear()
        self.turn = None
        self.msg = None

    # ---- messages --------------------------------------------------------------------------
    def _message_start(self, t: float, seq: int, obj: dict[str, Any]) -> None:
        role = _role(obj)
        if not self.soft:
            if self.msg is not None:
                self._emit("lifecycle.message_unbalanced", t, seq,
                           f"message_start ({role}) while the {self.msg[0]} message started at frame "
                           f"{self.msg[1]} is open", self.msg[1])
            elif self.run is None and role not in _OUTSIDE_RUN_OK:
                self._emit("lifecycle.message_unbalanced", t, seq, f"message_start ({role}) outside a run")
        self.msg = (role, seq)
        if role == "assistant":
            self.stream.begin()
        else:
            self.stream.stop()

    def _message_update(self, t: float, seq: int, obj: dict[str, Any]) -> None:
        msg = self.msg
        if msg is None or msg[0] != "assistant":
            if self.soft:
                if msg is None:
                    self.msg = ("assistant", seq)  # resynchronise; deltas before this are lost
                return
            where = "outside any message" if msg is None else f"inside a {msg[0]} message"
            self._emit("lifecycle.message_unbalanced", t, seq, f"message_update {where}",
                       None if msg is None else msg[1])
            return
        self.stream.event(t, seq, obj.get("assistantMessageEvent"))

    def _message_end(self, t: float, seq: int, obj: dict[str, Any]) -> None:
        role = _role(obj)
        msg = self.msg
        if not self.soft:
            if msg is None:
                self._emit("lifecycle.message_unbalanced", t, seq, f"message_end ({role}) without message_start")
            elif msg[0] != role:
                self._emit("lifecycle.message_unbalanced", t, seq,
                           f"message_end ({role}) closes a {msg[0]} message (started at frame {msg[1]})", msg[1])
        if role == "assistant":
            message = obj.get("message")
            self.stream.end(t, seq, message)
            content = message.get("content") if isinstance(message, dict) else None
            if isinstance(content, list):
                self.turn_calls = {c.get("id") for c in content if isinstance(c, dict) and c.get("type") == "toolCall"}
        self.stream.stop()
        self.msg = None

    # ---- tools -----------------------------------------------------------------------------
    def _tool_start(self, t: float, seq: int, obj: dict[str, Any]) -> None:
        call_id = obj.get("toolCallId")
        if not isinstance(call_id, str):
            return
        if call_id in self.tools:
            self._emit("lifecycle.tool_unbalanced", t, seq,
                       f"second tool_execution_start for {call_id!r} (first at frame {self.tools[call_id]})",
                       self.tools[call_id], "$.toolCallId")
        elif self.turn_calls is not None and call_id not in self.turn_calls and not self.soft:
            self._emit("lifecycle.tool_call_unknown", t, seq,
                       f"tool_execution_start for {call_id!r}, which is not a tool call of the turn's "
                       "assistant message", path="$.toolCallId")
        self.tools[call_id] = seq

    def _tool_update(self, t: float, seq: int, obj: dict[str, Any]) -> None:
        call_id = obj.get("toolCallId")
        if isinstance(call_id, str) and call_id not in self.tools and not self.soft:
            self._emit("lifecycle.tool_unbalanced", t, seq,
                       f"tool_execution_update for {call_id!r} without tool_execution_start", path="$.toolCallId")

    def _tool_end(self, t: float, seq: int, obj: dict[str, Any]) -> None:
        call_id = obj.get("toolCallId")
        if not isinstance(call_id, str):
            return
        if self.tools.pop(call_id, None) is None and not self.soft:
            self._emit("lifecycle.tool_unbalanced", t, seq,
                       f"tool_execution_end for {call_id!r} without tool_execution_start", path="$.toolCallId")

    # ---- compaction and retry --------------------------------------------------------------
    def _compaction_start(self, t: float, seq: int, obj: dict[str, Any]) -> None:
        if self.compaction is not None:
            self._emit("lifecycle.compaction_unbalanced", t, seq,
                       f"{obj['type']} while the compaction started at frame {self.compaction[1]} is open",
                       self.compaction[1])
        self.compaction = (obj.get("reason"), seq, obj["type"])

    def _compaction_end(self, t: float, seq: int, obj: dict[str, Any]) -> None:
        start, self.compaction = self.compaction, None
        reason = obj.get("reason")
        if start is None:
            if reason != "overflow":
                self._emit("lifecycle.compaction_unbalanced", t, seq, f"{obj['type']} without a start event")
            return
        if reason is not None and start[0] is not None and reason != start[0]:
            self._emit("lifecycle.compaction_unbalanced", t, seq,
                       f"{obj['type']} has reason {reason!r} but the start had {start[0]!r}", start[1], "$.reason")

    def _retry_start(self, t: float, seq: int, obj: dict[str, Any]) -> None:
        if self.run is not None and self._retry_in_run():
            # omp defers the failed run's agent_end across its retries: the retry's agent_start follows
            self.retry_in_run = seq
        elif self.run is not None and not self.soft:
            self._emit("lifecycle.retry_unbalanced", t, seq,
                       f"auto_retry_start inside the run started at frame {self.run}; it follows the failed "
                       "run's agent_end", self.run)
        elif self.expect_retry is None and self.last_will_retry is False:
            self._emit("lifecycle.retry_unbalanced", t, seq,
                       "auto_retry_start after an agent_end with willRetry:false")
        self.expect_retry = None
        if self.retry is None:
            self.retry = seq

    def _retry_end(self, t: float, seq: int, obj: dict[str, Any]) -> None:
        if self.retry is None:
            self._emit("lifecycle.retry_unbalanced", t, seq, "auto_retry_end without auto_retry_start")
        self.retry = None

    # ---- session commands and end ----------------------------------------------------------
    def teardown_sent(self) -> None:
        self.teardowns += 1

    def teardown_answered(self, t: float, seq: int, command: str, closes_runs: bool) -> None:
        """The session command sent as frame ``seq`` was answered.

        Agents that do not close runs first (pi 0.73) orphan the open run.
        """
        self.teardowns = max(0, self.teardowns - 1)
        if closes_runs:
            return
        self.lenient = True
        if self.run is not None:
            self.sink.emit("lifecycle.run_abandoned", t, seq, "c2a",
                           f"`{command}` ended the run started at frame {self.run} without its closing events",
                           related=self.run)
            self._close_run()
            self.busy = False

    def finish(self, t: float, why: str) -> None:
        open_things = []
        first: int | None = None
        if self.run is not None:
            open_things.append(f"the run started at frame {self.run}")
            first = self.run
        if self.compaction is not None:
            open_things.append(f"the compaction started at frame {self.compaction[1]}")
            first = first if first is not None else self.compaction[1]
        if self.retry is not None and self.run is None:
            open_things.append(f"the auto-retry started at frame {self.retry}")
            first = first if first is not None else self.retry
        if open_things and first is not None:
            self.sink.emit("lifecycle.run_cut_off", t, first, "a2c",
                           f"session ended{why} with {' and '.join(open_things)} still open")
        self._close_run()
        self.compaction = None
        self.retry = self.retry_in_run = None
