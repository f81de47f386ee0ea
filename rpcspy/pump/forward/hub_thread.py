"""The in-process feeder of a :class:`~rpcspy.pump.forward.hub.Dispatcher`: a thread of the proxy's own process.

Used where observers run beside the relays (``rpcspy repl``, ``rpcspy drive``: :mod:`rpcspy.pump.inprocess`);
``rpcspy run`` feeds its dispatcher in the observer process instead (:mod:`rpcspy.pump.forward.observer_process`).
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable, Iterable

from rpcspy.backpressure import POLL, STALL_AFTER, Backpressure, Verdict, gap_reason, gap_warning
from rpcspy.events import Direction, Event
from rpcspy.pump.forward.hub import Dispatcher, Observer


class Hub:
    """A :class:`Sink` that feeds a :class:`Dispatcher` in a thread of this process.

    The queue is bounded in bytes. At the bound a relay waits for as long as the thread
    keeps taking chunks (:class:`Backpressure`, its progress being the bytes taken), so a
    slow observer slows the agent down instead of losing output; once it has taken nothing
    for ``stall_after`` seconds, a chunk that does not fit is dropped at once (until it
    moves again), and the recording gets a ``note`` saying how many bytes of which
    direction are missing and after which frame (a gap, as in the observer process).
    """

    def __init__(self, observers: Iterable[Observer], *, warn: Callable[[str], None],
                 max_pending: int = 8 << 20, stall_after: float = STALL_AFTER,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.dispatcher = Dispatcher(observers, warn=warn)
        self._warn = warn
        self._max_pending = max_pending
        self._queue: deque[tuple | list] = deque()
        self._pending = 0
        self.consumed = 0
        """Bytes of chunks the thread has handed to the observers: their progress."""
        lock = threading.Lock()
        self._cond = threading.Condition(lock)
        """Work for the thread."""
        self._room = threading.Condition(lock)
        """Room in the queue, or progress, for a relay waiting at the bound."""
        self._gate = Backpressure(stall_after)
        self._clock = clock
        self._reason = gap_reason("their queue was full", stall_after)
        self._closed = False
        self._told = False
        self._dropped: dict[str, int] = {}
        self._thread = threading.Thread(target=self._run, name="rpcspy-hub", daemon=True)

    @property
    def observers(self) -> list[Observer]:
        return self.dispatcher.observers

    def publish(self, direction: Direction, t: float, chunk: bytes, injected: bool = False) -> None:
        """Hand over a chunk; at the bound, wait while the observers progress, else note a gap."""
        n = len(chunk)
        with self._cond:
            while self._pending + n > self._max_pending and self._pending:
                if self._gate.decide(position=self.consumed, now=self._clock()) is Verdict.WAIT:
                    self._room.wait(POLL)
                    continue
                self._dropped[direction] = self._dropped.get(direction, 0) + n  # the same gap while it lasts
                last = self._queue[-1] if self._queue else None
                if isinstance(last, list) and last[1] == direction:
                    last[3] += n
                else:
                    self._queue.append(["drop", direction, t, n, self._reason])
                    self._cond.notify()
                return
            self._pending += n
            self._queue.append(("data", direction, t, chunk, injected))
            self._cond.notify()

    def publish_eof(self, direction: Direction, t: float) -> None:
        self._put(("eof", direction, t))

    def publish_event(self, event: Event) -> None:
        """Queue a ready-made event (start, exit, note); its seq is assigned by the dispatcher."""
        self._put(("event", event))

    def add_observer(self, observer: Observer) -> None:
        """Attach an observer mid-session."""
        self._put(("observer", observer))

    def _put(self, item: tuple | list) -> None:
        with self._cond:
            self._queue.append(item)
            self._cond.notify()

    def start(self) -> None:
        self._thread.start()

    def close(self, timeout: float | None = None) -> None:
        """Process everything queued, close observers, stop the thread."""
        with self._cond:
            self._closed = True
            self._cond.notify_all()
        self._thread.join(timeout)

    def _run(self) -> None:
        d = self.dispatcher
        while True:
            with self._cond:
                if not d.behind:  # else the lagging observers get time when nothing is queued
                    self._cond.wait_for(lambda: self._queue or self._closed)
                batch = list(self._queue)
                self._queue.clear()
                closing = self._closed and not batch
            if not batch and not closing:
                d.work()
            for item in batch:
                kind = item[0]
                if kind == "data":
                    d.data(*item[1:])
                    self._took(len(item[3]))
                elif kind == "eof":
                    d.eof(*item[1:])
                elif kind == "drop":
                    if not self._told:  # said here, in the hub's thread like its other warnings
                        self._told = True
                        self._warn(gap_warning(item[4]))
                    d.dropped(*item[1:])
                elif kind == "observer":
                    d.add_observer(item[1])
                else:
                    d.event(item[1])
            d.flush()
            if closing:
                break
        d.close()

    def _took(self, n: int) -> None:
        """The observers took a chunk of ``n`` bytes: room, and progress, for a waiting relay."""
        with self._cond:
            self._pending -= n
            self.consumed += n
            self._room.notify_all()

    @property
    def dropped(self) -> dict[str, int]:
        return dict(self._dropped)
