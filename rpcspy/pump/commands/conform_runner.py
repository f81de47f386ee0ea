"""Runs conformance cases against a real agent: one fresh process, temp HOME and transcript per case.

The steps and judgements are data in :mod:`rpcspy.conform.cases`; this module only
executes them (processes, pipes, signals, the scripted model server) and hands each
case's :class:`~rpcspy.conform.script.Transcript` to its judge.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from rpcspy.conform.cases import Case
from rpcspy.conform.script import Answer, Await, Close, Kill, Send, Transcript, Verdict, failed, send
from rpcspy.events import Frame
from rpcspy.framing import LineFramer, split_cr
from rpcspy.protocol.vocabulary import DIALOGS

TEARDOWN_GRACE = 3.0


@dataclass(frozen=True)
class CaseResult:
    case: Case
    verdict: Verdict
    seconds: float
    transcript: Transcript


class BatteryInterrupted(KeyboardInterrupt):
    """Ctrl-C during the battery: the cases that finished (in case order) are kept in ``results``;
    the agents of the running ones were stopped."""

    def __init__(self, results: list[CaseResult], total: int) -> None:
        super().__init__()
        self.results = results
        self.total = total


class _Session:
    """One agent process: frames of both directions collected under a condition variable."""

    def __init__(self, argv: Sequence[str], env: dict[str, str], cwd: Path) -> None:
        self.t0 = time.monotonic()
        self.proc = subprocess.Popen(list(argv), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, env=env, cwd=cwd, start_new_session=True)
        self.frames: list[Frame] = []
        self._objs: list[dict] = []
        self.cond = threading.Condition()
        self.eof = False
        self.last = self.t0
        self._stderr = bytearray()
        self._c2a = LineFramer()
        self._threads = [threading.Thread(target=self._read_out, daemon=True),
                         threading.Thread(target=self._read_err, daemon=True)]
        for th in self._threads:
            th.start()

    def _add(self, direction: str, line: bytes, nl: bool = True) -> None:
        data, cr = split_cr(line)
        with self.cond:
            now = time.monotonic()
            self.frames.append(Frame(len(self.frames) + 1, now - self.t0, direction, data, nl, cr))  # type: ignore[arg-type]
            if direction == "a2c":
                self.last = now
                obj = _object(data)
                if obj is not None:
                    self._objs.append(obj)
            self.cond.notify_all()

    def _read_out(self) -> None:
        framer = LineFramer()
        fd = self.proc.stdout.fileno()  # type: ignore[union-attr]
        try:
            while chunk := os.read(fd, 1 << 16):
                for line in framer.feed(chunk):
                    self._add("a2c", line)
        except OSError:
            pass
        rest = framer.finish()
        if rest is not None:
            self._add("a2c", rest, nl=False)
        with self.cond:
            self.eof = True
            self.cond.notify_all()

    def _read_err(self) -> None:
        fd = self.proc.stderr.fileno()  # type: ignore[union-attr]
        try:
            while chunk := os.read(fd, 1 << 16):
                self._stderr += chunk
        except OSError:
            pass

    # -- steps ----------------------------------------------------------------------------
    def write(self, step: Send) -> None:
        for i, piece in enumerate(step.pieces):
            if i:
                time.sleep(step.gap)
            for line in self._c2a.feed(piece):  # before the write: the answer may come at once
                self._add("c2a", line)
            try:
                self.proc.stdin.write(piece)  # type: ignore[union-attr]
                self.proc.stdin.flush()  # type: ignore[union-attr]
            except (BrokenPipeError, ValueError, OSError):
                return

    def close(self) -> None:
        try:
            self.proc.stdin.close()  # type: ignore[union-attr]
        except (BrokenPipeError, OSError):
            pass

    def wait_for(self, step: Await, stop: threading.Event | None = None,
                 check: Callable[[_Session, float], bool] | None = None) -> bool:
        """Block until ``step`` is met (True), or its timeout passes, stdout ends or ``stop`` is set (False).
        ``check``: what meets it, instead of what ``step`` names (the ACP runner's waits)."""
        deadline = time.monotonic() + step.timeout
        check = check or _condition(step)
        with self.cond:
            while True:
                now = time.monotonic()
                met = check(self, now)
                if met:
                    return True
                if stop is not None and stop.is_set():
                    return False
                if now >= deadline or (self.eof and step.kind not in ("exit", "quiet")):
                    return step.kind == "quiet" or (step.kind == "exit" and self.proc.poll() is not None)
                self.cond.wait(min(0.05, deadline - now))

    def objs(self) -> list[dict]:
        """The agent's JSON objects so far (parsed once, as they arrive)."""
        return self._objs

    # -- end ------------------------------------------------------------------------------
    def exited(self) -> int | None:
        code = self.proc.poll()
        return None if code is None else (128 - code if code < 0 else code)

    def teardown(self) -> str:
        self.close()
        try:
            self.proc.wait(TEARDOWN_GRACE)
        except subprocess.TimeoutExpired:
            pass
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        self.proc.wait(10)
        for th in self._threads:
            th.join(5)
        for stream in (self.proc.stdout, self.proc.stderr):
            if stream is not None:
                stream.close()
        return self._stderr.decode("utf-8", "replace")


def _object(data: bytes) -> dict | None:
    try:
        value = json.loads(data)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def _condition(step: Await) -> Callable[[_Session, float], bool]:
    kind, arg, count = step.kind, step.arg, step.count

    def matches(pred: Callable[[dict], bool]) -> Callable[[_Session, float], bool]:
        return lambda s, now: sum(1 for o in s.objs() if pred(o)) >= count

    if kind == "response":
        if arg is None:
            return matches(lambda o: o.get("type") == "response" and "id" not in o)
        return matches(lambda o: o.get("type") == "response" and o.get("id") == arg)
    if kind == "event":
        return matches(lambda o: o.get("type") == arg)
    if kind == "dialog":
        return matches(lambda o: o.get("type") == "extension_ui_request" and o.get("method") in DIALOGS)
    if kind == "delta":
        return matches(lambda o: o.get("type") == "message_update"
                       and (o.get("assistantMessageEvent") or {}).get("type") == "text_delta")
    if kind == "exit":
        return lambda s, now: s.eof and s.proc.poll() is not None
    if kind == "quiet":
        start = time.monotonic()
        return lambda s, now: now - max(s.last, start) >= float(arg)
    quiet = 0.7 if arg is None else float(arg)

    def idle(s: _Session, now: float) -> bool:
        types = [o.get("type") for o in s.objs()]
        if "agent_end" not in types:
            return False
        if types[-1] == "agent_settled":
            return True
        return now - s.last >= quiet

    return idle


def run_case(case: Case, argv: Sequence[str], env: dict[str, str], cwd: Path,
             stop: threading.Event | None = None) -> tuple[Transcript, float]:
    """Start the agent, perform the case's steps, tear it down; return the transcript and duration.
    ``stop`` (Ctrl-C) cuts the case short: its transcript is then incomplete."""
    start = time.monotonic()
    session = _Session(argv, env, cwd)
    timeouts: list[str] = []
    try:
        for i, step in enumerate(case.steps):
            if stop is not None and stop.is_set():
                break
            if isinstance(step, Send):
                session.write(step)
            elif isinstance(step, Answer):
                dialogs = [o for o in session.objs()
                           if o.get("type") == "extension_ui_request" and o.get("method") in DIALOGS]
                if dialogs:
                    session.write(send({"type": "extension_ui_response", "id": dialogs[-1].get("id"),
                                        **dict(step.payload)}))
            elif isinstance(step, Close):
                session.close()
            elif isinstance(step, Kill):
                try:
                    session.proc.send_signal(step.signum)
                except ProcessLookupError:
                    pass
            elif isinstance(step, Await) and not session.wait_for(step, stop):
                why = "the agent closed stdout first" if session.eof else f"not seen within {step.timeout:g} s"
                timeouts.append(f"step {i + 1}: {step.kind} {step.arg!r} {why}")
                break
        if session.eof:  # stdout closed: the process is on its way out, let it be reaped
            try:
                session.proc.wait(2)
            except subprocess.TimeoutExpired:
                pass
        code = session.exited()
    finally:
        stderr = session.teardown()
    frames = list(session.frames)
    return Transcript(frames=frames, timeouts=timeouts, exit_code=code, stderr=stderr,
                      findings=_check(frames, session.exited())), time.monotonic() - start


def _check(frames: list[Frame], exit_code: int | None) -> list:
    from rpcspy.checker import Checker

    checker = Checker()
    findings = []
    for f in frames:
        findings += checker.feed(f)
    findings += checker.finish(frames[-1].t if frames else 0.0, exit_code=exit_code)
    return findings


def run_battery(cases: Sequence[Case], agent: Sequence[str], *, jobs: int = 2, agent_args: bool = True,
                on_result: Callable[[CaseResult], None] | None = None) -> list[CaseResult]:
    """Run ``cases`` against the agent command ``agent``, ``jobs`` at a time, each with a fresh
    temp HOME pointing at one scripted model server; results in case order."""
    from rpcspy.modelserver.config import agent_args as model_args
    from rpcspy.modelserver.config import agent_env, make_home
    from rpcspy.pump.commands.model_server import ModelServer

    argv = [*agent, *(model_args("pi")[2:] if agent_args else [])]
    with ModelServer() as server, tempfile.TemporaryDirectory(prefix="rpcspy-conform-") as tmp:
        def one(case: Case) -> CaseResult | None:
            home = make_home(Path(tmp) / case.id, server.base_url)
            if case.extension:
                from rpcspy.conform.cases import EXTENSION_FILE, EXTENSION_JS

                for family in (".pi", ".omp"):
                    ext = home / family / "agent" / "extensions"
                    ext.mkdir(parents=True, exist_ok=True)
                    (ext / EXTENSION_FILE).write_text(EXTENSION_JS)
            env = agent_env(home, dict(os.environ))
            try:
                transcript, secs = run_case(case, argv, env, home / "project", stop)
            except OSError as exc:
                transcript, secs = Transcript(), 0.0
                result = CaseResult(case, failed(f"cannot start the agent: {exc}"), secs, transcript)
            else:
                if stop.is_set():
                    return None  # cut short by Ctrl-C: not judged
                verdict = case.judge(transcript)
                result = CaseResult(case, verdict, secs, transcript)
            if on_result is not None:
                on_result(result)
            return result

        stop = threading.Event()
        with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
            futures = [pool.submit(one, case) for case in cases]
            try:
                results = [f.result() for f in futures]
            except KeyboardInterrupt:
                stop.set()  # running cases stop at their next step (their agents are torn down)
                for f in futures:
                    f.cancel()
                pool.shutdown(wait=True)
                done = [r for f in futures if f.done() and not f.cancelled() and f.exception() is None
                        and (r := f.result()) is not None]
                raise BatteryInterrupted(done, len(cases)) from None
        return [r for r in results if r is not None]
