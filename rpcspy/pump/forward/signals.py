"""Forwarding the terminal's signals to an agent that runs in its own process group."""

from __future__ import annotations

import signal
import threading
from collections.abc import Callable

from rpcspy.pump.forward.spawn import signal_group

FORWARDED_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
KILL_AFTER = 3
"""The third signal in a row is SIGKILL: a stuck agent must not trap the user."""


class SignalForwarder:
    """While entered (``with``), SIGINT, SIGTERM and SIGHUP go to the process group led by ``pid``.

    Handlers are installed only on the main thread (Python allows no other); elsewhere
    entering does nothing. ``on_forward(signum)`` is called from the handler with the
    signal actually sent, before it is sent.
    """

    def __init__(self, pid: int, on_forward: Callable[[int], None] | None = None) -> None:
        self.pid = pid
        self.on_forward = on_forward
        self.seen = 0
        self._previous: dict[int, object] = {}

    def __enter__(self) -> SignalForwarder:
        if threading.current_thread() is threading.main_thread():
            for signum in FORWARDED_SIGNALS:
                self._previous[signum] = signal.signal(signum, self.forward)
        return self

    def __exit__(self, *exc: object) -> None:
        for signum, handler in self._previous.items():
            signal.signal(signum, handler)  # type: ignore[arg-type]
        self._previous.clear()

    def forward(self, signum: int, _frame: object = None) -> None:
        self.seen += 1
        target = signal.SIGKILL if self.seen >= KILL_AFTER else signum
        if self.on_forward is not None:
            self.on_forward(target)
        signal_group(self.pid, target)
