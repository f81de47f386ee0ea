"""A real OTLP/HTTP receiver for the tests: oteltap (from PyPI) on a loopback port, in a thread of its own."""

from __future__ import annotations

import asyncio
import socket
import threading
import time
from typing import Any

import pytest


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Receiver:
    """Collects every span oteltap receives; :meth:`wait` for a count (a hang guard, never a timing assertion)."""

    def __init__(self) -> None:
        oteltap = pytest.importorskip("oteltap", reason="oteltap is in the test extra: pip install -e '.[test]'")
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.spans: list[Any] = []
        self._lock = threading.Lock()
        self._ready = threading.Event()
        self._stop: asyncio.Event | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._error: BaseException | None = None
        self._settings = oteltap.OtelTapHttpProtobufReceiverSettings(http_port=self.port)
        self._cls = oteltap.OtelTapHttpProtobufReceiver
        self._thread = threading.Thread(target=self._main, daemon=True)
        self._thread.start()
        if not self._ready.wait(30) or self._error is not None:
            raise RuntimeError(f"oteltap did not start: {self._error}")
        self._wait_listening()

    def _wait_listening(self) -> None:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                return
            except OSError:
                time.sleep(0.05)
        raise RuntimeError("oteltap does not listen")

    def _main(self) -> None:
        asyncio.run(self._serve())

    async def _serve(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._stop = asyncio.Event()
        try:
            async with self._cls(self._settings) as receiver:
                self._ready.set()

                async def collect() -> None:
                    async for span in receiver.stream_traces():
                        with self._lock:
                            self.spans.append(span)

                task = asyncio.create_task(collect())
                await self._stop.wait()
                task.cancel()
        except BaseException as exc:  # noqa: BLE001 - reported by the constructor
            self._error = exc
            self._ready.set()

    def wait(self, n: int, timeout: float = 60.0) -> list[Any]:
        """At least ``n`` spans (raises after ``timeout`` seconds: a hang guard)."""
        deadline = time.monotonic() + timeout
        while True:
            with self._lock:
                got = list(self.spans)
            if len(got) >= n or time.monotonic() > deadline:
                assert len(got) >= n, f"only {len(got)} of {n} spans arrived"
                return got
            time.sleep(0.05)

    def settle(self, quiet: float = 0.5) -> list[Any]:
        """The spans once none arrived for ``quiet`` seconds (for asserting that no more came)."""
        last = -1
        while True:
            with self._lock:
                n = len(self.spans)
            if n == last:
                with self._lock:
                    return list(self.spans)
            last = n
            time.sleep(quiet)

    def clear(self) -> None:
        with self._lock:
            self.spans.clear()

    def close(self) -> None:
        if self._loop is not None and self._stop is not None:
            self._loop.call_soon_threadsafe(self._stop.set)
        self._thread.join(10)
