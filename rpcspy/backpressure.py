"""When the observers are at a bound: make the writer wait, or cut a gap (pure: no clock, no I/O).

The proxy holds what its observers have not taken yet up to a bound (the tape's, the
observer pipe's held bytes). At the bound it has two choices: stop reading the agent's
(or the client's) pipe until the observers take some, which slows the writer down
(backpressure), or forward without recording and note a gap. A recording with holes
is the worse outcome while the observers are working, so :class:`Backpressure`
says *wait* for as long as they keep making progress, and *cut* only once they
have made none for :data:`STALL_AFTER` seconds (stopped, killed, stuck on a full
terminal; observers known to be dead the pump does not ask about). Progress is any change of the position the pump shows
it (bytes the observers have read, bytes the pipe took). Once they move again it
says *wait* again, so a stopped and resumed observer costs one gap, not the rest of
the session.

The pump shows it the position and the time; it never reads a clock or sleeps itself,
so tests decide it exactly (like :class:`rpcspy.pump.tape_reader.BurstGauge`).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

STALL_AFTER = 2.0
"""Seconds without any progress of the observers, at a bound, after which the proxy stops
waiting for them and records a gap instead (then forwards at full speed until they move)."""
POLL = 0.01
"""While waiting at a bound, the pump looks at the observers' position again this often."""


class Verdict(enum.Enum):
    WAIT = "wait"
    """At a bound and the observers are progressing (or only just stopped): wait for them."""
    CUT = "cut"
    """At a bound and the observers stalled or are dead: forward without recording (a gap)."""


@dataclass
class Backpressure:
    """Wait while the observers progress; cut a gap once they have stalled for ``stall_after`` seconds."""

    stall_after: float = STALL_AFTER
    mark: int | None = None
    """The observers' position when last seen (None: never asked)."""
    since: float = 0.0
    """When that position was first seen."""

    def decide(self, *, position: int, now: float) -> Verdict:
        """The bound is reached and the observers are at ``position`` at time ``now``: wait or cut?

        Room at the bound comes only from the observers' progress, which moves ``position``,
        so a new stay at the bound needs no reset: a moved position restarts the stall time."""
        if position != self.mark:
            self.mark, self.since = position, now
            return Verdict.WAIT if self.stall_after > 0 else Verdict.CUT
        return Verdict.CUT if now - self.since >= self.stall_after else Verdict.WAIT


WORK_HORIZON = 1.0
"""Seconds of the observers' work the tape may hold for them: what is left at the client's EOF (under
the 2 s target with room for a rate that drops, e.g. when other work starts on the machine)."""
RATE_WINDOW = 0.1
"""Seconds of the observers' busy time per rate sample."""


@dataclass
class WorkBound:
    """How many bytes the observers may have queued: ``horizon`` seconds of their measured rate.

    The observers report the bytes they got through and the busy seconds it took (time they waited
    for input excluded); every ``window`` busy seconds make a sample, smoothed (half the last
    estimate, half the sample), and the bound is ``rate * horizon`` clamped to ``[floor, ceiling]``.
    Pure: no clock. A sample is never zero (it needs bytes), and the floor keeps the bound above
    a chunk, so a relay waiting at it is always let go by the observers' progress (or by
    :class:`Backpressure` once they stall)."""

    floor: int
    ceiling: int
    bound: int
    """The bound now: the start value until the first sample."""
    horizon: float = WORK_HORIZON
    window: float = RATE_WINDOW
    rate: float = 0.0
    """Bytes per busy second, smoothed (0: not measured yet)."""
    _bytes: int = 0
    _busy: float = 0.0

    def worked(self, nbytes: int, seconds: float) -> int:
        """The observers got through ``nbytes`` in ``seconds`` of busy time; the bound from now on."""
        self._bytes += nbytes
        self._busy += max(seconds, 0.0)
        if self._busy >= self.window and self._bytes:
            sample = self._bytes / self._busy
            self.rate = sample if not self.rate else (self.rate + sample) / 2
            self._bytes, self._busy = 0, 0.0
            self.bound = max(min(self.floor, self.ceiling), min(int(self.rate * self.horizon), self.ceiling))
        return self.bound


def gap_reason(bound: str, stall_after: float) -> str:
    """Why data became a gap at ``bound`` (e.g. "their pipe was full"), said in the recording and once."""
    waited = f" and took nothing for {stall_after:g} s" if stall_after > 0 else ""
    return f"the observers stalled ({bound}{waited})"


def gap_warning(reason: str) -> str:
    """The one line on stderr when the first gap is cut for ``reason``."""
    return f"{reason}; what they miss is left out of the recording, which says how much (forwarding goes on)"
