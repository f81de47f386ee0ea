"""The observers' side of the tape: their read position, and their manners during bursts.

Whether to stand back is decided by :class:`BurstGauge`, a pure function of the
tape sizes it is shown and the times it is told: no clock of its own, so tests
decide it exactly. :class:`TapeReader` gives it the real clock (or an injected one).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from rpcspy.backpressure import WorkBound
from rpcspy.pump import tape as tape_module
from rpcspy.pump.tape import BACKLOG_BOUND, Tape

BURST_RATE = 50e6
"""Bytes per second of agent output above which observers wait for the burst to pass..."""
BURST_BACKLOG = BACKLOG_BOUND // 2
"""... unless they are this far behind (half the tape's bound, which :class:`TapeReader` keeps it at):
then they work through it alongside, well before the relay waits at the bound."""
BURST_PAUSE = 0.01
"""The window the rate is measured over, and how long the observers wait at a time."""


@dataclass
class BurstGauge:
    """Measures the tape's growth over windows of ``window`` seconds; pure (no clock, no I/O)."""

    rate: float = BURST_RATE
    backlog: int = BURST_BACKLOG
    window: float = BURST_PAUSE
    seen_size: int = 0
    seen_at: float = 0.0
    hot: bool = False

    def stand_back(self, size: int, now: float, offset: int) -> bool:
        """The tape holds ``size`` bytes at time ``now`` and the observers are at ``offset``:
        should they wait? Yes while the last full window grew at ``rate`` or faster, unless
        they are ``backlog`` behind (or less than a window's worth behind: nothing to gain)."""
        if now - self.seen_at >= self.window:
            self.hot = (size - self.seen_size) / (now - self.seen_at) >= self.rate
            self.seen_size, self.seen_at = size, now
        return self.hot and self.backlog > size - offset > self.rate * self.window


class TapeReader:
    """The observers' read position on the tape; they stand back while a burst pours in, and
    measure their own rate, which sets the tape's bound (:class:`WorkBound`).

    On a small machine every cycle the observers spend during a burst is taken from
    the relay, the agent and the client, whatever their priority; a real agent's
    output never comes near BURST_RATE. Busy time is the time from the end of one take to the
    start of the next while more was already on the tape: the work on the chunk taken (and on
    anything else that came in between), never a wait for input or a stand-back.
    """

    def __init__(self, tape: Tape | None, *, clock: Callable[[], float] = time.monotonic,
                 sleep: Callable[[float], None] = time.sleep, gauge: BurstGauge | None = None,
                 bounds: WorkBound | None = None) -> None:
        self.tape = tape
        self.offset = 0
        self._clock, self._sleep = clock, sleep
        start = tape.bound if tape is not None else BACKLOG_BOUND
        self.bounds = bounds or WorkBound(floor=tape_module.BOUND_FLOOR, ceiling=tape_module.BACKLOG_BOUND,
                                          bound=start)
        self.gauge = gauge or BurstGauge(seen_at=clock(), backlog=start // 2)
        self._busy_since: float | None = None
        """When the last take ended with more on the tape (None: it did not)."""
        self._last = 0

    def take(self, length: int) -> bytes:
        tape = self.tape
        assert tape is not None, "TAPE_DATA without a tape"
        if self._busy_since is not None:
            self._worked(self._last, self._clock() - self._busy_since)
        while self.gauge.stand_back(tape.size(), self._clock(), self.offset):
            self._sleep(self.gauge.window)
        data = tape.read(self.offset, length)
        self.offset += length
        tape.release(self.offset)
        self._last = length
        self._busy_since = self._clock() if tape.size() > self.offset else None
        return data

    def _worked(self, nbytes: int, seconds: float) -> None:
        """Tell the bound's policy; publish a new bound to the relay (and stand back only below half of it)."""
        assert self.tape is not None
        before = self.bounds.bound
        bound = self.bounds.worked(nbytes, seconds)
        if bound != before:
            self.tape.bound = bound
            self.gauge.backlog = bound // 2

    def skip(self, length: int) -> None:
        """The next ``length`` bytes of the tape will not be read (a gap): pass them by."""
        self._busy_since = None
        if length and self.tape is not None:
            self.offset += length
            self.tape.release(self.offset)
