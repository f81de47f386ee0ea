"""The live exporter's sender process: OTLP encoding and HTTP out of the observers' process.

Encoding spans into protobuf and sending them costs more CPU than deciding them, and a collector
that is slow or gone must cost the session nothing. So the live observer only packs finished span
records (msgpack, microseconds) and hands them to a thread that writes them down a pipe to this
module, run as a child process (``python -m rpcspy.pump.observers.otel_sender``), which sends them with
:class:`~rpcspy.pump.observers.otel_export.SpanSender`. When its input ends it sends what is left (at most
:data:`~rpcspy.pump.observers.otel_export.EXIT_WAIT` seconds) and writes its counts as one JSON line.

Frames on the pipe: a 4-byte big-endian length, then msgpack: first the settings, then lists of
:class:`~rpcspy.otel.spans.SpanRecord`.
"""

from __future__ import annotations

import json
import os
import select
import signal
import struct
import subprocess
import sys
import threading
import time
from collections import deque
from collections.abc import Iterable
from typing import Any

import msgspec

from rpcspy.otel.config import ExportSettings
from rpcspy.otel.spans import SpanRecord

MAX_QUEUE = 4096
"""Spans waiting for the pipe at most (the sender process stopped reading); more are dropped and counted."""
_encode = msgspec.msgpack.encode


class _Settings(msgspec.Struct):
    endpoint: str
    protocol: str
    headers: dict[str, str]
    timeout: float
    resource: dict[str, str]


class SenderProcess:
    """:class:`~rpcspy.pump.observers.otel_export.SpanSender`'s interface, the sending done by a child process."""

    def __init__(self, settings: ExportSettings, *, max_queue: int = MAX_QUEUE) -> None:
        self.settings = settings
        self._max = max_queue
        import rpcspy

        here = os.path.dirname(os.path.dirname(os.path.abspath(rpcspy.__file__)))  # this rpcspy, not another
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in (here, os.environ.get("PYTHONPATH")) if p)}
        self._proc = subprocess.Popen([sys.executable, "-m", "rpcspy.pump.observers.otel_sender"], stdin=subprocess.PIPE,
                                      stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, close_fds=True, env=env)
        self._queue: deque[tuple[int, bytes]] = deque()
        self._queued = 0
        self._cond = threading.Condition()
        self._closed = False
        self.exported = 0
        self.dropped = 0
        self.failed = 0
        self.error: str | None = None
        self._put_frame(_encode(_Settings(settings.endpoint, settings.protocol, dict(settings.headers),
                                          settings.timeout, dict(settings.resource))), 0)
        self._thread = threading.Thread(target=self._write, name="rpcspy-otel-pipe", daemon=True)
        self._thread.start()

    def _put_frame(self, data: bytes, n: int) -> None:
        with self._cond:
            self._queue.append((n, struct.pack(">I", len(data)) + data))
            self._queued += n
            self._cond.notify()

    def put(self, spans: Iterable[SpanRecord]) -> None:
        batch = list(spans)
        if not batch:
            return
        with self._cond:
            if self._closed or self._queued + len(batch) > self._max:
                self.dropped += len(batch)
                return
        self._put_frame(_encode(batch), len(batch))

    def _write(self) -> None:
        pipe = self._proc.stdin
        assert pipe is not None
        while True:
            with self._cond:
                while not self._queue and not self._closed:
                    self._cond.wait()
                if not self._queue:
                    break
                n, frame = self._queue.popleft()
            try:
                pipe.write(frame)
                pipe.flush()
            except (OSError, ValueError):  # the sender process is gone: what is left is dropped
                with self._cond:
                    self.dropped += self._queued  # this frame's spans are still counted in it
                    self._queue.clear()
                    self._queued = 0
                    self.error = self.error or "the sender process ended early"
                break
            with self._cond:
                self._queued -= n
        try:
            pipe.close()
        except OSError:
            pass

    def close(self, timeout: float) -> None:
        """Hand over what is queued and let the sender process send it; wait at most ``timeout`` + a second."""
        deadline = time.monotonic() + timeout + 1.0
        with self._cond:
            if self._closed:
                return
            self._closed = True
            self._cond.notify_all()
        self._thread.join(max(0.0, deadline - time.monotonic()))
        counts = self._read_counts(deadline)
        if self._proc.poll() is None:
            self._proc.kill()
        self._proc.wait()
        with self._cond:
            pending = self._queued
        if counts is None:
            self.dropped += pending
            self.error = self.error or "the sender process did not finish in time"
            return
        self.exported += int(counts.get("exported", 0))
        self.failed += int(counts.get("failed", 0))
        self.dropped += int(counts.get("dropped", 0)) + pending
        self.error = counts.get("error") or self.error

    def _read_counts(self, deadline: float) -> dict[str, Any] | None:
        out = self._proc.stdout
        assert out is not None
        data = b""
        while not data.endswith(b"\n"):
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([out], [], [], left)[0]:
                return None
            chunk = os.read(out.fileno(), 4096)
            if not chunk:
                break
            data += chunk
        try:
            got = json.loads(data)
        except ValueError:
            return None
        return got if isinstance(got, dict) else None

    def summary(self) -> tuple[str, str]:
        from rpcspy.pump.observers.otel_export import summary

        return summary(self.exported, self.dropped, self.failed, self.error, self.settings.endpoint)


def _read_exact(fd: int, n: int) -> bytes | None:
    data = b""
    while len(data) < n:
        chunk = os.read(fd, n - len(data))
        if not chunk:
            return None
        data += chunk
    return data


def main() -> None:
    """The child: settings, then span batches, until its input ends; then its counts on stdout."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the session's; the end of input stops this
    from rpcspy.pump.observers.otel_export import EXIT_WAIT, SpanSender

    fd = sys.stdin.fileno()
    sender: SpanSender | None = None
    records = msgspec.msgpack.Decoder(list[SpanRecord])
    error = None
    while True:
        head = _read_exact(fd, 4)
        body = _read_exact(fd, struct.unpack(">I", head)[0]) if head is not None else None
        if body is None:
            break
        try:
            if sender is None:
                s = msgspec.msgpack.decode(body, type=_Settings)
                sender = SpanSender(ExportSettings(endpoint=s.endpoint, protocol=s.protocol, headers=s.headers,
                                                   timeout=s.timeout, resource=s.resource), block=True)
            else:
                sender.put(records.decode(body))
        except Exception as exc:  # noqa: BLE001 - said in the counts, never a traceback on the client's stderr
            error = f"{type(exc).__name__}: {exc}"
            break
    counts: dict[str, object] = {"exported": 0, "dropped": 0, "failed": 0, "error": error}
    if sender is not None:
        sender.close(EXIT_WAIT)
        counts.update(exported=sender.exported, dropped=sender.dropped, failed=sender.failed,
                      error=error or sender.error)
    sys.stdout.write(json.dumps(counts) + "\n")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
