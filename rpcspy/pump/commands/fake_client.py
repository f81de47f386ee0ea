"""``rpcspy replay --client REC -- AGENT``, the I/O half: play the recorded client against a real agent.

The agent is started by :func:`rpcspy.pump.forward.spawn.spawn_agent` (its own process group, SIGTERM if
rpcspy dies), the terminal's signals are forwarded to that group, and its exit status is read by
:func:`~rpcspy.pump.forward.spawn.exit_status`, as for a proxied session. What to wait for and what to send
is decided by the pure :mod:`rpcspy.replay.client` (:func:`plan`, :class:`Said`, :func:`map_answer`).
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable

from rpcspy.events import Eof, Event, Exit, Frame, Note, Start
from rpcspy.framing import LineFramer, split_cr
from rpcspy.inert import inert_line
from rpcspy.pump.forward.signals import SignalForwarder
from rpcspy.pump.forward.spawn import SpawnError, end_process_group, exit_status, spawn_agent
from rpcspy.replay.client import Said, Step, map_answer

MAX_PAUSE = 1e6
"""Seconds (11 days): a longer recorded pause between two client frames is taken for damage, not waited."""


def _warn(message: str) -> None:
    sys.stderr.write(inert_line(f"rpcspy replay --client: {message}") + "\n")


class ClientRun:
    """Spawn the agent, play the plan, record everything; ``run()`` returns the exit status."""

    def __init__(self, steps: list[Step], argv: list[str], *, recorder, speed: float = 1.0, timeout: float = 30.0,
                 warn: Callable[[str], None] | None = None,
                 env: dict[str, str] | None = None, exit_grace: float | None = None) -> None:
        self.steps, self.argv, self.rec = steps, argv, recorder
        self.speed, self.timeout, self.warn = speed, timeout, warn or _warn
        self.exit_grace = timeout if exit_grace is None else exit_grace
        """Seconds the agent has to exit after EOF before it is terminated (``timeout`` unless given)."""
        self.env = env
        self.live = Said()
        self.cond = threading.Condition()
        self.lock = threading.Lock()
        self.seq = 0
        self.start = 0.0
        self.stalls: list[str] = []
        self.recorded_requests: list[bytes] = steps[-1].need.requests if steps else []

    def _event(self, event: Event) -> None:
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
            proc = spawn_agent(self.argv, self.env)
        except SpawnError as exc:
            self.warn(str(exc))
            return exc.code
        self._event(Start(0, self._t(), proc.pid, list(self.argv)))
        assert proc.stdout is not None and proc.stderr is not None
        readers = [threading.Thread(target=self._reader, args=(proc.stdout.fileno(), "a2c"), daemon=True),
                   threading.Thread(target=self._reader, args=(proc.stderr.fileno(), "err"), daemon=True)]
        for r in readers:
            r.start()
        with SignalForwarder(proc.pid):
            self._play(proc)
            returncode = self._wait_exit(proc)
        for r in readers:
            r.join(5)
        code, signum = exit_status(returncode)
        self._event(Exit(0, self._t(), code, signum))
        return code

    def _play(self, proc: subprocess.Popen[bytes]) -> None:
        """Send the steps, each when the agent has said enough and the recorded gap has passed; then EOF."""
        stdin = proc.stdin
        assert stdin is not None
        last_sent, last_t = time.monotonic(), None
        for step in self.steps:
            self._wait_for(step, proc)
            if last_t is not None and self.speed > 0:
                gap = step.t - last_t
                if not gap <= MAX_PAUSE:  # also NaN and inf (1e308 after -1e308)
                    self.warn(f"a recorded pause of {gap:g} s before frame {step.seq} is not reproduced (damaged time?)")
                    gap = 0.0
                due = last_sent + max(0.0, gap) / self.speed
                if due > time.monotonic():
                    time.sleep(max(0.0, due - time.monotonic()))  # due may pass between the check and here
            last_t = step.t
            if step.data is None:
                stdin.close()
                self._event(Eof(0, self._t(), "c2a"))
                return
            with self.cond:
                data = map_answer(step.data, self.recorded_requests, self.live.requests)
            try:
                stdin.write(data)
            except OSError:
                self.warn("the agent closed its stdin; stopping")
                break
            body, cr = split_cr(data[:-1] if data.endswith(b"\n") else data)
            self._event(Frame(0, self._t(), "c2a", body, data.endswith(b"\n"), cr))
            last_sent = time.monotonic()
        try:  # the recording never closed stdin: give the agent time to finish on its own first
            proc.wait(self.timeout)
        except subprocess.TimeoutExpired:
            pass
        try:
            stdin.close()
        except OSError:
            pass
        self._event(Eof(0, self._t(), "c2a"))

    def _wait_exit(self, proc: subprocess.Popen[bytes]) -> int:
        try:
            return proc.wait(self.exit_grace)
        except subprocess.TimeoutExpired:
            self.warn(f"the agent did not exit within {self.exit_grace:g} s of EOF; terminating it")
            end_process_group(proc.pid)
            return proc.wait()

    def _wait_for(self, step: Step, proc: subprocess.Popen[bytes]) -> None:
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
