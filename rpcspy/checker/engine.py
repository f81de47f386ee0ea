"""The checker: a pure, stateful state machine fed frames, returning findings.

Each frame is decoded once (:mod:`rpcspy.checker.decoding`, which also runs the
framing and schema rules) and the object is handed to the rule modules: schema, correlation, extension UI, lifecycle and
stream integrity, misuse. Nothing here does I/O, and ``feed`` never raises: an
internal failure becomes a ``checker.internal_error`` finding.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from rpcspy.checker.acp import AcpRules
from rpcspy.checker.correlation import Correlator
from rpcspy.checker.decoding import HANDLED, UNTRIED, FrameDecoder
from rpcspy.checker.findings import PER_RULE, Sink
from rpcspy.checker.framing import KIB64, Unparsed
from rpcspy.checker.lifecycle import Lifecycle
from rpcspy.checker.misuse import MisuseTracker
from rpcspy.checker.pitfalls import PitfallRules
from rpcspy.checker.schema import AUTO, SchemaChecker
from rpcspy.checker.sides import skipped_rules
from rpcspy.checker.stream import StreamTracker
from rpcspy.checker.ui import UiTracker
from rpcspy.diagnose.knowledge import SHUTDOWN_SIGNALS
from rpcspy.events import Finding, Frame
from rpcspy.protocol.pairing import MISSING, NONOBJECT, Pending, show_id
from rpcspy.protocol.vocabulary import ANSWER_TYPES as _NOT_COMMANDS
from rpcspy.protocol.vocabulary import QUEUE_COMMANDS, RUN_BOUNDARIES, TEARDOWN_COMMANDS
from rpcspy.recording.format import FrameEntry

if TYPE_CHECKING:
    from rpcspy.recording.decode import TypedBlock


class Checker:
    """Feed it every frame of a session in order; call :meth:`finish` at the end.

    ``dialect`` is ``"auto"`` or one of :data:`rpcspy.protocol.DIALECTS` (``dialect_reason``
    says why, when it was detected beforehand, e.g. by :func:`rpcspy.checker.detect_dialect`);
    ``strict_fields`` reports unknown fields as warnings instead of info; ``strict_unknown``
    also makes agent frame types the dialect does not know errors instead of info (a newer
    agent's events are info by default);
    ``ignore`` is a set of rule ids never reported; ``absent``, the directions a one-sided input lacks
    (:mod:`rpcspy.checker.sides`: the rules that need them are skipped); ``per_rule`` findings of one rule are
    listed, the rest summarised in one finding at the end (:mod:`rpcspy.checker.findings`; 0: all listed);
    ``unanswered_after`` (seconds)
    reports commands still unanswered that long after they were sent (checked on
    every frame, and on :meth:`tick` when the live proxy has no frame to feed).
    """

    def __init__(
        self,
        dialect: str = AUTO,
        strict_fields: bool = False,
        ignore: frozenset[str] = frozenset(),
        unanswered_after: float | None = None,
        dialect_reason: str | None = None,
        strict_unknown: bool = False,
        absent: frozenset[str] = frozenset(),
        per_rule: int = PER_RULE,
    ) -> None:
        self.absent = absent
        """Directions the input does not hold (a one-sided transcript): the rules that need them are skipped."""
        ignore = frozenset(ignore) | skipped_rules(absent)
        overrides = {"schema.unknown_field": "warning"} if strict_fields or strict_unknown else {}
        if strict_unknown:
            overrides["schema.unknown_agent_type"] = "error"
        self._sink = sink = Sink(frozenset(ignore), overrides, per_rule)
        self._schema = SchemaChecker(sink, dialect, dialect_reason)
        self._corr = Correlator(sink)
        self._ui = UiTracker(sink)
        self._stream = StreamTracker(sink)
        self._life = Lifecycle(sink, self._stream)
        self._life.traits = lambda: self._schema.traits
        self._misuse = MisuseTracker(sink)
        self._pitfalls = PitfallRules(sink)
        self._acp = AcpRules(sink)
        """The ACP rules, which take every frame once the dialect is a JSON-RPC one."""
        self._unanswered_after = unanswered_after
        self._finished = False
        self._decoder = FrameDecoder(sink, self._schema, self._stream)
        self._lane: Callable[[Any], Any] | None = None
        """The fast lane while the dialect is settled; dropped by every :meth:`feed` (it may change there)."""

    @property
    def dialect(self) -> str:
        """The dialect in use: the one requested, the one detected, or ``"auto"`` while undecided."""
        return self._schema.dialect or AUTO

    @property
    def dialect_reason(self) -> str:
        return self._schema.reason

    # ---- feeding ---------------------------------------------------------------------------
    def feed(self, frame: Frame, typed: Any = UNTRIED) -> list[Finding]:
        """Check one frame; return the findings it caused (possibly about earlier frames).

        ``typed``: what :meth:`lane` answered for this frame's bytes (not HANDLED), which spares a decode."""
        self._lane = None
        try:
            if frame.dir != "err":  # stderr is free text
                obj = self._decoder(frame, typed)
                if obj is not HANDLED:
                    self._feed(frame, obj)
                elif self._unanswered_after is not None:
                    self._timeouts(frame.t)
        except Exception as exc:  # the checker must never take the proxy down
            self._sink.emit("checker.internal_error", getattr(frame, "t", 0.0), getattr(frame, "seq", None),
                            getattr(frame, "dir", None), f"checker failed on this frame: {type(exc).__name__}: {exc}")
        sink = self._sink
        if sink.out:
            return sink.take()
        return []

    def feed_many(self, frames: Iterable[Frame | FrameEntry]) -> list[Finding]:
        """:meth:`feed` each frame (or a recording's frame entry) in order; all the findings, in the same
        order (the live checker calls it with one frame at a time: the lane is kept between calls). Schema-clean deltas on the open block (most frames of a session) take :meth:`lane`: one
        typed decode, no dispatch, and no :class:`Frame` built for an entry."""
        out: list[Finding] = []
        timed = self._unanswered_after is not None
        entry, kib64, handled = FrameEntry, KIB64, HANDLED
        item: Any
        for item in frames:
            data = item.json if type(item) is entry else item.data
            if item.dir == "a2c" and item.nl and not item.cr and 0 < len(data) <= kib64:
                lane = self._lane
                if lane is None:
                    lane = self._lane = self._decoder.lane()
                if lane is not None:
                    typed = lane(data)
                    if typed is handled:
                        if timed:
                            out += self.tick(item.t)
                        continue
                    out += self.feed(item.to_frame() if type(item) is entry else item, typed)
                    continue
            out += self.feed(item.to_frame() if type(item) is entry else item)
        return out

    def frame_json(self) -> Any:
        """The type to decode frames' JSON as for :meth:`feed_block` (``validation.frame_union`` of the
        dialect), once the fast lane may be taken; else None. Ask again for each block."""
        return self._decoder.union if self._decoder.lane() is not None else None

    def feed_block(self, block: TypedBlock, start: int = 0, stop: int | None = None) -> list[Finding]:
        """:meth:`feed_many` for the frames ``block[start:stop]`` of a reader's typed block (decoded as
        :meth:`frame_json` said): a schema-clean delta on the open block takes the lane on its decoded
        JSON, decoded nowhere else; any other frame is read again as an entry and fed, with its
        decoded JSON when that is what the lane decodes."""
        out: list[Finding] = []
        timed = self._unanswered_after is not None
        decoder, handled = self._decoder, HANDLED
        on_value = self._block_lane(block)
        for i in range(start, len(block) if stop is None else stop):
            item = block[i]
            value = item.json
            if on_value is not None and value is not None and item.dir == "a2c" and item.nl and not item.cr:
                typed = on_value(value)  # decode.TYPED_MAX: the frame is at most 64 KiB
                if typed is handled:
                    if timed:
                        out += self.tick(item.t)
                    continue
                if typed is not None and type(typed) not in decoder.agent_classes:
                    typed = None  # a client frame's type: the agent's decoder refuses it
                out += self.feed(block.entry(i).to_frame(), typed)
            else:
                out += self.feed(block.entry(i).to_frame())
            on_value = self._block_lane(block)  # the dialect may have changed in feed
        return out

    def _block_lane(self, block: TypedBlock) -> Callable[[Any], Any] | None:
        """The lane's test of a decoded frame, when ``block`` was decoded for the dialect the lane is settled on."""
        decoder = self._decoder
        return decoder.fast_value if decoder.lane() is not None and block.json_type is decoder.union else None

    def lane(self) -> Callable[[Any], Any] | None:
        """The fast lane, once the dialect is settled (else None): ``lane(data)`` for an agent frame ending
        in LF alone, of 1 byte to 64 KiB, answers HANDLED when the frame is checked (then call :meth:`tick`
        if ``unanswered_after`` is set), or what to pass as :meth:`feed`'s ``typed`` with the frame.
        Ask again after any :meth:`feed`: the dialect may change there."""
        lane: Callable[[Any], Any] | None = self._decoder.lane()
        return lane

    def gap(self, t: float, seq: int | None, direction: str | None, dropped: int, text: str) -> list[Finding]:
        """The recording says ``dropped`` bytes were forwarded but not recorded here (a gap note)."""
        self._sink.emit("checker.gap", t, seq, direction, f"{dropped} bytes not recorded: {text}",
                        extra={"bytes": dropped})
        return self._sink.take()

    def tick(self, t: float) -> list[Finding]:
        """Time ``t`` passed with no frame (live use, e.g. once a second): report commands
        unanswered for ``unanswered_after`` seconds. ``feed`` does the same on every frame."""
        if self._unanswered_after is None or self._finished:
            return []
        try:
            self._timeouts(t)
        except Exception as exc:
            self._sink.emit("checker.internal_error", t, None, None, f"checker failed on tick: {exc!r}")
        return self._sink.take()

    def _feed(self, frame: Frame, obj: Any) -> None:
        """Dispatch a decoded frame (builtins) to the rule modules."""
        direction, t, seq = frame.dir, frame.t, frame.seq
        if self._schema.traits.jsonrpc:
            if type(obj) is dict:
                self._acp.message(t, seq, direction, obj)
            elif not isinstance(obj, Unparsed):
                self._non_object(t, seq, direction, obj)
            self._timeouts(t)
            return
        if type(obj) is dict:
            if direction == "a2c":
                self._agent(t, seq, obj)
            else:
                self._client(t, seq, obj)
            self._pitfalls.frame(frame, obj)
        elif direction == "c2a":
            if isinstance(obj, Unparsed):
                if self._corr.not_json(seq, t, blank=obj.blank, omp=self._schema.traits.blank_lines_skipped):
                    self._pitfalls.not_json(frame)
            else:
                self._non_object(t, seq, direction, obj)
                self._corr.expect_idless(seq, t, NONOBJECT)
                self._pitfalls.frame(frame, obj)
        elif not isinstance(obj, Unparsed):
            self._non_object(t, seq, direction, obj)
        self._timeouts(t)

    def _timeouts(self, t: float) -> None:
        if self._unanswered_after is not None:
            if self._schema.traits.jsonrpc:  # ACP: requests both ways, one pairing model
                self._acp.overdue(t, self._unanswered_after)
                return
            self._ui.expire(t)
            self._corr.overdue(t, self._unanswered_after, self._ui.blocked)

    def _non_object(self, t: float, seq: int, direction: str, obj: Any) -> None:
        if obj is None and direction == "c2a":
            self._sink.emit("misuse.null_frame", t, seq, direction,
                            "client sent `null`: pi crashes (exit 1, no response); omp answers a parse error")
        else:
            kind = type(obj).__name__.replace("dict", "object").replace("list", "array").replace("str", "string")
            who = "client" if direction == "c2a" else "agent"
            self._sink.emit("framing.not_object", t, seq, direction, f"{who} frame is a JSON {kind}, not an object")

    def _client(self, t: float, seq: int, obj: dict[str, Any]) -> None:
        ctype = obj.get("type")
        ctype = ctype if isinstance(ctype, str) else None
        if ctype in _NOT_COMMANDS:
            if ctype == "extension_ui_response":
                self._ui.response(seq, t, obj)
            return
        p = self._corr.command(seq, t, obj)
        if ctype == "prompt":
            if not self._life.filtered:  # with events filtered out, runs cannot be followed
                self._misuse.prompt(t, seq, p, busy=self._life.busy, running=self._life.run is not None)
        elif ctype in QUEUE_COMMANDS:
            idle = not (self._life.busy or self._life.run is not None or self._life.filtered
                        or self._schema.traits.idle_queue_unknown)
            self._misuse.queue(t, seq, p, idle=idle)
        elif ctype in TEARDOWN_COMMANDS:
            self._life.teardown_sent()

    def _agent(self, t: float, seq: int, obj: dict[str, Any]) -> None:
        etype = obj.get("type")
        if etype == "message_update":  # the hot path: most frames of a session
            self._life.message_update(t, seq, obj)
            return
        if etype == "response":
            p = self._corr.response(seq, t, obj, omp=self._schema.traits.blank_lines_skipped)
            if p is not None:
                self._relate(seq, p.seq)
                if not isinstance(p.type, str) and p.type is not MISSING and obj.get("command", MISSING) == p.type:
                    self._echoed(t, seq, p)
                self._answered(t, seq, p, obj)
            return
        if not isinstance(etype, str):
            return
        if etype == "extension_ui_request":
            self._ui.request(seq, t, obj)
        elif etype == "bash_execution_update" and "id" in obj and not self._corr.has_bash(obj["id"]):
            self._sink.emit("correlation.unknown_id", t, seq, "a2c",
                            f"bash_execution_update for id {obj['id']!r}, which is no pending `bash` command",
                            path="$.id")
        elif etype in RUN_BOUNDARIES:  # whatever prompt was starting has started (or lost its start)
            self._misuse.run_started()
        elif etype == "prompt_result" and "id" in obj:  # omp: the prompt's work is over, run or not
            self._misuse.prompt_closed(obj["id"])
        self._life.event(t, seq, etype, obj)

    def _relate(self, seq: int, request: int) -> None:
        """Schema findings on response ``seq`` (reported while decoding it) point at its request."""
        for f in self._sink.out:
            if f.frame == seq and f.related is None and f.group == "schema":
                f.related = request

    def _echoed(self, t: float, seq: int, p: Pending) -> None:
        """The response echoes the client's non-string ``type`` as ``command`` (pi does): the fault is
        the client frame's, already flagged there; the echo's schema finding becomes a warning about it."""
        sink = self._sink
        sink.out = [f for f in sink.out if not (f.frame == seq and f.group == "schema" and f.path == "$.command")]
        sink.emit("correlation.echoed_type", t, seq, "a2c",
                  f"the response echoes the client's non-string type {show_id(p.type)} (frame {p.seq}) as its "
                  "`command`; fix the client's frame", path="$.command", related=p.seq)

    def _answered(self, t: float, seq: int, p: Pending, obj: dict[str, Any]) -> None:
        again = p.answers > 1
        if p.type == "set_event_filter" and obj.get("success") is True:
            data = obj.get("data")
            self._life.filter_events(data.get("events") if isinstance(data, dict) else None)
        self._misuse.answered(t, seq, p, obj, again)
        if not again and isinstance(p.type, str) and p.type in TEARDOWN_COMMANDS:
            closes = self._schema.traits.settles or self._life.settles
            self._life.teardown_answered(t, p.seq, p.type, closes)

    # ---- end of session --------------------------------------------------------------------
    def finish(self, t: float, *, exit_code: int | None = None) -> list[Finding]:
        """End-of-session rules: commands never answered, dialogs never answered, runs cut off."""
        if self._finished:
            return []
        self._finished = True
        signal = SHUTDOWN_SIGNALS.get(exit_code) if exit_code is not None else None
        why = "" if exit_code is None else f" (the agent exited with code {exit_code}" + (
            f", the status of {signal})" if signal else ")")
        try:
            if self._schema.traits.jsonrpc:
                self._acp.finish(t, why)
            else:
                self._corr.finish(t, why)
                self._ui.finish(t)
                self._life.finish(t, why)
        except Exception as exc:
            self._sink.emit("checker.internal_error", t, None, None,
                            f"checker failed at end of session: {type(exc).__name__}: {exc}")
        return self._sink.take() + self._sink.summaries(t)

    def summarise(self, t: float) -> list[Finding]:
        """The live check stops before the end: the summaries of rules past the cap so far (:meth:`finish`
        ends with them too)."""
        return self._sink.summaries(t)
