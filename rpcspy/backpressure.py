"""When the observers are at a bound: make the writer wait, or cut a gap (pure: no clock, no I/O).

The proxy holds what its observers have not taken yet up to a bound (the observer
pipe's held bytes, or the in-process hub's queue). At the bound it has two choices: stop reading the agent's
(or the client's) pipe until the observers take some, which slows the writer down
(backpressure), or forward without recording and note a gap. A recording with holes
is the worse outcome while the observers are working, so :class:`Backpressure`
says *wait* for as long as they are not halted, and *cut* only once they are halted
(stopped by SIGSTOP, or dead: the pump tells it, from the process's state) and have made
no progress for :data:`STALL_AFTER` seconds. An observer that merely works slowly is never
cut; one that runs but makes no progress at all for :data:`STUCK_AFTER` seconds (a bug: a
deadlock) is, so the agent is never held for good. Progress is any change of the position
the pump shows it (bytes the pipe took). Once they move again it says *wait* again, so a
stopped and resumed observer costs one gap, not the rest of the session.

The pump shows it the position, the time and whether the observers are halted; it never
reads a clock or sleeps itself, so tests decide it exactly.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

STALL_AFTER = 2.0
"""Seconds without any progress of the observers, at a bound, after which the proxy stops
waiting for them and records a gap instead (then forwards at full speed until they move)."""
STUCK_AFTER = 60.0
"""Seconds without any progress after which observers that are not halted are cut anyway (never a slow one:
a slow one progresses)."""
POLL = 0.01
"""While waiting at a bound, the pump looks at the observers' position again this often."""


class Verdict(enum.Enum):
    WAIT = "wait"
    """At a bound and the observers are progressing (or only just stopped): wait for them."""
    CUT = "cut"
    """At a bound and the observers are stopped or dead (or stuck): forward without recording (a gap)."""


@dataclass
class Backpressure:
    """Wait while the observers run; cut a gap once they are halted and made no progress for ``stall_after``
    seconds (or made none for :data:`STUCK_AFTER` seconds while running)."""

    stall_after: float = STALL_AFTER
    mark: int | None = None
    """The observers' position when last seen (None: never asked)."""
    since: float = 0.0
    """When that position was first seen."""

    def decide(self, *, position: int, now: float, halted: bool = True) -> Verdict:
        """The bound is reached and the observers are at ``position`` at time ``now``: wait or cut?

        ``halted``: they are stopped or dead (a pump that cannot tell passes True: then any stall of
        ``stall_after`` cuts). Room at the bound comes only from the observers' progress, which moves
        ``position``, so a new stay at the bound needs no reset: a moved position restarts the stall time."""
        if position != self.mark:
            self.mark, self.since = position, now
            return Verdict.WAIT if self.stall_after > 0 else Verdict.CUT
        patience = self.stall_after if halted or self.stall_after <= 0 else max(self.stall_after, STUCK_AFTER)
        return Verdict.CUT if now - self.since >= patience else Verdict.WAIT


def gap_reason(bound: str, stall_after: float) -> str:
    """Why data became a gap at ``bound`` (e.g. "their pipe was full"), said in the recording and once."""
    waited = f" and took nothing for {stall_after:g} s" if stall_after > 0 else ""
    return f"the observers stalled ({bound}{waited})"


def gap_warning(reason: str) -> str:
    """The one line on stderr when the first gap is cut for ``reason``."""
    return f"{reason}; what they miss is left out of the recording, which says how much (forwarding goes on)"
