"""The control socket's backlog: the last events of the session, for a subscriber that asks for them.

It holds what the dispatcher handed over as it came, events one by one and a chunk's frames as the
chunk itself (:class:`Chunk`: no object per frame), dropping the oldest while what is left still
holds every event that could be in a backlog; :meth:`Backlog.last` cuts the exact one out (the last
:data:`BACKLOG_EVENTS` events that fit in :data:`BACKLOG_BYTES`, a frame counting its bytes and 64,
any other event 128). Not thread-safe: the control server holds its lock.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

from rpcspy.events import Direction, Event, Frame, frames_of

BACKLOG_EVENTS = 2000
BACKLOG_BYTES = 8 << 20


@dataclass(frozen=True, slots=True)
class Chunk:
    """The frames of one chunk, as the dispatcher hands them over (``handle_lines``)."""

    dir: Direction
    t: float
    first: int
    lines: list[bytes]
    injected: bool

    def events(self) -> list[Frame]:
        return frames_of(self.first, self.t, self.dir, self.lines, self.injected)


class Backlog:
    """The last events of a session, held as they came (see the module)."""

    def __init__(self) -> None:
        self._items: deque[tuple[Event | Chunk, int, int]] = deque()
        """Events and chunks, each with its count of events and its size."""
        self._events = self._bytes = 0

    def add_chunk(self, chunk: Chunk) -> None:
        lines = chunk.lines
        self._hold(chunk, len(lines), sum(map(len, lines)) + 64 * len(lines))

    def add_events(self, events: list[Event]) -> None:
        for event in events[-BACKLOG_EVENTS:]:  # only the last ones can stay
            self._hold(event, 1, len(event.data) + 64 if type(event) is Frame else 128)

    def _hold(self, item: Event | Chunk, events: int, size: int) -> None:
        """Keep ``item``, dropping the oldest items while what is left still holds the last
        BACKLOG_EVENTS events or BACKLOG_BYTES (no backlog could reach further back)."""
        items = self._items
        items.append((item, events, size))
        self._events += events
        self._bytes += size
        while len(items) > 1:
            _, n, b = items[0]
            if self._events - n < BACKLOG_EVENTS and self._bytes - b < BACKLOG_BYTES:
                break
            items.popleft()
            self._events -= n
            self._bytes -= b

    def last(self, n: int) -> list[Event]:
        """The last ``n`` events at most: as many of the last BACKLOG_EVENTS as fit in BACKLOG_BYTES."""
        out: list[Event] = []
        size = 0
        n = min(n, BACKLOG_EVENTS)
        for item, _, _ in reversed(self._items):
            events: list[Event] = item.events() if isinstance(item, Chunk) else [item]  # type: ignore[assignment]
            for event in reversed(events):
                size += len(event.data) + 64 if type(event) is Frame else 128
                if len(out) >= n or size > BACKLOG_BYTES:
                    return out[::-1]
                out.append(event)
        return out[::-1]
