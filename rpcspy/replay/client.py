"""``rpcspy replay --client REC -- AGENT``: be the recorded client against a real agent.

The recording becomes a plan: each recorded client frame, the recorded gap before
it, and what the recorded agent had said since the previous client frame
(responses by id, id-less responses, ``ready``/``agent_end`` events, dialog
requests). Before sending a frame we wait until the live agent has said as much
(or ``timeout`` passes, noted), and at least the recorded gap scaled by ``speed``.
Dialog answers are sent to the live dialog of the same rank (ids mapped). The new
session is recorded (mode ``client``, source REC) for ``rpcspy diff``.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterable

import msgspec

from rpcspy.events import Eof, Exit, Frame, Note, Start
from rpcspy.framing import DECODE_ERRORS, LineFramer, split_cr
from rpcspy.protocol.vocabulary import ANSWER_TYPES, DIALOGS as DIALOG_METHODS, HOST_REQUEST_TYPES as REQUEST_TYPES
from rpcspy.replay.ids import canon

LANDMARK_TYPES = frozenset({"ready", "agent_end"})
_TYPE_PREFIX = b'{"type":"'
_BORING = frozenset({"message_update", "message_start", "message_end", "turn_start", "turn_end", "agent_start",
                     "tool_execution_start", "tool_execution_update", "tool_execution_end", "queue_update"})


class _Env(msgspec.Struct):
    type: object = None
    id: msgspec.Raw = msgspec.Raw(b"")
    method: object = None


_env = msgspec.json.Decoder(_Env)


class Said(msgspec.Struct):
    """What an agent said, as counts the client waits for."""

    responses: Counter = msgspec.field(default_factory=Counter)
    idless: int = 0
    events: Counter = msgspec.field(default_factory=Counter)
    requests: list = msgspec.field(default_factory=list)
    """Agent request ids needing an answer (dialogs, host tool calls), in order."""

    def add(self, data: bytes) -> None:
        if data.startswith(_TYPE_PREFIX):
            end = data.find(b'"', 9)
            if end > 0 and data[9:end].decode("utf-8", "replace") in _BORING:
                return
        try:
            env = _env.decode(data)
        except DECODE_ERRORS:
            return
        typ = env.type
        if not isinstance(typ, str):  # a list or an object is no type (and cannot key a table)
            return
        if typ == "response":
            if len(env.id):
                self.responses[canon(bytes(env.id))] += 1
            else:
                self.idless += 1
        elif typ in LANDMARK_TYPES:
            self.events[typ] += 1
        elif len(env.id) and (typ in REQUEST_TYPES or (typ == "extension_ui_request" and isinstance(env.method, str)
                                                   and env.method in DIALOG_METHODS)):
            self.requests.append(canon(bytes(env.id)))

    def forgive(self, need: Said) -> None:
        """Count what ``need`` has and this lacks as arrived (after a timeout)."""
        for k, n in need.responses.items():
            self.responses[k] = max(self.responses[k], n)
        self.idless = max(self.idless, need.idless)
        for k, n in need.events.items():
            self.events[k] = max(self.events[k], n)
        self.requests.extend([b"null"] * (len(need.requests) - len(self.requests)))

    def missing(self, need: Said) -> list[str]:
        """What ``need`` has that this has not (empty when caught up)."""
        out = [f"response id {k.decode()}" for k, n in need.responses.items() if self.responses[k] < n]
        if self.idless < need.idless:
            out.append(f"{need.idless - self.idless} id-less response(s)")
        out += [f"{n - self.events[k]} {k}" for k, n in need.events.items() if self.events[k] < n]
        if len(self.requests) < len(need.requests):
            out.append(f"{len(need.requests) - len(self.requests)} dialog request(s)")
        return out


class Step(msgspec.Struct):
    """One recorded client frame (or the client's EOF) and what to wait for before it."""

    t: float
    data: bytes | None
    """Exact bytes to write (line terminator included); None for EOF."""
    need: Said
    seq: int = 0


def plan(entries: Iterable[msgspec.Struct], *, transcript: bool = False) -> list[Step]:
    """The steps of a recording: cumulative expectations before each client frame."""
    from rpcspy.recording.format import EofEntry, FrameEntry, NoteEntry

    said = Said()
    steps: list[Step] = []
    for e in entries:
        if isinstance(e, FrameEntry):
            if e.dir == "a2c":
                said.add(e.data())
            elif e.dir == "c2a":
                steps.append(Step(e.t, e.to_frame().raw(), _copy(said), e.seq))
        elif (isinstance(e, EofEntry) and e.dir == "c2a") or (
                transcript and isinstance(e, NoteEntry) and e.text.startswith("closing stdin (EOF)")):
            steps.append(Step(e.t, None, _copy(said), e.seq))
            break
    return steps


def _copy(s: Said) -> Said:
    return Said(Counter(s.responses), s.idless, Counter(s.events), list(s.requests))


class ClientRun:
    """Spawn the agent, play the plan, record everything; ``run()`` returns the exit status."""

    def __init__(self, steps: list[Step], argv: list[str], *, recorder, speed: float = 1.0, timeout: float = 30.0,
                 warn: Callable[[str], None] = lambda m: sys.stderr.write(f"rpcspy replay --client: {m}\n"),
                 env: dict[str, str] | None = None, cwd: str | None = None) -> None:
        self.steps, self.argv, self.rec = steps, argv, recorder
        self.speed, self.timeout, self.warn = speed, timeout, warn
        self.env, self.cwd = env, cwd
        self.live = Said()
        self.cond = threading.Condition()
        self.lock = threading.Lock()
        self.seq = 0
        self.start = 0.0
        self.stalls: list[str] = []

    def _event(self, event) -> None:
        with self.lock:
            self.seq += 1
            event.seq = self.seq
            if self.rec is not None:
                self.rec.write_event(event)
                self.rec.flush()

    def _t(self) -> float:
        return time.monotonic() - self.start

    def _reader(self, fd: int, direction: str) -> None:
        framer = LineFramer()

        def emit(line: bytes, nl: bool) -> None:
            data, cr = split_cr(line)
            self._event(Frame(0, self._t(), direction, data, nl, cr))  # type: ignore[arg-type]
            if direction == "a2c":
                with self.cond:
                    self.live.add(data)
                    self.cond.notify_all()

        while chunk := os.read(fd, 1 << 20):
            for line in framer.feed(chunk):
                emit(line, True)
        last = framer.finish()
        if last is not None:
            emit(last, False)
        self._event(Eof(0, self._t(), direction))  # type: ignore[arg-type]
        with self.cond:
            self.cond.notify_all()

    def run(self) -> int:
        self.start = time.monotonic()
        try:
            proc = subprocess.Popen(self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                    env=self.env, cwd=self.cwd, bufsize=0)
        except OSError as exc:
            self.warn(f"cannot start {self.argv[0]}: {exc.strerror or exc}")
            return 127
        self._event(Start(0, self._t(), proc.pid, list(self.argv)))
        readers = [threading.Thread(target=self._reader, args=(proc.stdout.fileno(), "a2c"), daemon=True),
                   threading.Thread(target=self._reader, args=(proc.stderr.fileno(), "err"), daemon=True)]
        for r in readers:
            r.start()
        stdin = proc.stdin
        last_sent, last_t = time.monotonic(), None
        closed = False
        for step in self.steps:
            self._wait_for(step, proc)
            if last_t is not None and self.speed > 0:
                due = last_sent + max(0.0, step.t - last_t) / self.speed
                if due > time.monotonic():
                    time.sleep(due - time.monotonic())
            last_t = step.t
            if step.data is None:
                stdin.close()
                self._event(Eof(0, self._t(), "c2a"))
                closed = True
                break
            data = self._map_answer(step.data)
            try:
                stdin.write(data)
            except OSError:
                self.warn("the agent closed its stdin; stopping")
                break
            body, cr = split_cr(data[:-1] if data.endswith(b"\n") else data)
            self._event(Frame(0, self._t(), "c2a", body, data.endswith(b"\n"), cr))
            last_sent = time.monotonic()
        if not closed:
            try:
                proc.wait(self.timeout)
            except subprocess.TimeoutExpired:
                pass
            try:
                stdin.close()
            except OSError:
                pass
            self._event(Eof(0, self._t(), "c2a"))
        try:
            code = proc.wait(self.timeout)
        except subprocess.TimeoutExpired:
            self.warn(f"the agent did not exit within {self.timeout:g} s of EOF; terminating it")
            proc.terminate()
            code = proc.wait()
        for r in readers:
            r.join(5)
        self._event(Exit(0, self._t(), code if code >= 0 else 128 - code, -code if code < 0 else None))
        return code if code >= 0 else 128 - code

    def _wait_for(self, step: Step, proc: subprocess.Popen) -> None:
        deadline = time.monotonic() + self.timeout
        with self.cond:
            while True:
                missing = self.live.missing(step.need)
                if not missing:
                    return
                left = deadline - time.monotonic()
                if left <= 0 or proc.poll() is not None:
                    why = "the agent exited" if proc.poll() is not None else f"{self.timeout:g} s passed"
                    msg = f"before seq {step.seq}: still waiting for {', '.join(missing[:5])} ({why}); going on"
                    self.stalls.append(msg)
                    self.warn(msg)
                    self._event(Note(0, self._t(), "warning", "replay --client: " + msg))
                    self.live.forgive(step.need)  # one stall per missing thing, not one per later step
                    return
                self.cond.wait(min(left, 0.5))

    def _map_answer(self, data: bytes) -> bytes:
        """A recorded dialog answer addressed to the live dialog of the same rank."""
        line = data.rstrip(b"\r\n")
        try:
            obj = msgspec.json.decode(line)
        except DECODE_ERRORS:
            return data
        if not isinstance(obj, dict) or obj.get("type") not in ANSWER_TYPES or "id" not in obj:
            return data
        rec_id = canon(msgspec.json.encode(obj["id"]))
        rank = self._recorded_rank(rec_id)
        with self.cond:
            if rank is None or rank >= len(self.live.requests):
                return data
            live_id = self.live.requests[rank]
        if live_id == rec_id:
            return data
        obj["id"] = msgspec.json.decode(live_id)
        return msgspec.json.encode(obj) + data[len(line):]

    def _recorded_rank(self, rec_id: bytes) -> int | None:
        requests = self.steps[-1].need.requests if self.steps else []
        return requests.index(rec_id) if rec_id in requests else None


def run_client_cli(recording: str, argv: list[str], *, speed: float, timeout: float, record: str | None,
                   diff: bool, usage: bool, redact: Iterable[str]) -> int:
    """The ``--client`` command: returns the exit status."""
    from rpcspy.recording.reader import RecordingError, open_recording
    from rpcspy.recording.naming import default_path
    from rpcspy.recording.writer import RecordingWriter, make_header

    try:
        rec = open_recording(recording)
    except RecordingError as exc:
        sys.stderr.write(f"rpcspy replay --client: {exc}\n")
        return 2
    steps = plan(rec.entries(), transcript=rec.kind != "rpcspy")
    out = record or default_path("recordings", argv)
    writer = RecordingWriter(out, make_header(argv, mode="client", source=recording),
                             warn=lambda m: sys.stderr.write(f"rpcspy replay --client: {m}\n"))
    try:
        code = ClientRun(steps, argv, recorder=writer, speed=speed, timeout=timeout).run()
    finally:
        writer.close()
    sys.stderr.write(f"rpcspy replay --client: new session recorded to {out}\n")
    if not diff:
        return code
    from rpcspy.cli.recfile import make_console
    from rpcspy.replay.diff_render import render_diff
    from rpcspy.replay.differ import diff_recordings
    from rpcspy.replay.normalise import NormaliseOptions, Normaliser

    result = diff_recordings(recording, out, Normaliser(NormaliseOptions(usage=usage, redact=tuple(redact)),
                                                        stable=False))
    render_diff(result, make_console())
    return 0 if result.equal else 1
