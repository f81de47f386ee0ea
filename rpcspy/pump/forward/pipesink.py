"""The proxy's end of the observer pipe: what relays forwarded, as wire messages.

Every write is non-blocking: when the pipe is full (the observers are behind, or
stopped), what does not fit is held, in order:
events and ends of stream up to :data:`HELD_MAX` of them, data up to
:data:`HOLD_BYTES` (the chunks themselves, not copies), which rides out a moment's
delay. Past that, the publishing relay waits for room (so the agent or the client
that writes is slowed down) for as long as the observer process runs; only once
the observer process is stopped (SIGSTOP) or dead and the pipe has taken nothing for
:data:`rpcspy.backpressure.STALL_AFTER` seconds do data become a *gap* (a slow observer
is waited for; :mod:`rpcspy.backpressure`): a count of bytes forwarded but
not recorded, per direction, sent as one ``GAP`` message once the pipe has room
again (the recording gets a note saying what, how many bytes and after which
frame). Whatever waits is handed over as soon as the pipe has room, by a thread of the
sink's own (:meth:`PipeSink._hand_over`), not only at the next publish: the relays go
idle after their last chunk, and a frame left waiting then would never reach the
observers. Every write here is a copy into a pipe that only rpcspy's observer process reads;
the client and the agent get their own copies from the relays.
"""

from __future__ import annotations

import builtins
import os
import select
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

from rpcspy.backpressure import POLL, STALL_AFTER, Backpressure, Verdict, gap_reason, gap_warning
from rpcspy.events import Direction, Event
from rpcspy.pump.forward import wire

Warn = Callable[[str], None]
HELD_MAX = 4096
"""Events (start, notes, exit, ends of stream) held while the pipe is full; later ones are counted, not kept."""
HAND_OVER_POLL = 0.1
"""While messages wait for room, how often the hand-over thread looks whether the sink was closed."""
HOLD_BYTES = 16 << 20
"""Forwarded chunks held in memory while the pipe is full, before the relays wait for room: at most this..."""
HOLD_FLOOR = 256 << 10
"""... and at least this: the bound follows the observers' rate (:class:`HoldBound`)."""
WORK_HORIZON = 0.5
"""Seconds of the observers' work the proxy holds for them (what may be left for them at the end, with
their pipe's 1 MiB and their own finishing: the whole should stay under 2 s)."""
RATE_WINDOW = 0.1
"""Seconds of waiting at the bound per sample of the observers' rate."""


@dataclass
class HoldBound:
    """How many bytes to hold for the observers: about ``horizon`` seconds of their rate, measured while a
    relay waits at the bound (then the pipe takes only what they read), clamped to ``[floor, ceiling]``.
    Pure: the caller gives bytes and seconds. Until measured, the ceiling (a burst is taken whole)."""

    floor: int
    ceiling: int
    horizon: float = WORK_HORIZON
    rate: float = 0.0

    @property
    def bound(self) -> int:
        if not self.rate:
            return self.ceiling
        return max(min(self.floor, self.ceiling), min(int(self.rate * self.horizon), self.ceiling))

    def sample(self, nbytes: int, seconds: float) -> None:
        """While waiting at the bound, the observers took ``nbytes`` in ``seconds``."""
        if seconds > 0:
            rate = nbytes / seconds
            self.rate = rate if not self.rate else (self.rate + rate) / 2


def fell_behind(stall_after: float) -> str:
    """Why the pipe's data became a gap, said in the recording and once on stderr."""
    return gap_reason("their pipe was full", stall_after)


@dataclass
class _Gap:
    """Bytes of one direction forwarded but not handed to the observers."""

    dir: Direction
    t: float
    reason: str
    bytes: int = 0
    events: int = 0
    """Events that could not be held either."""

    def message(self) -> list[builtins.bytes]:
        return wire.gap_message(self.dir, self.t, self.bytes, self.reason, self.events)


class PipeSink:
    """Proxy side: serialise what the relays forwarded into the observer pipe, waiting only while it drains."""

    def __init__(self, fd: int, *, warn: Warn, stall_after: float = STALL_AFTER,
                 clock: Callable[[], float] = time.monotonic, halted: Callable[[], bool] | None = None) -> None:
        self.fd = fd
        self._halted = halted or (lambda: True)
        """Whether the reader is stopped or dead (only then is a stall cut as a gap); None: any stall is."""
        self._warn = warn
        self._lock = threading.Lock()
        self._rest: list[memoryview] = []
        """The unwritten end of a message the pipe took only part of: it goes first."""
        self._held: deque[tuple[list[bytes], int] | _Gap] = deque()
        """Messages waiting for room (with their size in memory), and gaps, in order."""
        self._held_bytes = 0
        self._told = False
        self.dead = False
        self.gap_bytes = 0
        """Bytes forwarded but not recorded, over the session."""
        self.sent = 0
        """Bytes the pipe has taken: the observers' progress, as this end sees it."""
        self._gate = Backpressure(stall_after)
        self._fell_behind = fell_behind(stall_after)
        self._closed = self._told_late = False
        self._clock = clock
        self._waiting = threading.Event()
        """Set (under the lock) while messages wait for room: the hand-over thread writes them."""
        self._hand_over_thread: threading.Thread | None = None
        self.hold = HoldBound(floor=HOLD_FLOOR, ceiling=HOLD_BYTES)
        """The bound on what is held, from the observers' rate (so the end of a session waits about
        WORK_HORIZON seconds for them, not 16 MiB of their work)."""
        self._wait_bytes, self._wait_secs = 0, 0.0
        self._mark_sent = 0
        self._mark_at: float | None = None
        """When the pipe was last seen full, and how much it had taken then (None: not full)."""
        os.set_blocking(fd, False)

    def set_halted(self, halted: Callable[[], bool]) -> None:
        """How to tell that the reader is stopped or dead (only then is a stall cut as a gap)."""
        self._halted = halted

    @property
    def stalled(self) -> bool:
        """Something is waiting for room in the pipe: new data would only become a gap."""
        return bool(self._rest or self._held)

    def publish(self, direction: Direction, t: float, chunk: bytes, injected: bool = False) -> None:
        header = wire.header(wire.DATA, direction, t, len(chunk), wire.INJECTED if injected else 0)
        self._offer([header, chunk], direction, t, len(chunk))

    def publish_eof(self, direction: Direction, t: float) -> None:
        self._offer([wire.header(wire.EOF, direction, t, 0)], None, t, 0)

    def publish_event(self, event: Event) -> None:
        self._offer(wire.event_message(event), None, event.t, 0)

    def flush(self) -> bool:
        """Hand over what waits, as far as the pipe takes it now (never blocks); True when nothing waits."""
        if self.dead:
            return True
        with self._lock:
            try:
                return self._catch_up()
            except OSError as exc:
                self._cut_off(f"observer process gone ({exc.strerror or exc}); recording stopped, "
                              "forwarding continues")
                return True

    def _offer(self, pieces: list[bytes], direction: Direction | None, t: float, size: int) -> None:
        """Write one message now if the pipe has room, else hold it; past the bounds, wait for room
        while the pipe keeps taking bytes, and count it (data) or its loss (events) once it stalls."""
        if self.dead:
            if self._closed and size and direction != "c2a" and not self._told_late:  # a relay outlived the end
                self._told_late = True
                self._warn(f"{direction} output forwarded after the recording was closed is not in it")
            return
        in_memory = size
        with self._lock:
            self._measure()
            try:
                while True:
                    try:
                        if self._catch_up() and self._write(pieces):
                            return
                    except OSError as exc:
                        self._cut_off(f"observer process gone ({exc.strerror or exc}); recording stopped, "
                                      "forwarding continues")
                        return
                    if len(self._held) < HELD_MAX and (direction is None or
                                                       self._held_bytes + in_memory <= self.hold.bound):
                        self._held.append((pieces, in_memory))
                        self._held_bytes += in_memory
                        return
                    if self._gate.decide(position=self.sent, now=self._clock(),
                                         halted=self._halted()) is Verdict.CUT:
                        if direction is None:
                            self._add_gap("c2a", t, 0, self._fell_behind).events += 1
                        else:
                            self._add_gap(direction, t, size, self._fell_behind)
                        return
                    select.select([], [self.fd], [], POLL)  # the pipe is draining: the relay (and its writer) waits
                    self._measure()
            finally:
                if self._rest or self._held:
                    self._wake_hand_over()

    def _measure(self) -> None:
        """While something waits for room (the pipe is full), what the pipe takes is what the observers read:
        a sample of their rate every RATE_WINDOW seconds of that (the lock is held)."""
        now = time.monotonic()
        if not (self._rest or self._held):
            self._mark_at = None
            return
        if self._mark_at is not None:
            self._wait_bytes += self.sent - self._mark_sent
            self._wait_secs += now - self._mark_at
            if self._wait_secs >= RATE_WINDOW:
                self.hold.sample(self._wait_bytes, self._wait_secs)
                self._wait_bytes, self._wait_secs = 0, 0.0
        self._mark_sent, self._mark_at = self.sent, now

    def _wake_hand_over(self) -> None:
        """Something waits for room (the lock is held): make sure the hand-over thread runs."""
        self._waiting.set()
        if self._hand_over_thread is None:
            self._hand_over_thread = threading.Thread(target=self._hand_over, name="rpcspy-pipe-hand-over",
                                                      daemon=True)
            self._hand_over_thread.start()

    def _hand_over(self) -> None:
        """Thread: write what waits as the pipe makes room, until nothing does; then sleep until
        something waits again. Ends once the sink is closed or cut off."""
        poll = select.poll()
        poll.register(self.fd, select.POLLOUT)
        while True:
            self._waiting.wait()
            try:
                poll.poll(HAND_OVER_POLL * 1000)
            except OSError:
                pass
            with self._lock:
                if self.dead:
                    return
                self._measure()
                try:
                    if self._catch_up():
                        self._waiting.clear()  # under the lock: a publisher that holds sets it again
                except OSError as exc:
                    self._cut_off(f"observer process gone ({exc.strerror or exc}); recording stopped, "
                                  "forwarding continues")
                    return

    def _add_gap(self, direction: Direction, t: float, size: int, reason: str) -> _Gap:
        last = self._held[-1] if self._held else None
        if not (isinstance(last, _Gap) and last.dir == direction and last.reason == reason):
            last = _Gap(direction, t, reason)
            self._held.append(last)
        last.bytes += size
        self.gap_bytes += size
        if not self._told and size:
            self._told = True
            self._warn(gap_warning(reason))
        return last

    def _catch_up(self) -> bool:
        """Write what is waiting, in order, as far as the pipe takes it; True when nothing is left."""
        if self._rest and not (self._write(self._rest) and not self._rest):
            return False
        while self._held:
            item = self._held[0]
            pieces, in_memory = (item.message(), 0) if isinstance(item, _Gap) else item
            if not self._write(pieces):
                return False
            self._held.popleft()
            self._held_bytes -= in_memory
            if self._rest:  # the pipe took part of it: the rest goes before anything else
                return False
        return True

    def _write(self, pieces: list[bytes] | list[memoryview]) -> bool:
        """Write as much of one message as the pipe takes now; False if it took none. What it did not
        take waits in ``_rest`` (empty when it took it all) and goes before anything else."""
        try:
            n = os.writev(self.fd, pieces)
        except BlockingIOError:
            return False
        self.sent += n
        self._rest = _after([memoryview(p) for p in pieces if p], n) if n < sum(map(len, pieces)) else []
        return True

    def _cut_off(self, message: str) -> None:
        if not self.dead:
            self.dead = True
            self._waiting.set()  # the hand-over thread ends
            self._warn(message)
            try:
                os.close(self.fd)
            except OSError:
                pass

    def close(self, timeout: float = 60.0, halted_grace: float = 1.0) -> bool:
        """End of session: hand over what waits while the reader takes it, then close; False if some of it
        was not handed over (or the reader went away before). Gives up once the reader has taken nothing for
        ``timeout`` seconds, or is halted (stopped, dead) for ``halted_grace``."""
        with self._lock:
            complete = not self.dead
            if not self.dead:
                try:
                    self._hand_over_rest(timeout, halted_grace)
                except OSError:
                    complete = False
                complete = complete and not self.stalled
                self.dead = True
                self._waiting.set()  # the hand-over thread ends
                os.close(self.fd)
            self._closed = True
        return complete

    def _hand_over_rest(self, timeout: float, halted_grace: float) -> None:
        mark, since = self.sent, time.monotonic()
        halted_since: float | None = None
        while not self._catch_up():
            select.select([], [self.fd], [], POLL * 10)
            now = time.monotonic()
            if self.sent != mark:
                mark, since = self.sent, now
            if self._halted():
                halted_since = now if halted_since is None else halted_since
                if now - halted_since >= halted_grace:
                    return
            else:
                halted_since = None
            if now - since >= timeout:
                return


def _after(views: list[memoryview], n: int) -> list[memoryview]:
    """What is left of ``views`` once ``n`` bytes of them are written."""
    rest = list(views)
    while rest and n >= len(rest[0]):
        n -= len(rest.pop(0))
    if rest and n:
        rest[0] = rest[0][n:]
    return rest
