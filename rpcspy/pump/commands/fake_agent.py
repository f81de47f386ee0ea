"""The fake agent (``rpcspy replay REC``), its I/O half: stdin lines in, recorded frames out at
recorded pace.

What to answer is decided by the pure :mod:`rpcspy.replay` (engine, matcher, chaos planner).
A reader thread frames stdin (LF only) into a queue; the main thread plays exchanges in order,
each frame due at ``match time + recorded offset / speed`` (``speed`` 0: as fast as the pipe
takes them), and answers each line through the pure :class:`~rpcspy.replay.engine.ReplayEngine`.
"""

from __future__ import annotations

import os
import queue
import signal
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, cast

import msgspec

from rpcspy.events import Eof, Exit, Frame, Note
from rpcspy.framing import LineFramer, split_cr
from rpcspy.pump.forward.spawn import grow_pipe
from rpcspy.replay.engine import Outcome, ReplayEngine
from rpcspy.replay.ids import Served
from rpcspy.replay.model import PlayItem, Report

if TYPE_CHECKING:
    from rpcspy.recording.writer import RecordingWriter

STRICT_EXIT = 3
"""Exit status of ``--strict`` at the first divergence."""
FLUSH_AT = 1 << 18
_EOF = object()


class _Playback(msgspec.Struct):
    items: Iterator[PlayItem]
    anchor_rec: float | None
    anchor_live: float
    served: Served | None = None
    head: PlayItem | None = None
    started: bool = False
    raw: bool = False
    """Our own frames (failure responses): sent as they are, no id rewriting."""
    stop: int | None = None
    """Exit with this status once played (--strict)."""


class ReplayOptions(msgspec.Struct):
    speed: float = 1.0
    strict: bool = False
    report_path: str | None = None
    stdin_fd: int = 0
    stdout_fd: int = 1
    stderr_fd: int = 2
    replay_stderr: bool = True
    """Write the recorded agent's stderr lines to our stderr."""
    recorder: RecordingWriter | None = None
    """A RecordingWriter for the replay session, or None."""
    clock: Callable[[], float] = time.monotonic
    extra: dict = msgspec.field(default_factory=dict)
    chaos: object | None = None
    """A :class:`rpcspy.replay.chaos.Chaos` planner: faults injected into what is written."""


class _Stop(Exception):
    def __init__(self, code: int) -> None:
        self.code = code


def _shown(text: str) -> str:
    """One line for the terminal: controls, format characters (bidi) and line separators escaped
    (the client's text is in it). To be replaced by rpcspy.inert.inert_line where that exists."""
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


def _read_stdin(fd: int, q: queue.SimpleQueue, clock: Callable[[], float]) -> None:
    framer = LineFramer()
    try:
        while chunk := os.read(fd, 1 << 20):
            now = clock()
            for line in framer.feed(chunk):
                q.put((now, line, True))
    except OSError:
        pass
    last = framer.finish()
    if last is not None:
        q.put((clock(), last, False))
    q.put(_EOF)


class FakeAgent:
    """One replay run. ``run()`` returns the exit status."""

    def __init__(self, source, engine: ReplayEngine, options: ReplayOptions) -> None:
        self.source = source
        self.engine = engine
        self.opt = options
        self.clock = options.clock
        self.inq: queue.SimpleQueue = queue.SimpleQueue()
        self.playbacks: deque[_Playback] = deque()
        self.out: list[bytes] = []
        self.out_size = 0
        self.last_due = 0.0
        self.line_no = 0
        self.seq = 0
        self.eof = False
        self.start = 0.0
        self.rec = options.recorder
        self.stopping = False
        self.held: list[bytes] = []
        """Frames kept back by chaos ``reorder``, written after the next frame."""
        self.faults_unreported = False
        self.reported_at = 0.0
        self._report_failed = False

    # -- main loop -------------------------------------------------------------------------
    def run(self) -> int:
        self.start = self.clock()
        grow_pipe(self.opt.stdout_fd)  # fewer wake-ups at --speed 0
        self._write_report(final=False)
        threading.Thread(target=_read_stdin, args=(self.opt.stdin_fd, self.inq, self.clock), daemon=True).start()
        self.playbacks.append(_Playback(self.source.prelude(), None, self.start))
        old = signal.signal(signal.SIGTERM, self._on_term) if threading.current_thread() is threading.main_thread() else None
        try:
            code = self._loop()
        except _Stop as stop:
            code = stop.code
        finally:
            if old is not None:
                signal.signal(signal.SIGTERM, old)
        return self._finish(code)

    def _on_term(self, signum: int, frame: object) -> None:
        raise _Stop(128 + signum)

    def _loop(self) -> int:
        speed = self.opt.speed
        inq = self.inq
        while True:
            while not inq.empty():
                self._on_input(inq.get())
            now = self.clock()
            deadline = self.engine.next_deadline()
            if deadline is not None and deadline <= now:
                self._expire(now)
            pb = self._current()
            if pb is None:
                self._release_held()
                if self.faults_unreported:  # idle: bring --report up to date with the faults so far
                    self._write_report(final=False)
                if self.eof:
                    self._flush()
                    return self._exit_code()
                self._flush()
                self._wait(None if deadline is None else deadline - now)
                continue
            item = pb.head
            assert item is not None
            due = now if speed == 0 or self.eof else self._due(pb, item)
            if due > now:
                self._flush()
                wait = due - now if deadline is None else min(due, deadline) - now
                self._wait(wait)
                continue
            pb.head = None
            self._emit(item, pb, now)

    def _wait(self, timeout: float | None) -> None:
        if timeout is not None and not timeout <= 3600:  # 1e300 s recorded: an hour at a time (no OverflowError)
            timeout = 3600.0
        try:
            ev = self.inq.get(timeout=timeout) if timeout is None or timeout > 0 else self.inq.get_nowait()
        except queue.Empty:
            return
        self._on_input(ev)

    def _current(self) -> _Playback | None:
        while self.playbacks:
            pb = self.playbacks[0]
            if pb.head is None:
                pb.head = next(pb.items, None)
                if pb.head is None:
                    self.playbacks.popleft()
                    if pb.stop is not None:
                        self._flush()
                        raise _Stop(pb.stop)
                    continue
            return pb
        return None

    def _due(self, pb: _Playback, item: PlayItem) -> float:
        if pb.anchor_rec is None:
            pb.anchor_rec = item.t
        due = pb.anchor_live + max(0.0, item.t - pb.anchor_rec) / self.opt.speed
        due = max(due, self.last_due)
        self.last_due = due
        return due

    # -- output ----------------------------------------------------------------------------
    def _emit(self, item: PlayItem, pb: _Playback, now: float) -> None:
        if item.dir == "a2c":
            data = item.data if pb.raw else self.engine.agent_frame(item.data, pb.served, now=now, rec_t=item.t)
            if self.opt.chaos is not None:
                self._emit_chaos(data, item, pb, now)
                return
            self._record(Frame(0, now - self.start, "a2c", data, item.nl, item.cr))
            self.out.append(data + (b"\r" if item.cr else b"") + (b"\n" if item.nl else b""))
            self.out_size += len(data)
            if self.out_size >= FLUSH_AT or not pb.started:
                self._flush()  # an exchange's first frame (its response) goes out at once
            pb.started = True
        elif item.dir == "err":
            self._record(Frame(0, now - self.start, "err", item.data, item.nl, item.cr))
            if self.opt.replay_stderr:
                self._write(self.opt.stderr_fd, item.data + (b"\r" if item.cr else b"") + (b"\n" if item.nl else b""))
        elif item.dir == "exit":
            self._flush()
            raise _Stop(item.code)

    def _emit_chaos(self, data: bytes, item: PlayItem, pb: _Playback, now: float) -> None:
        """Write one agent frame as the chaos planner says (pauses, drops, extra frames, splits)."""
        from rpcspy.replay.chaos import SPLIT_GAP, split_points

        chaos = self.opt.chaos
        before = len(chaos.faults)  # type: ignore[attr-defined]
        plan = chaos.plan(data)  # type: ignore[attr-defined]
        new = chaos.faults[before:]  # type: ignore[attr-defined]
        if new:
            self.engine.report.faults.extend(f.to_json() for f in new)
            self.faults_unreported = True
            big = sum(map(len, plan.frames)) >= FLUSH_AT  # a write the client may never finish reading
            if big or self.clock() - self.reported_at >= 0.2:
                self._write_report(final=False)
        if plan.delay:
            self._flush()
            time.sleep(plan.delay)
        end = (b"\r" if item.cr else b"") + (b"\n" if item.nl else b"")
        frames = plan.frames
        if plan.hold and frames:
            self.held.append(frames[0] + end)
            frames = frames[1:]
        for frame in frames:
            self._record(Frame(0, self.clock() - self.start, "a2c", frame, item.nl, item.cr))
            if plan.split:
                self._flush()
                for i, piece in enumerate(split_points(frame + end)):
                    if i:
                        time.sleep(SPLIT_GAP)
                    if not self._write(self.opt.stdout_fd, piece):
                        raise _Stop(self._exit_code())
            else:
                self.out.append(frame + end)
                self.out_size += len(frame)
        if frames:
            self._release_held(into_buffer=True)
        if self.out_size >= FLUSH_AT or not pb.started:
            self._flush()
        pb.started = True

    def _release_held(self, into_buffer: bool = False) -> None:
        if not self.held:
            return
        held, self.held = self.held, []
        for line in held:
            self._record(Frame(0, self.clock() - self.start, "a2c", line.rstrip(b"\n").removesuffix(b"\r"),
                               line.endswith(b"\n"), line.endswith(b"\r\n")))
        self.out.extend(held)
        if not into_buffer:
            self._flush()

    def _flush(self) -> None:
        if not self.out:
            return
        data = b"".join(self.out) if len(self.out) > 1 else self.out[0]
        self.out.clear()
        self.out_size = 0
        if not self._write(self.opt.stdout_fd, data):
            raise _Stop(self._exit_code())
        if self.rec is not None:
            self.rec.flush()

    @staticmethod
    def _write(fd: int, data: bytes) -> bool:
        view = memoryview(data)
        try:
            while view:
                view = view[os.write(fd, view):]
        except OSError:
            return False
        return True

    # -- input -----------------------------------------------------------------------------
    def _on_input(self, ev: object) -> None:
        if ev is _EOF:
            self._on_eof()
            return
        if self.stopping:
            return
        t, raw, had_lf = cast("tuple[float, bytes, bool]", ev)
        self.line_no += 1
        data, cr = split_cr(raw)
        self._record(Frame(0, t - self.start, "c2a", data, had_lf, cr))
        self._sync()
        while True:
            out = self.engine.client_line(data, line=self.line_no, t=t - self.start, complete=self.source.complete)
            if not out.need_more:
                break
            self._index_next()
        self._apply(out, t)

    def _apply(self, out: Outcome, t: float) -> None:
        if out.match is not None:
            cmd = out.match.command
            self.playbacks.append(_Playback(self.source.exchange(cmd), cmd.t, t, out.served))
        if out.divergence is not None:  # the report first: whoever reads it after the reply sees it
            d = out.divergence
            self._record(Note(0, t - self.start, "warning", "replay divergence: " + d.message, "c2a"))
            self._write_report(final=False)
            said = f"rpcspy replay: diverged: live line {d.line} {d.label}: {d.message}"  # as it happens
            self._write(self.opt.stderr_fd, _shown(said).encode("utf-8", "replace") + b"\n")
        stop = STRICT_EXIT if out.divergence is not None and self.opt.strict else None
        if stop is not None:
            self.stopping = True  # --strict: nothing after the first divergence is answered
        if out.reply is not None or stop is not None:  # after what earlier commands are owed, as an agent would
            items = [PlayItem(0.0, "a2c", line) for line in out.reply.split(b"\n")] if out.reply is not None else []
            self.playbacks.append(_Playback(iter(items), 0.0, t, raw=True, stop=stop))

    def _expire(self, now: float) -> None:
        while True:
            outs = self.engine.expire(now, complete=self.source.complete, line=self.line_no)
            if outs is not None:
                break
            self._index_next()
        for out in outs:
            self._apply(out, now)

    def _sync(self) -> bool:
        """Hand the engine the client frames the source found (playing also finds them)."""
        known = self.engine.matcher.commands
        found = self.source.commands
        added = len(found) > len(known)
        while len(known) < len(found):
            self.engine.add_recorded(found[len(known)])
        return added

    def _index_next(self) -> None:
        if not self._sync():
            self.source.index_next()
            self._sync()

    def _on_eof(self) -> None:
        self.eof = True
        self._record(Eof(0, self.clock() - self.start, "c2a"))
        self.playbacks.append(_Playback(self.source.epilogue(), None, self.clock()))
        self._sync()

    # -- end -------------------------------------------------------------------------------
    def _exit_code(self) -> int:
        code = self.source.exit_code
        return 0 if code is None else code

    def _finish(self, code: int) -> int:
        try:
            self._release_held()
            self._flush()
        except _Stop:
            pass
        while not self.source.complete:
            self._index_next()
        self._sync()
        report = self.engine.finish(code)
        text = report.text()
        if text:
            self._write(self.opt.stderr_fd, text.encode("utf-8", "replace"))
        self._write_report(final=True)
        if self.rec is not None:
            if text:
                self._record(Note(0, self.clock() - self.start, "info", text.rstrip("\n")))
            self._record(Exit(0, self.clock() - self.start, code))
            self.rec.close()
        self.source.close()
        return code

    def _record(self, event: Frame | Note | Exit | Eof) -> None:
        if self.rec is None:
            return
        self.seq += 1
        event.seq = self.seq
        self.rec.write_event(event)

    def _write_report(self, *, final: bool) -> None:
        path = self.opt.report_path
        self.faults_unreported = False
        self.reported_at = self.clock()
        if not path:
            return
        report: Report = self.engine.report
        report.final = final
        from rpcspy.pump.commands.outfile import write_whole

        try:
            write_whole(path, msgspec.json.encode(report.to_json()))
        except OSError as exc:
            if not self._report_failed:  # said once; the replay goes on
                self._report_failed = True
                self._write(self.opt.stderr_fd, f"rpcspy replay: cannot write the report {path}: "
                                                f"{exc.strerror or exc}\n".encode("utf-8", "replace"))
