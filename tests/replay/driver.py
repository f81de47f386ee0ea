"""Drive a FakeAgent in a thread over real pipes, as a client would."""

from __future__ import annotations

import os
import queue
import select
import threading
import time

import msgspec

from rpcspy.framing import LineFramer
from rpcspy.normalise.normaliser import NormaliseOptions, Normaliser
from rpcspy.pump.commands.fake_agent import _EOF, FakeAgent, ReplayOptions
from rpcspy.replay.engine import ReplayEngine
from rpcspy.replay.matcher import Matcher
from rpcspy.replay.source import open_source


class LiveReplay:
    def __init__(self, path, *, match: str = "exact", reuse: bool = False, speed: float = 0.0,
                 strict: bool = False, report: str | None = None, recorder=None, options: NormaliseOptions | None = None,
                 new_id=None):
        self.source = open_source(str(path))
        matcher = Matcher(match, reuse=reuse, normaliser=Normaliser(options or NormaliseOptions(), stable=False))
        kwargs = {} if new_id is None else {"ids": __import__("rpcspy.replay.ids", fromlist=["IdMapper"]).IdMapper(new_id)}
        self.engine = ReplayEngine(matcher, recording=str(path), **kwargs)
        in_r, self.in_w = os.pipe()
        self.out_r, out_w = os.pipe()
        self.err_r, err_w = os.pipe()
        self._fds = (in_r, out_w, err_w)
        self.agent = FakeAgent(self.source, self.engine, ReplayOptions(
            speed=speed, strict=strict, report_path=report, stdin_fd=in_r, stdout_fd=out_w, stderr_fd=err_w,
            recorder=recorder))
        self.code: int | None = None
        self.framer = LineFramer()
        self.lines: list[bytes] = []
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        try:
            self.code = self.agent.run()
        finally:
            for fd in self._fds[1:]:
                os.close(fd)

    def send(self, obj) -> None:
        data = obj if isinstance(obj, bytes) else msgspec.json.encode(obj)
        os.write(self.in_w, data + b"\n")

    def close(self) -> None:
        os.close(self.in_w)

    def read(self, timeout: float = 60.0) -> bytes:
        """The next stdout line (raises TimeoutError)."""
        end = time.monotonic() + timeout
        while not self.lines:
            left = end - time.monotonic()
            if left <= 0 or not select.select([self.out_r], [], [], left)[0]:
                raise TimeoutError("no frame from the replay")
            chunk = os.read(self.out_r, 1 << 20)
            if not chunk:
                raise EOFError("replay closed stdout")
            self.lines.extend(self.framer.feed(chunk))
        return self.lines.pop(0)

    def read_json(self, timeout: float = 60.0):
        return msgspec.json.decode(self.read(timeout))

    def read_until(self, typ: str, timeout: float = 60.0) -> list:
        out = []
        while True:
            obj = self.read_json(timeout)
            out.append(obj)
            if obj.get("type") == typ:
                return out

    def quiet(self, wait: float = 0.2) -> bool:
        """True when nothing arrives within ``wait`` seconds."""
        if self.lines:
            return False
        return not select.select([self.out_r], [], [], wait)[0]

    def _stdin_read(self, timeout: float) -> None:
        """Wait until the agent's stdin reader read its EOF: closing its pipe before then (a loaded machine delays
        that thread) lets the fd number go to the next LiveReplay's pipe, whose lines that reader would steal."""
        if self.agent.eof:  # the agent took the reader's last word itself
            return
        end = time.monotonic() + timeout
        while (left := end - time.monotonic()) > 0:
            try:
                if self.agent.inq.get(timeout=left) is _EOF:
                    return
            except queue.Empty:
                break
        raise TimeoutError("the replay's stdin reader never saw EOF")

    def finish(self, timeout: float = 60.0) -> tuple[int | None, list[bytes], bytes]:
        """Close stdin; return (exit code, remaining stdout lines, stderr)."""
        try:
            self.close()
        except OSError:
            pass
        rest = []
        while True:  # drain stdout until the agent closes it, so a full pipe cannot block it
            try:
                rest.append(self.read(timeout=timeout))
            except (EOFError, TimeoutError):
                break
        self.thread.join(timeout)
        self._stdin_read(timeout)
        err = b""
        while chunk := os.read(self.err_r, 1 << 20):
            err += chunk
        for fd in (self.out_r, self.err_r, self._fds[0]):
            try:
                os.close(fd)
            except OSError:
                pass
        return self.code, rest, err
