"""The observer hub: frames chunks off the forwarding path and feeds observers.

Relay threads hand each chunk over with :meth:`Hub.publish` *after* forwarding it.
One hub thread frames the chunks (LF only), numbers every event, and calls each
observer in turn. An observer that raises is dropped with one warning; the relay
never sees it. The queue is bounded in bytes: when observers fall behind, a relay
waits up to ``stall_timeout`` seconds (backpressure, so nothing is lost), then
drops the chunk and the recording gets a ``note`` saying how many bytes are missing.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable, Iterable
from typing import Protocol

from rpcspy.events import DIRECTIONS, Direction, Eof, Event, Frame, Note
from rpcspy.framing import LineFramer, split_cr

Emit = Callable[[Event], None]


class Observer(Protocol):
    """Something that watches a session: recorder, checker, renderer, control socket."""

    name: str

    def handle(self, event: Event, emit: Emit) -> None:
        """See one event; ``emit`` adds derived events (findings) after it."""

    def flush(self) -> None:
        """End of a batch: write out what is buffered."""

    def close(self) -> None:
        """End of session."""


class Hub:
    """Serialises events from the relay threads into one numbered stream."""

    def __init__(
        self,
        observers: Iterable[Observer],
        *,
        warn: Callable[[str], None],
        max_pending: int = 8 << 20,
        stall_timeout: float = 5.0,
    ) -> None:
        self.observers: list[Observer] = list(observers)
        self._warn = warn
        self._max_pending = max_pending
        self._stall_timeout = stall_timeout
        self._queue: deque[tuple] = deque()
        self._pending = 0
        self._cond = threading.Condition()
        self._closed = False
        self._framers = {d: LineFramer() for d in DIRECTIONS}
        self._seq = 0
        self._dropped: dict[str, int] = {}
        self.counts: dict[str, int] = {d: 0 for d in DIRECTIONS}
        self._thread = threading.Thread(target=self._run, name="rpcspy-hub", daemon=True)

    # --- called from relay threads -------------------------------------------------
    def publish(self, direction: Direction, t: float, chunk: bytes, injected: bool = False) -> None:
        """Hand over a chunk that has already been forwarded."""
        n = len(chunk)
        with self._cond:
            if self._pending + n > self._max_pending and self._pending:
                if not self._cond.wait_for(
                    lambda: self._pending + n <= self._max_pending or self._closed, self._stall_timeout
                ):
                    self._dropped[direction] = self._dropped.get(direction, 0) + n
                    self._queue.append(("drop", direction, t, n))
                    self._cond.notify()
                    return
            self._pending += n
            self._queue.append(("data", direction, t, chunk, injected))
            self._cond.notify()

    def publish_eof(self, direction: Direction, t: float) -> None:
        self._put(("eof", direction, t))

    def publish_event(self, event: Event) -> None:
        """Queue a ready-made event (start, exit, note); its seq is assigned here."""
        self._put(("event", event))

    def _put(self, item: tuple) -> None:
        with self._cond:
            self._queue.append(item)
            self._cond.notify()

    def add_observer(self, observer: Observer) -> None:
        """Attach an observer mid-session; it sees events from the next batch on."""
        with self._cond:
            self.observers.append(observer)

    # --- lifecycle -------------------------------------------------------------------
    def start(self) -> None:
        self._thread.start()

    def close(self, timeout: float | None = None) -> None:
        """Process everything queued, close observers, stop the thread."""
        with self._cond:
            self._closed = True
            self._cond.notify_all()
        self._thread.join(timeout)

    # --- hub thread ------------------------------------------------------------------
    def _run(self) -> None:
        while True:
            with self._cond:
                self._cond.wait_for(lambda: self._queue or self._closed)
                batch = list(self._queue)
                self._queue.clear()
                closing = self._closed and not batch
                freed = sum(len(item[3]) for item in batch if item[0] == "data")
            for item in batch:
                self._process(item)
            with self._cond:
                self._pending -= freed
                self._cond.notify_all()
            self._each("flush")
            if closing:
                break
        self._each("close")

    def _process(self, item: tuple) -> None:
        kind = item[0]
        if kind == "data":
            _, direction, t, chunk, injected = item
            self.counts[direction] += len(chunk)
            for line in self._framers[direction].feed(chunk):
                data, cr = split_cr(line)
                self._dispatch(Frame(self._next(), t, direction, data, True, cr, injected))
        elif kind == "eof":
            _, direction, t = item
            last = self._framers[direction].finish()
            if last is not None:
                data, cr = split_cr(last)
                self._dispatch(Frame(self._next(), t, direction, data, False, cr))
            self._dispatch(Eof(self._next(), t, direction))
        elif kind == "drop":
            _, direction, t, n = item
            self._dispatch(Note(self._next(), t, "warning",
                                f"observers fell behind; {n} bytes of {direction} were forwarded but not recorded",
                                dir=direction, dropped_bytes=n))
        else:
            event = item[1]
            event.seq = self._next()
            self._dispatch(event)

    def _next(self) -> int:
        self._seq += 1
        return self._seq

    def _dispatch(self, event: Event) -> None:
        derived: list[Event] = []
        for obs in list(self.observers):
            try:
                obs.handle(event, derived.append)
            except Exception as exc:  # an observer must never take the session down
                self._drop(obs, exc)
        for extra in derived:
            extra.seq = self._next()
            self._dispatch(extra)

    def _each(self, method: str) -> None:
        for obs in list(self.observers):
            try:
                getattr(obs, method)()
            except Exception as exc:
                self._drop(obs, exc)

    def _drop(self, obs: Observer, exc: BaseException) -> None:
        if obs in self.observers:
            self.observers.remove(obs)
            self._warn(f"observer {obs.name} failed and was turned off: {type(exc).__name__}: {exc}")

    @property
    def dropped(self) -> dict[str, int]:
        return dict(self._dropped)
