"""Drive an RPC agent (or rpcspy in front of one) as a subprocess, speaking JSONL.

stdout is read as bytes and split on ``b"\\n"`` only: pi writes raw U+2028/U+2029,
which text-mode reading or ``str.splitlines`` would split on. Every stdout line is
kept verbatim in :attr:`AgentProcess.frames` (without its LF) for byte-exact checks.
"""

from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

Predicate = Callable[[dict[str, Any]], bool]
_EOF = object()


def parse(line: bytes) -> dict[str, Any]:
    """A stdout line as a JSON object, or ``{}`` when it is not one."""
    try:
        value = json.loads(line)
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def is_type(*types: str) -> Predicate:
    """A predicate matching frames whose ``type`` is one of ``types``."""
    return lambda msg: msg.get("type") in types


def is_response(id_: Any) -> Predicate:
    """A predicate matching the response to the command with id ``id_``."""
    return lambda msg: msg.get("type") == "response" and msg.get("id") == id_


class AgentProcess:
    """A child process with piped stdio: send commands, read frames until a condition."""

    def __init__(
        self,
        argv: Sequence[str],
        env: dict[str, str] | None = None,
        cwd: str | Path | None = None,
        grace: float = 5.0,
    ) -> None:
        self.argv = list(argv)
        self.grace = grace  # seconds __exit__ waits after EOF before killing
        self.proc = subprocess.Popen(
            self.argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
            cwd=cwd,
            start_new_session=True,  # own process group: cleanup kills grandchildren too
        )
        self.frames: list[bytes] = []  # every stdout line, verbatim, without its LF
        self.stdout = bytearray()  # every stdout byte, in order
        self.sent: list[bytes] = []  # every chunk written to stdin
        self.trailing_newline = True  # False if stdout ended with a partial line
        self._stderr = bytearray()
        self._lines: queue.Queue[object] = queue.Queue()
        self._eof = False
        self._threads = [
            threading.Thread(target=self._read_stdout, daemon=True),
            threading.Thread(target=self._read_stderr, daemon=True),
        ]
        for t in self._threads:
            t.start()

    # -- reader threads -------------------------------------------------------------
    def _read_stdout(self) -> None:
        assert self.proc.stdout is not None
        fd = self.proc.stdout.fileno()
        pending = b""
        while chunk := os.read(fd, 1 << 16):
            self.stdout += chunk
            pending += chunk
            *lines, pending = pending.split(b"\n")
            for line in lines:
                self._lines.put(line)
        if pending:
            self.trailing_newline = False
            self._lines.put(pending)
        self._lines.put(_EOF)

    def _read_stderr(self) -> None:
        assert self.proc.stderr is not None
        fd = self.proc.stderr.fileno()
        while chunk := os.read(fd, 1 << 16):
            self._stderr += chunk

    @property
    def stderr(self) -> str:
        """Everything the process wrote to stderr so far (decoded leniently)."""
        return self._stderr.decode("utf-8", "replace")

    # -- writing --------------------------------------------------------------------
    def send(self, msg: dict[str, Any] | bytes | str) -> None:
        """Write one command: a dict becomes one JSON line; bytes/str are written verbatim."""
        if isinstance(msg, dict):
            data = json.dumps(msg).encode() + b"\n"
        elif isinstance(msg, str):
            data = msg.encode()
        else:
            data = bytes(msg)
        assert self.proc.stdin is not None
        self.sent.append(data)
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def close_stdin(self) -> None:
        """Send EOF to the process."""
        if self.proc.stdin is not None and not self.proc.stdin.closed:
            try:
                self.proc.stdin.close()
            except BrokenPipeError:
                pass

    # -- reading --------------------------------------------------------------------
    def next_line(self, timeout: float) -> bytes | None:
        """The next stdout line (raw bytes), or None at EOF; TimeoutError after ``timeout``."""
        if self._eof:
            return None
        try:
            item = self._lines.get(timeout=timeout)
        except queue.Empty:
            raise TimeoutError(self._describe(f"no stdout line within {timeout} s")) from None
        if item is _EOF:
            self._eof = True
            return None
        assert isinstance(item, bytes)
        self.frames.append(item)
        return item

    def read_until(self, pred: Predicate, timeout: float = 30.0) -> list[dict[str, Any]]:
        """Read frames until ``pred(frame)`` holds; return them parsed, the match last.

        Non-JSON lines are passed to ``pred`` as ``{}``. Raises TimeoutError when the
        condition is not met within ``timeout`` seconds and EOFError at end of stdout.
        """
        deadline = time.monotonic() + timeout
        seen: list[dict[str, Any]] = []
        while True:
            remaining = deadline - time.monotonic()
            try:
                if remaining <= 0:
                    raise TimeoutError
                line = self.next_line(remaining)
            except TimeoutError:
                raise TimeoutError(self._describe(f"condition not met within {timeout} s")) from None
            if line is None:
                raise EOFError(self._describe("stdout closed before the condition was met"))
            msg = parse(line)
            seen.append(msg)
            if pred(msg):
                return seen

    def request(self, cmd: dict[str, Any], timeout: float = 30.0) -> dict[str, Any]:
        """Send ``cmd`` (which must carry an ``id``) and return its response."""
        self.send(cmd)
        return self.read_until(is_response(cmd["id"]), timeout)[-1]

    def read_rest(self, timeout: float = 30.0) -> list[bytes]:
        """Read stdout to EOF; return the lines read by this call."""
        deadline = time.monotonic() + timeout
        lines = []
        while (line := self.next_line(max(0.0, deadline - time.monotonic()))) is not None:
            lines.append(line)
        return lines

    # -- lifecycle ------------------------------------------------------------------
    def wait(self, timeout: float = 30.0) -> int:
        """Wait for the exit; return the exit code (negative for a signal, as Popen does)."""
        code = self.proc.wait(timeout)
        for t in self._threads:
            t.join(timeout)
        return code

    def finish(self, timeout: float = 30.0) -> int:
        """Close stdin, drain stdout, wait for the exit; return the exit code."""
        self.close_stdin()
        self.read_rest(timeout)
        return self.wait(timeout)

    def kill(self) -> None:
        """Kill the process group (the agent and anything it spawned, even if it exited)."""
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        self.proc.wait(10)

    def __enter__(self) -> AgentProcess:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close_stdin()
        try:
            self.proc.wait(self.grace if exc[0] is None else min(self.grace, 0.5))
        except subprocess.TimeoutExpired:
            pass
        self.kill()
        for stream in (self.proc.stdout, self.proc.stderr):
            if stream is not None:
                stream.close()

    def _describe(self, what: str) -> str:
        tail = b"\n".join(line[:300] for line in self.frames[-5:]).decode("utf-8", "replace")
        err = self.stderr[-2000:]
        return f"{what}\nargv: {self.argv}\nlast frames:\n{tail}\nstderr tail:\n{err}"
