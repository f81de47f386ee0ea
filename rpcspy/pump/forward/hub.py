"""Feeding observers: frame chunks off the forwarding path, number events, isolate failures.

:class:`Dispatcher` does the work in one thread: it frames chunks (LF only, a whole
chunk per call), numbers every event, and hands the events to each observer; an
observer that raises is dropped with one warning. Observers that may emit derived
events (the checker's findings) see one event at a time, so a finding is numbered
right after its frame; the others (recorder, control socket) get the numbered events
of a whole chunk in one ``handle_batch`` call. Two feeders sit in front of it:

* :class:`~rpcspy.pump.forward.hub_thread.Hub`: a thread in the proxy's own process, with a queue
  bounded in bytes; at the bound a relay waits while the thread makes progress and
  records a gap once it stalls (:mod:`rpcspy.backpressure`; used by the REPL and drive);
* the observer process (``observer_process.py``), the proxy's default, so observers
  never share a GIL with the relays and survive a crash of the proxy.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from typing import Protocol, runtime_checkable

from rpcspy.events import DIRECTIONS, Direction, Eof, Event, Exit, Frame, Note, frames_of
from rpcspy.framing import LineFramer, split_cr

Emit = Callable[[Event], None]
BATCH_FRAMES = 4096
"""At most this many frames per batch: a huge chunk of small lines is handed over in parts."""


class Observer(Protocol):
    """Something that watches a session: recorder, checker, renderer, control socket.

    One that never emits may also have ``handle_batch(events)`` (:class:`Batched`): the
    dispatcher then hands it the events of a whole chunk at once, numbered and in order,
    instead of calling :meth:`handle` per event.
    """

    name: str

    def handle(self, event: Event, emit: Emit) -> None:
        """See one event; ``emit`` adds derived events (findings) after it."""

    def flush(self) -> None:
        """End of a batch: write out what is buffered."""

    def close(self) -> None:
        """End of session."""


@runtime_checkable
class Batched(Protocol):
    """An observer that never emits and takes consecutive numbered events in batches.

    ``handle_batch(events)`` means exactly ``handle(event, emit)`` for each event in turn."""

    def handle_batch(self, events: list[Event]) -> None: ...


@runtime_checkable
class Lines(Protocol):
    """A :class:`Batched` observer that also takes the frames of a chunk as their lines (the recorder,
    the live check): no :class:`Frame` is built for it.

    ``handle_lines(direction, t, first, lines, injected)`` means ``handle_batch(frames_of(first, t,
    direction, lines, injected))`` (:func:`rpcspy.events.frames_of`): each line is a frame's bytes as
    read, without its LF; one ending in CR is a CR LF frame. Other events still come by ``handle_batch``."""

    def handle_batch(self, events: list[Event]) -> None: ...
    def handle_lines(self, direction: Direction, t: float, first: int, lines: list[bytes], injected: bool) -> None: ...


@runtime_checkable
class Lagging(Protocol):
    """A :class:`Lines` observer that works at its own pace (the live check): it only queues what it
    is handed, and derives its events (findings) when the dispatcher gives it time (:meth:`work`),
    never holding the others back. Its events are numbered when they come, after the frames they are
    about. It bounds its own backlog (past the bound it gives up and says so, through :meth:`work`)."""

    def handle_batch(self, events: list[Event]) -> None: ...
    def handle_lines(self, direction: Direction, t: float, first: int, lines: list[bytes], injected: bool) -> None: ...

    @property
    def behind(self) -> int:
        """Frames queued and not yet worked through (0: caught up)."""

    def work(self, emit: Emit, budget: int) -> None:
        """Work through about ``budget`` queued frames (and what came with them); ``emit`` what it derives."""

    def stop(self, emit: Emit) -> None:
        """End of session, caught up or not: ``emit`` the last of what it derives (a note if it is behind)."""


LAG_BUDGET = 512
"""Frames a lagging observer works through per :meth:`Dispatcher.work` call: a few ms of the check, so
a chunk that comes meanwhile waits no longer for the recorder."""
LAG_GRACE = 0.5
"""Seconds lagging observers get at the end of the session to catch up (:meth:`Dispatcher.close`): part
of the exit's 2 s, on top of what the recorder still has to write then (`rpcspy check` covers the rest)."""


@runtime_checkable
class Ticking(Protocol):
    """An observer that also reports when time passes with no traffic (overdue answers)."""

    def tick(self, t: float, emit: Emit) -> None: ...


class Sink(Protocol):
    """Where relays hand over what they forwarded (a copy: the relays forward their own)."""

    def publish(self, direction: Direction, t: float, chunk: bytes, injected: bool = False) -> None: ...
    def publish_eof(self, direction: Direction, t: float) -> None: ...
    def publish_event(self, event: Event) -> None: ...


class Dispatcher:
    """Single-threaded: turns chunks and events into numbered events for observers."""

    def __init__(self, observers: Iterable[Observer], *, warn: Callable[[str], None],
                 grace: float = LAG_GRACE) -> None:
        """``grace``: seconds lagging observers get to catch up when the agent exits and at the end."""
        self.observers: list[Observer] = []
        self.grace = grace
        self._t = 0.0
        """The latest time handed on: what lagging observers derive is recorded no earlier (``t`` never goes back)."""
        self._emitters: tuple[Observer, ...] = ()
        """Observers called per event (they may emit); the others take batches."""
        self._batched: tuple[Batched, ...] = ()
        """Observers that take batches of events, frames included."""
        self._lines: tuple[Lines, ...] = ()
        """Observers that take frames as lines (and other events in batches)."""
        self._lagging: tuple[Lagging, ...] = ()
        self._warn = warn
        self._framers = {d: LineFramer() for d in DIRECTIONS}
        self._seq = 0
        self.counts: dict[str, int] = {d: 0 for d in DIRECTIONS}
        self.frames: dict[str, int] = {d: 0 for d in DIRECTIONS}
        self.last_frame: dict[str, int] = {d: 0 for d in DIRECTIONS}
        """The seq of the last (complete) frame of each direction: where a gap begins."""
        for obs in observers:
            self.add_observer(obs)

    def data(self, direction: Direction, t: float, chunk: bytes, injected: bool = False) -> None:
        self.counts[direction] += len(chunk)
        if t > self._t:
            self._t = t
        lines = self._framers[direction].feed(chunk)
        if not lines:
            return
        self.frames[direction] += len(lines)
        # only a chunk with a CR can end a line in CR, except the first line, whose CR may have
        # ended the previous chunk (a search for CR alone is memchr: CR LF costs 100x more)
        crs = b"\r" in chunk or lines[0].endswith(b"\r")
        for i in range(0, len(lines), BATCH_FRAMES):
            part = lines[i:i + BATCH_FRAMES] if len(lines) > BATCH_FRAMES else lines
            self._frames(direction, t, part, crs, injected)

    def _frames(self, direction: Direction, t: float, lines: list[bytes], crs: bool, injected: bool) -> None:
        """Number ``lines`` as frames, show them to the emitters one by one, then to the rest at once."""
        events: list[Event]
        if not self._emitters:  # nothing can come between two frames: numbered in one go
            first = self._seq + 1
            self._seq += len(lines)
            self.last_frame[direction] = self._seq
            for taker in self._lines:
                try:
                    taker.handle_lines(direction, t, first, lines, injected)
                except Exception as exc:
                    self._drop(taker, exc)  # type: ignore[arg-type]
            if not self._batched:
                return
            if crs:
                events = frames_of(first, t, direction, lines, injected)  # type: ignore[assignment]
            else:
                events = [Frame(seq, t, direction, line, True, False, injected)
                          for seq, line in zip(range(first, self._seq + 1), lines, strict=True)]
            self._deliver(events, self._batched)
            return
        events = []
        append = events.append
        derived: list[Event] = []
        emit = derived.append
        seq = self._seq
        for line in lines:
            cr = crs and line.endswith(b"\r")
            self._seq = seq = self._seq + 1
            frame = Frame(seq, t, direction, line[:-1] if cr else line, True, cr, injected)
            append(frame)
            for obs in self._emitters:
                try:
                    obs.handle(frame, emit)
                except Exception as exc:  # an observer must never take the session down
                    self._drop(obs, exc)
            if derived:  # numbered after their frame, and shown to the emitters in turn
                extras = derived[:]
                derived.clear()
                for extra in extras:
                    extra.seq = self._next()
                    self._one(extra, events)
        self.last_frame[direction] = seq
        self._deliver(events)

    def eof(self, direction: Direction, t: float) -> None:
        last = self._framers[direction].finish()
        if last is not None:
            data, cr = split_cr(last)
            self.frames[direction] += 1
            self.dispatch(Frame(self._next(), t, direction, data, False, cr))
        self.dispatch(Eof(self._next(), t, direction))

    def dropped(self, direction: Direction, t: float, n: int, reason: str = "observers fell behind",
                events: int = 0) -> None:
        """``n`` bytes of ``direction`` were forwarded but never reached the observers: record a gap."""
        if n:  # the line pending before the gap is cut off by it: its bytes are part of the gap
            cut = self._framers[direction].finish()
            n += len(cut) if cut is not None else 0
        after = self.last_frame[direction]
        where = f"after frame {after}" if after else "before its first frame"
        what = f"{n} bytes of {direction} ({where}) were forwarded but not recorded" if n else ""
        if events:
            what += (", and " if what else "") + f"{events} event(s) were not recorded"
        self.dispatch(Note(self._next(), t, "warning", f"{reason}: {what}", dir=direction if n else None,
                           dropped_bytes=n))

    def event(self, event: Event) -> None:
        if event.t > self._t:
            self._t = event.t
        if type(event) is Exit and self._lagging:  # the agent is gone: nothing to hold back any more
            self._catch_up(self.grace)  # so the findings about its frames come before its exit entry
        event.seq = self._next()
        self.dispatch(event)

    def _next(self) -> int:
        self._seq += 1
        return self._seq

    def dispatch(self, event: Event) -> None:
        """Hand one numbered event (and what the observers derive from it) to every observer."""
        events: list[Event] = []
        self._one(event, events)
        self._deliver(events)

    def _one(self, event: Event, out: list[Event]) -> None:
        """Show ``event`` to the emitters; append it, and after it what they derived (numbered), to ``out``."""
        out.append(event)
        if not self._emitters:
            return
        derived: list[Event] = []
        for obs in self._emitters:
            try:
                obs.handle(event, derived.append)
            except Exception as exc:  # an observer must never take the session down
                self._drop(obs, exc)
        for extra in derived:
            extra.seq = self._next()
            self._one(extra, out)

    def _deliver(self, events: list[Event], to: tuple[Batched, ...] | None = None) -> None:
        """The events of one batch, in order, to the observers that take batches (``to``: only those)."""
        for obs in self._batched + self._lines if to is None else to:
            try:
                obs.handle_batch(events)
            except Exception as exc:
                self._drop(obs, exc)  # type: ignore[arg-type]

    def add_observer(self, observer: Observer) -> None:
        self.observers.append(observer)
        self._sort()

    def _sort(self) -> None:
        self._lines = tuple(o for o in self.observers if isinstance(o, Lines))
        self._lagging = tuple(o for o in self._lines if isinstance(o, Lagging))
        self._batched = tuple(o for o in self.observers if isinstance(o, Batched) and not isinstance(o, Lines))
        self._emitters = tuple(o for o in self.observers if not isinstance(o, Batched))

    # --- lagging observers (the live check) ----------------------------------------------
    @property
    def behind(self) -> int:
        """Frames the lagging observers have queued and not worked through yet (0: all caught up)."""
        return sum(obs.behind for obs in self._lagging) if self._lagging else 0

    def work(self, budget: int = LAG_BUDGET) -> None:
        """Give the lagging observers time (call when nothing else waits); number and hand on what they derive."""
        derived: list[Event] = []
        for obs in self._lagging:
            if obs.behind:
                try:
                    obs.work(derived.append, budget)
                except Exception as exc:
                    self._drop(obs, exc)  # type: ignore[arg-type]
        self._late(derived)

    def _late(self, derived: list[Event]) -> None:
        """Number and hand on what lagging observers derived, at the time it is recorded or later."""
        for extra in derived:
            if extra.t < self._t:
                extra.t = self._t
            self.event(extra)

    def _catch_up(self, grace: float) -> None:
        """The agent exited, or the session ends: the lagging observers get up to ``grace`` seconds, then
        stop where they are if still behind (a caught-up one goes on: the exit's findings are still to come)."""
        deadline = time.monotonic() + grace
        while self.behind and time.monotonic() < deadline:
            self.work()
        derived: list[Event] = []
        for obs in self._lagging:
            try:
                obs.stop(derived.append)
            except Exception as exc:
                self._drop(obs, exc)  # type: ignore[arg-type]
        self._late(derived)


    def tick(self, t: float) -> None:
        """Time passed with no traffic: observers with a ``tick(t, emit)`` may report (overdue answers)."""
        derived: list[Event] = []
        for obs in list(self.observers):
            if not isinstance(obs, Ticking):
                continue
            try:
                obs.tick(t, derived.append)
            except Exception as exc:
                self._drop(obs, exc)
        for extra in derived:
            self.event(extra)

    def flush(self) -> None:
        """End of a batch: every observer writes out what it buffered."""
        for obs in list(self.observers):
            try:
                obs.flush()
            except Exception as exc:
                self._drop(obs, exc)

    def close(self, grace: float | None = None) -> None:
        """End of the session, for every observer; lagging ones first get ``grace`` seconds (None: the
        dispatcher's) to catch up."""
        if self._lagging:
            self._catch_up(self.grace if grace is None else grace)
        for obs in list(self.observers):
            try:
                obs.close()
            except Exception as exc:
                self._drop(obs, exc)

    def _drop(self, obs: Observer, exc: BaseException) -> None:
        if obs in self.observers:
            self.observers.remove(obs)
            self._sort()
            self._warn(f"observer {obs.name} failed and was turned off: {type(exc).__name__}: {exc}")
