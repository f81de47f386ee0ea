"""The proxy's end of the observer pipe: what relays forwarded, as wire messages.

Writes are non-blocking with a bound: a child that does not read for
``stall_timeout`` seconds is cut off (one warning), and forwarding goes on. The
agent's bulk output travels on the tape (:mod:`rpcspy.pump.tape`): only a header
goes through the message pipe (:meth:`PipeSink.publish_tape`).
"""

from __future__ import annotations

import os
import select
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from rpcspy.events import Direction, Event
from rpcspy.pump import wire

if TYPE_CHECKING:
    from rpcspy.pump.tape import Tape

Warn = Callable[[str], None]


class PipeSink:
    """Proxy side: serialise what the relays forwarded into the observer pipe.

    Writes are blocking with a bound: a child that does not read for
    ``stall_timeout`` seconds is cut off (one warning), and forwarding goes on.
    """

    def __init__(self, fd: int, *, warn: Warn, stall_timeout: float = 10.0, tape: Tape | None = None) -> None:
        self.fd = fd
        self.tape = tape
        """Where the agent relay may put bulk output instead of the pipe, or None."""
        self._warn = warn
        self._stall_timeout = stall_timeout
        self._lock = threading.Lock()
        self.dead = False
        os.set_blocking(fd, False)

    def publish(self, direction: Direction, t: float, chunk: bytes, injected: bool = False) -> None:
        self._send([wire.header(wire.DATA, direction, t, len(chunk), wire.INJECTED if injected else 0), chunk])

    def publish_tape(self, direction: Direction, t: float, length: int) -> None:
        """``length`` bytes of ``direction`` were just appended to the tape: say so, in order."""
        self._send([wire.header(wire.TAPE_DATA, direction, t, length)])

    def publish_eof(self, direction: Direction, t: float) -> None:
        self._send([wire.header(wire.EOF, direction, t, 0)])

    def publish_event(self, event: Event) -> None:
        self._send(wire.event_message(event))

    def _send(self, pieces: list[bytes]) -> None:
        if self.dead:
            return
        with self._lock:
            try:
                self._writev(pieces)
            except OSError as exc:
                self._cut_off(f"observer process gone ({exc.strerror or exc}); recording stopped, forwarding continues")

    def _writev(self, pieces: list[bytes]) -> None:
        views = [memoryview(p) for p in pieces if p]
        deadline = None
        while views:
            try:
                n = os.writev(self.fd, views)
            except BlockingIOError:
                now = time.monotonic()
                deadline = deadline or now + self._stall_timeout
                if now >= deadline or not select.select([], [self.fd], [], deadline - now)[1]:
                    self._cut_off(f"observers stalled for {self._stall_timeout:.0f}s; recording stopped, "
                                  "forwarding continues")
                    return
                continue
            deadline = None
            while views and n >= len(views[0]):
                n -= len(views.pop(0))
            if n:
                views[0] = views[0][n:]

    def _cut_off(self, message: str) -> None:
        if not self.dead:
            self.dead = True
            self._warn(message)
            try:
                os.close(self.fd)
            except OSError:
                pass

    def close(self) -> None:
        with self._lock:
            if not self.dead:
                self.dead = True
                os.close(self.fd)
        if self.tape is not None:
            self.tape.close()
            self.tape = None
