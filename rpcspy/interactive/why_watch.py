"""The outstanding list of a live session, shown when it goes quiet (``rpcspy watch``, the REPL's ``/why``)."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from typing import Any

from rpcspy.diagnose.explain import explain
from rpcspy.diagnose.items import Diagnosis
from rpcspy.diagnose.tracker import Tracker

QUIET_SECONDS = 3.0
"""How long a session must be quiet before watch shows what it waits on."""


class WhyWatch:
    """Feeds a :class:`Tracker` with a session's events and says when its outstanding list is worth showing:
    once the session has been quiet for ``quiet`` seconds, and only when the list changed since last shown."""

    def __init__(self, quiet: float = QUIET_SECONDS, clock: Callable[[], float] = time.monotonic) -> None:
        self.tracker = Tracker()
        self.quiet = quiet
        self._clock = clock
        self._last = clock()
        self._fresh = False
        self._shown: tuple = ()

    def feed(self, events: Iterable[Any]) -> None:
        fed = False
        for event in events:
            self.tracker.observe(event)
            fed = True
        if fed:
            self._last = self._clock()
            self._fresh = True

    def now(self) -> Diagnosis:
        """The diagnosis at this moment (time goes on while nothing arrives)."""
        return explain(self.tracker, self.tracker.t + max(0.0, self._clock() - self._last))

    def due(self) -> Diagnosis | None:
        """The diagnosis to show now, or None (not quiet yet, nothing outstanding, or already shown)."""
        if not self._fresh or self._clock() - self._last < self.quiet:
            return None
        self._fresh = False
        d = self.now()
        key = tuple((i.kind, i.frames) for i in d.outstanding)
        if key == self._shown:
            return None
        self._shown = key
        return d if d.outstanding else None


def why_panel(d: Diagnosis) -> Any:
    """A rich panel of the diagnosis (outstanding items, pitfalls, who spoke last)."""
    from rich.panel import Panel
    from rich.text import Text

    from rpcspy.render.why import why_lines

    title = "waiting on" if d.outstanding else "nothing outstanding"
    return Panel(Text("\n".join(why_lines(d)[1:]) or "nothing outstanding"), title=f"why: {title}",
                 title_align="left", border_style="yellow" if d.outstanding else "dim")
