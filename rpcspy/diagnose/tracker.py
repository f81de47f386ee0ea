"""What is in flight in a session, fed frame by frame (so it runs live as well as on recordings).

:class:`Tracker` keeps the state a client waits on: commands without response, prompts
whose run has not started or settled, open runs, dialogs and host calls the agent waits
on, queued messages, compaction and retries. It also notes the client pitfalls the frames
show as they pass (:mod:`rpcspy.diagnose.pitfalls` words them). Pure: no I/O, never raises
on bad frames. Client frames and responses are followed here; which command a response
answers is the tracker's :class:`rpcspy.protocol.pairing.Pairing`'s to say, as for check, show
and stats. The state itself is :class:`rpcspy.diagnose.state.InFlight`, and how each agent
event moves it is :mod:`rpcspy.diagnose.agent_events`. :func:`rpcspy.diagnose.explain.explain`
turns a tracker into a diagnosis.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import msgspec

from rpcspy.diagnose import knowledge as K
from rpcspy.diagnose import pitfalls as P
from rpcspy.diagnose.agent_events import EVENTS
from rpcspy.diagnose.envelope import BIG, envelope
from rpcspy.diagnose.state import Cmd, InFlight
from rpcspy.events import Direction, Eof, Exit, Frame, Note, frames_of
from rpcspy.framing import DECODE_ERRORS
from rpcspy.protocol.detect import DialectDetector
from rpcspy.protocol.pairing import id_key, is_blank

_decode = msgspec.json.decode
_UPDATE = b'{"type":"message_update"'
"""How pi and omp begin a message_update, the bulk of a session: skipped without decoding."""
_LINE_UPDATE = b"\n" + _UPDATE
_TYPE = b'{"type":"'
_FOLLOWED = frozenset({name.encode() for name in EVENTS} | {b"response", b"message_update"})
"""Agent frame types the tracker acts on (:data:`rpcspy.diagnose.agent_events.EVENTS`, responses)."""


@dataclass
class Tracker(InFlight):
    """Feed every frame of a session in order (and its EOFs and exit); read the state at any time."""

    @classmethod
    def seeded(cls, dialect: str | None, reason: str | None = None, **kw: Any) -> Tracker:
        """A tracker that knows the session's ``dialect`` from the start (detected beforehand, as ``check``
        does); None: it learns the dialect from the frames as they come (live)."""
        if dialect is None:
            return cls(**kw)
        return cls(detector=DialectDetector.known(dialect, reason or f"{dialect} (given)"), **kw)

    # ---- feeding ---------------------------------------------------------------------------
    def feed(self, frame: Frame) -> None:
        """One frame of either direction (stderr frames only move the clock)."""
        self.t = max(self.t, frame.t)
        if frame.dir == "err":
            return
        self.frames += 1
        self.last[frame.dir] = (frame.seq, frame.t)
        if frame.data.startswith(_UPDATE):
            if not self.detector.sure:  # delta-only updates tell pi >= 0.84 before its first agent_end
                try:
                    self._detect(_decode(frame.data))
                except DECODE_ERRORS:
                    pass
            return
        if frame.dir == "a2c" and self._passing(frame.data):
            return
        try:
            obj = _decode(frame.data) if len(frame.data) <= BIG else envelope(frame.data)
        except DECODE_ERRORS:  # ValueError covers msgspec's errors and bad UTF-8; deep nesting raises RecursionError
            self.not_json(frame)
            return
        self.feed_decoded(frame, obj)

    def _passing(self, data: bytes) -> bool:
        """An agent frame nothing follows from but the clock and the counts, told without decoding it (a
        ``message_end`` or ``turn_end`` holds a whole message): the dialect sure for good, not ACP, and
        the frame begins with a ``type`` no handler takes (read up to its closing quote, with no escape
        in it; JSON.stringify writes a key once, so the first ``type`` is the type), holds no ``"jsonrpc"``
        anywhere, and is not long enough to be omp's cut frame."""
        if not data.startswith(_TYPE) or self.acp is not None or not self.detector.sure or self.detector.refinable:
            return False
        end = data.find(b'"', 9)
        name = data[9:end]
        if end < 0 or name in _FOLLOWED or b"\\" in name or b'"jsonrpc"' in data:
            return False
        return not (self.omp and not self.v2 and len(data) > self.frame_cap // 2)

    def not_json(self, frame: Frame) -> None:
        """A frame that is not JSON (the checker, which decoded it, calls this): a client's line is answered
        by an id-less ``parse`` error, which must not be taken for another command's answer (omp skips a
        blank line: no answer)."""
        if frame.dir == "c2a":
            self.pairing.client(frame.seq, frame.t, None, parsed=False, blank=is_blank(frame.data), omp=self.omp)

    def feed_many(self, frames: list[Frame]) -> None:
        """:meth:`feed` each frame in order, with the same state after. Once the dialect is sure, the
        message updates among them (the bulk of a session, which only move the clock, the count and
        the last frame of their direction) are found in one pass and accounted for together."""
        if not self.detector.sure:
            for frame in frames:
                self.feed(frame)
            return
        update, feed = _UPDATE, self.feed
        rest = [f for f in frames if f.dir == "err" or not f.data.startswith(update)]
        for frame in rest:  # nothing here reads the clock, the count or the last frames
            feed(frame)
        if len(rest) == len(frames):
            return
        self.frames += len(frames) - len(rest)
        self.t = max(self.t, max(f.t for f in frames))
        todo = {"a2c", "c2a"}
        for frame in reversed(frames):
            if frame.dir in todo:
                todo.discard(frame.dir)
                self.last[frame.dir] = (frame.seq, frame.t)
                if not todo:
                    break

    def feed_lines(self, direction: Direction, t: float, first: int, lines: list[bytes],
                   injected: bool = False) -> None:
        """:meth:`feed_many` of ``frames_of(first, t, direction, lines, injected)`` (a chunk's lines as the
        dispatcher numbers them), with the same state after, and no :class:`Frame` built for the message
        updates among them: once the dialect is sure, a chunk of nothing but updates (the bulk of a
        flood) is told by one search over its lines (a line holds no LF, so an LF followed by the start
        of an update is the start of a line); only the other frames are fed one by one."""
        if not lines:
            return
        if direction == "err":  # stderr only moves the clock
            self.t = max(self.t, t)
            return
        if not self.detector.sure:
            self.feed_many(frames_of(first, t, direction, lines, injected))
            return
        n = len(lines)
        starts = b"\n" + b"\n".join(lines)
        updates = starts.count(_LINE_UPDATE)
        if updates != n:
            update = _UPDATE
            feed = self.feed
            for i, line in enumerate(lines):
                if not line.startswith(update):
                    cr = line.endswith(b"\r")
                    feed(Frame(first + i, t, direction, line[:-1] if cr else line, True, cr, injected))
        self.frames += updates
        self.t = max(self.t, t)
        self.last[direction] = (first + n - 1, t)

    def feed_decoded(self, frame: Frame, obj: Any) -> None:
        """The rest of :meth:`feed`, for a caller that decoded the frame already (the checker)."""
        if self.acp is not None or (type(obj) is dict and "jsonrpc" in obj
                                    and (frame.dir == "a2c" or obj.get("method") == "initialize")):
            self._acp(frame, obj)
            return
        if type(obj) is not dict:
            if frame.dir == "c2a":
                self.pairing.client(frame.seq, frame.t, obj)  # answered by an id-less error
                if obj is None and frame.data.strip() == b"null":
                    self.pitfalls.append(P.null_frame(frame.seq))
            return
        if frame.dir == "c2a":
            self._client(frame, obj)
        else:
            self._detect(obj)
            self._agent(frame, obj)

    def _acp(self, frame: Frame, obj: Any) -> None:
        """An ACP session (live, or a recording not known to be one): its state takes every message."""
        if self.acp is None:
            from rpcspy.protocol.acp_state import AcpState

            self.acp = AcpState(bounded=True)
        if type(obj) is dict:
            self.acp.message(frame.dir, frame.seq, frame.t, obj)

    def _detect(self, obj: Any) -> None:
        """Feed the dialect detector an agent frame; once it tells omp, blank lines wait for no answer."""
        if self.detector.feed(obj, "a2c") is not None and self.omp:
            self.pairing.omp_now()

    def closed(self, seq: int, t: float, direction: str) -> None:
        """End of input in ``direction`` (``c2a``: the client closed the agent's stdin)."""
        self.t = max(self.t, t)
        self.eof.setdefault(direction, (seq, t))

    def exited(self, seq: int, t: float, code: int, signal: int | None = None) -> None:
        """The agent's exit: ``code`` shell-style (128+N for signal N); ``signal`` when a signal killed it."""
        self.t = max(self.t, t)
        self.exit = (seq, t, code)
        self.exit_signal = signal

    def noted(self, seq: int, t: float, text: str) -> None:
        """A note of the recording: the proxy forwarding a signal to the agent is remembered."""
        if text.startswith(K.FORWARDED_SIGNAL):
            name = text[len(K.FORWARDED_SIGNAL):].split(None, 1)
            if name:
                self.signalled = (seq, name[0])

    def observe(self, event: Any) -> None:
        """A pump event (live): frames, EOFs and the exit; the rest is ignored."""
        if isinstance(event, Frame):
            self.feed(event)
        elif isinstance(event, Eof):
            self.closed(event.seq, event.t, event.dir)
        elif isinstance(event, Exit):
            self.exited(event.seq, event.t, event.code, event.signal)
        elif isinstance(event, Note):
            self.noted(event.seq, event.t, event.text)

    def feed_entry(self, entry: Any) -> None:
        """A recording entry of any kind (frames, EOFs, exit; the rest is ignored)."""
        kind = type(entry).__name__
        if kind == "FrameEntry":
            self.feed(entry.to_frame())
        elif kind == "Eof":
            self.closed(entry.seq, entry.t, entry.dir)
        elif kind == "Exit":
            self.exited(entry.seq, entry.t, entry.code, entry.signal)
        elif kind == "Note":  # the shared transcripts note EOF and the exit status as text
            self.noted(entry.seq, entry.t, entry.text)
            if entry.text.startswith("closing stdin (EOF)"):
                self.closed(entry.seq, entry.t, "c2a")
            elif entry.text.startswith("exit code: ") and entry.text[11:].strip().lstrip("-").isdigit():
                self.exited(entry.seq, entry.t, int(entry.text[11:].strip()))

    # ---- client frames ---------------------------------------------------------------------
    def _client(self, frame: Frame, obj: dict[str, Any]) -> None:
        seq, t = frame.seq, frame.t
        ctype = obj.get("type")
        self.last_cmd = None
        if any(k in obj for k in K.JSONRPC_KEYS) and not isinstance(ctype, str) or "jsonrpc" in obj:
            self.pitfalls.append(P.jsonrpc(seq, obj))
        if ctype == "extension_ui_response" or ctype in K.HOST_CALLS.values():
            key = id_key(obj.get("id"))
            if self.waiting.pop(key, None) is None and ctype == "extension_ui_response" and key not in self.asked:
                self._stray_answer(seq, obj.get("id"))
        p = self.pairing.client(seq, t, obj)
        if p is None:  # it answers the agent: no response comes back
            return
        ctype = ctype if isinstance(ctype, str) else None
        message = obj.get("message")
        cmd = Cmd(seq, t, ctype, obj.get("id"), self.busy, message=message if isinstance(message, str) else None,
                  behavior="streamingBehavior" in obj, behind=bool(self.starting))
        p.note = self.last_cmd = cmd
        if ctype in K.RUN_COMMANDS:
            self.starting.append(cmd)
        elif ctype == K.OMP_NEGOTIATE and obj.get("protocolVersion") == 2:
            self.negotiating.add(seq)

    def _stray_answer(self, seq: int, rid: Any) -> None:
        """An extension_ui_response to an id the agent never asked for: pi ignores it without a word."""
        self.stray_answers = [*self.stray_answers[-7:], (seq, rid)]
        dialog = next((w for w in sorted(self.waiting.values(), key=lambda w: w.seq) if w.kind == "dialog"), None)
        self.pitfalls.append(P.stray_answer(seq, rid, dialog))

    # ---- agent frames ----------------------------------------------------------------------
    def _agent(self, frame: Frame, obj: dict[str, Any]) -> None:
        seq, t = frame.seq, frame.t
        etype = obj.get("type")
        if etype == "message_update":
            return
        if self.omp and not self.v2 and len(frame.data) > self.frame_cap // 2 and any(
                mark in frame.data for mark in K.OMP_CAP_MARKS):
            self.pitfalls.append(P.over_cap(seq, etype, self.frame_cap))
        if etype == "response":
            self._response(seq, t, obj)
            return
        handler = EVENTS.get(etype) if isinstance(etype, str) else None
        if handler is not None:
            handler(self, seq, t, obj)

    def _response(self, seq: int, t: float, obj: dict[str, Any]) -> None:
        success = obj.get("success")
        error = obj.get("error")
        if self.omp and not self.v2 and isinstance(error, str) and K.OMP_CAP_MARKS[1].decode() in error:
            self.pitfalls.append(P.over_cap(seq, "response", self.frame_cap))
        answer = self.pairing.response(seq, obj, omp=self.omp)
        cmd: Cmd | None = answer.command.note if answer.command is not None else None
        if cmd is None:  # no command waits for it, or it answers a line that was not a command
            return
        if answer.kind == "repeat":  # omp's error after success for one prompt
            self.pitfalls.append(P.success_then_error(cmd, seq, obj))
            self._forget(cmd)
            return
        if not answer.fresh:
            return
        cmd.resp, cmd.resp_t, cmd.success = seq, t, success
        data = obj.get("data")
        disposition = data.get("disposition") if isinstance(data, dict) else None
        cmd.disposition = disposition if isinstance(disposition, str) else None
        self._answered(cmd, seq, t)

    def _answered(self, cmd: Cmd, seq: int, t: float) -> None:
        if t - cmd.t > self.client_timeout:
            self.pitfalls.append(P.late_response(cmd, self.client_timeout))
        if (cmd.type in K.STOP_COMMANDS and cmd.busy and not self.busy and self.last_settle is not None
                and self.last_settle > cmd.seq):
            self.pitfalls.append(P.settle_passed(cmd, self.last_settle, self._settle_name()))
        if cmd.seq in self.negotiating:
            self.negotiating.discard(cmd.seq)
            self.v2 = cmd.success is True
        if cmd.type in K.RUN_COMMANDS:
            self._run_command_answered(cmd)
        elif cmd.type in K.QUEUE_COMMANDS and cmd.success is True and cmd.disposition != K.DISPOSITION_HANDLED:
            self.queued.append(cmd)

    def _forget(self, cmd: Cmd) -> None:
        """A command the agent took back (omp's error after success): nothing follows from it."""
        for bag in (self.starting, self.queued):
            if cmd in bag:
                bag.remove(cmd)
        if cmd.id is not None:
            self.omp_open.pop(id_key(cmd.id), None)

    def _run_command_answered(self, cmd: Cmd) -> None:
        if cmd.success is True and cmd.disposition is None and cmd.busy and cmd.behavior:
            cmd.disposition = K.DISPOSITION_QUEUED  # pi before 0.99 and omp queue it without saying so
        refused = cmd.success is not True
        if refused or cmd.disposition in (K.DISPOSITION_HANDLED, K.DISPOSITION_QUEUED):
            if cmd in self.starting:
                self.starting.remove(cmd)
        if refused:
            return
        if cmd.disposition == K.DISPOSITION_HANDLED:
            self.handled = cmd
        elif cmd.disposition == K.DISPOSITION_QUEUED:
            self.queued.append(cmd)
        if self.omp and self.omp_results and cmd.id is not None:
            self.omp_open[id_key(cmd.id)] = cmd

    def _settle_name(self) -> str:
        return K.SETTLED if self.settling else K.RUN_END
