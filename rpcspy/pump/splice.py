"""Relays that let a third party into the conversation, at frame boundaries only.

:class:`ClientRelay` (client -> agent) writes injected lines between the client's
frames, never inside a partial line. :class:`AgentRelay` (agent -> client) keeps
responses to injected ids away from the client, which never asked for them.
Both keep the plain fast path until an injection happens.
"""

from __future__ import annotations

import array
import os
import select
import threading
import time
from collections import deque
from collections.abc import Callable
from typing import cast

from rpcspy.backpressure import POLL, STALL_AFTER, Backpressure, Verdict, gap_reason
from rpcspy.events import Note
from rpcspy.injection.divert import PASS, Diverter
from rpcspy.injection.gate import LineGate
from rpcspy.pump import wire
from rpcspy.pump.hub import TapeSink
from rpcspy.pump.relay import CHUNK, Relay
from rpcspy.pump.tape import CLIENT_GONE, SendRefused, Tape, pipe_holds

SMALL = 1 << 16
"""Agent output below this many bytes (waiting in the pipe) is copied, not put on the tape."""


def tape_full(stall_after: float) -> str:
    """Why the agent's output past the tape's bound became a gap."""
    return gap_reason("their tape was full", stall_after)



def _poll_for(*fds: int | None) -> select.poll:
    """A poll set waiting for input on ``fds`` (None left out), in that order."""
    poll = select.poll()
    for fd in fds:
        if fd is not None:
            poll.register(fd, select.POLLIN)
    return poll


class ClientRelay(Relay):
    """client stdin -> agent stdin, accepting injected lines from other threads (where they
    enter is the core's :class:`LineGate`'s decision)."""

    def __init__(self, *args, commands: int | None = None,
                 on_divert: Callable[[bytes], None] | None = None, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._commands = commands
        self._decoder = wire.WireDecoder()
        self._on_divert = on_divert
        self._pending: deque[bytes] = deque()
        self._lock = threading.Lock()
        self._wake_r, self._wake_w = os.pipe()
        os.set_blocking(self._wake_w, False)
        self._gate = LineGate()
        self.eof = False
        self._closed = False
        """Set at the client's EOF: :meth:`inject` refuses from then on (the agent's stdin closes next)."""
        self._poll: select.poll | None = None

    def inject(self, line: bytes) -> None:
        """Queue one complete line (ending in LF) for the agent; thread-safe."""
        if not line.endswith(b"\n") or b"\n" in line[:-1]:
            raise ValueError("an injected frame is exactly one line ending in LF")
        with self._lock:  # held while writing: the wake pipe is closed under it (a reused fd is never written)
            if self._closed:
                raise BrokenPipeError("the agent's stdin is closed")
            self._pending.append(line)
            try:
                os.write(self._wake_w, b"!")
            except BlockingIOError:
                pass  # already awake

    def _flush_injections(self) -> None:
        """Send the lines queued so far (those queued meanwhile wait for the next round: an
        injector that never pauses cannot keep the relay from the client's input)."""
        with self._lock:
            lines, self._pending = self._pending, deque()
        for line in lines:
            t = self.clock()
            self.hub.publish(self.direction, t, line, injected=True)
            if self.dst_open:
                self._forward(line)

    def _read(self) -> bytes:
        if self._poll is None:  # one poll set for the session: src, the wake pipe, the commands
            self._poll = _poll_for(self.src, self._wake_r, self._commands)
        src = self.src
        while True:
            if self._gate.at_boundary and self._pending:
                self._flush_injections()
            ready = self._poll.poll()
            if len(ready) != 1 or ready[0][0] != src:  # the usual case is the client's input alone
                fds = {fd for fd, _ in ready}
                if self._wake_r in fds:
                    os.read(self._wake_r, 4096)
                if self._commands is not None and self._commands in fds:
                    self._take_commands()
                if src not in fds:
                    continue
            try:
                return self._read_src()
            except BlockingIOError:
                continue
            except OSError as exc:
                self.read_error = exc
                return b""

    def _take_commands(self) -> None:
        """Requests from the observer process: inject a line, divert an id prefix."""
        data = os.read(self._commands, 1 << 16)  # type: ignore[arg-type]
        if not data:
            if self._poll is not None:
                self._poll.unregister(self._commands)  # type: ignore[arg-type]
            self._commands = None  # the observer process is gone
            return
        for msg in self._decoder.feed(data):
            if msg.kind == wire.INJECT:
                with self._lock:
                    self._pending.append(msg.payload)
            elif msg.kind == wire.DIVERT and self._on_divert is not None:
                self._on_divert(msg.payload)

    def _pass(self, chunk: bytes, t: float) -> None:
        k = self._gate.cut(chunk, bool(self._pending))
        if k is None:
            super()._pass(chunk, t)
            return
        if k:  # finish the client's line, let the injections in, go on
            super()._pass(chunk[:k] if k < len(chunk) else chunk, t)
        self._flush_injections()
        if k < len(chunk):
            super()._pass(chunk[k:], t)

    def _at_eof(self) -> None:
        with self._lock:  # inject refuses from here: what it accepted is all in _pending
            self.eof = self._closed = True
            dropped = 0 if self._gate.at_boundary else len(self._pending)
            if dropped:
                # The client ended inside a line: terminate nothing of theirs; the agent sees
                # their partial line end at EOF, so injections made now would merge with it.
                self._pending.clear()
        if dropped:
            self.hub.publish_event(Note(0, self.clock(), "warning", f"{dropped} injected frame(s) not "
                                        "sent: the client's input ended inside a line", dir="c2a"))
        self._flush_injections()
        super()._at_eof()
        with self._lock:
            os.close(self._wake_r)
            os.close(self._wake_w)


class AgentRelay(Relay):
    """agent stdout -> client stdout, diverting responses to injected ids (which lines is the
    core's :class:`Diverter`'s decision)."""

    stall_after = STALL_AFTER
    """At the tape's bound, how long observers that make no progress are waited for (then gaps)."""

    def __init__(self, *args, warn: Callable[[str], None] | None = None,
                 **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._warn = warn
        self._markers: tuple[bytes, ...] = ()
        """The id prefixes diverted: the tape path leaves once there is one."""
        self._lines = Diverter()
        self._wake_r, self._wake_w = os.pipe()
        os.set_blocking(self._wake_w, False)
        self.armed = threading.Event()
        """Set once the relay reads the agent's output itself, for good (:meth:`divert_ids`)."""
        self._arm_lock = threading.Lock()
        self._on_armed: list[Callable[[], None]] = []
        self._tape_last = False
        """The last bytes forwarded went around the diverter by the tape: before it is fed again (or
        left for the plain path) it is told whether they ended a line (:attr:`Tape.ends_line`)."""
        self._sendfile = True

    def divert_ids(self, prefix: bytes, on_armed: Callable[[], None] | None = None) -> None:
        """From the next line on, responses whose id is ``prefix`` and digits do not reach the client.

        Never waits (any thread; the client relay's included). The divert is *armed* once the relay
        reads the agent's output itself, for good (it left the tape path, where bytes pass around
        the diverter): only then may an injection whose answer must be kept from the client be
        sent. :attr:`armed` is set then, and ``on_armed`` is called (at once if it already is; else
        from the relay's thread). A relay writing to a client that is not reading arms late.
        """
        if prefix not in self._markers:
            self._markers = (*self._markers, prefix)  # first: a feed that holds bytes always ends the tape path
        self._lines.divert(prefix)
        with self._arm_lock:
            if not self.armed.is_set():
                if on_armed is not None:
                    self._on_armed.append(on_armed)
                on_armed = None
                try:
                    os.write(self._wake_w, b"!")  # the tape loop is the wake pipe's only reader
                except OSError:
                    pass  # already awake (or closed, at the end)
        if on_armed is not None:
            on_armed()

    def run(self) -> None:
        tape = self.hub.tape
        try:
            if tape is not None and self._by_tape(tape, cast(TapeSink, self.hub)):  # a sink with a tape is a TapeSink
                self._at_eof()
                return
        finally:
            self._tell_tape_end()
            self._arm()
        super().run()

    def _arm(self) -> None:
        """Off the tape path for good: every later byte passes the diverter."""
        with self._arm_lock:
            self.armed.set()
            told, self._on_armed = self._on_armed, []
        for tell in told:
            tell()

    def _tell_tape_end(self) -> None:
        """If the last bytes forwarded came by the tape, tell the diverter whether they ended a line:
        asked once per return from the tape (a small chunk after bulk output, or leaving for the plain
        path), rather than for every chunk forwarded. Before every feed, not only once a prefix is
        diverted: divert_ids may land between the loop's check and the next small chunk's feed.
        Not read back from the tape: once the client and the observers are past its end, it is released."""
        tape = self.hub.tape
        if self._tape_last and tape is not None:
            self._tape_last = False
            self._lines.went_around(tape.ends_line)

    def _by_tape(self, tape: Tape, sink: TapeSink) -> bool:
        """Bulk output goes agent pipe -> tape -> client inside the kernel; small chunks are copied.

        At the tape's bound the relay stops reading the agent's pipe (so the agent waits) for as
        long as the observers make progress (:class:`Backpressure`); only once they stall is output
        forwarded without the tape, as a gap. Returns True at EOF; False to continue on the plain
        path (an injection needs to look at the bytes, or the tape failed, e.g. a full disk).
        """
        src, wake, clock = self.src, self._wake_r, self.clock
        gate = Backpressure(self.stall_after)
        poll = _poll_for(src, wake)
        waiting = array.array("i", [0])  # FIONREAD's answer, filled in place
        while not self._markers:
            ready = poll.poll()
            if len(ready) > 1 or ready[0][0] == wake:  # the wake pipe: divert_ids was called
                os.read(wake, 64)
                continue
            if 0 < pipe_holds(src, waiting) < SMALL:
                self._copy_small()
                continue
            if sink.dead:  # nobody reads the tape any more
                return False
            if tape.over_bound:
                if gate.decide(position=tape.progress, now=time.monotonic()) is Verdict.WAIT:
                    select.select([self._wake_r], [], [], POLL)  # the agent waits; an injection wakes us
                    continue
                if not self._copy_untaped(sink):
                    return True
                continue
            start = tape.written
            try:
                n = tape.append_from(src, CHUNK)
            except OSError as exc:
                text = f"the tape failed ({exc.strerror or exc}); the agent's output goes through the pipe instead"
                sink.publish_event(Note(0, clock(), "warning", text, dir=self.direction))
                if self._warn is not None:
                    self._warn(text)
                return False
            if n == 0:
                return True
            self._tape_last = True
            self.bytes += n
            sink.publish_tape(self.direction, clock(), n)
            self._send(tape, start, n)
        return False

    def _copy_untaped(self, sink: TapeSink) -> bool:
        """The observers are the tape's bound behind and stalled: forward a chunk without the tape (which
        would only grow) and record a gap. False at EOF."""
        chunk = os.read(self.src, CHUNK)
        if not chunk:
            return False
        t = self.clock()
        self.bytes += len(chunk)
        self._tape_last = False
        self._lines.went_around(chunk.endswith(b"\n"))
        sink.publish_gap(self.direction, t, len(chunk), tape_full(self.stall_after))
        if self.dst_open:
            self._forward(chunk)
        return True

    def _copy_small(self) -> None:
        """A small chunk (a response, a delta) is read and written whole: fewer system calls,
        and the observers get it without touching the tape. It reads up to SMALL, not just
        what FIONREAD saw: what arrived since comes in the same read."""
        if self._tape_last:
            self._tell_tape_end()
        chunk = os.read(self.src, SMALL)
        t = self.clock()
        self.bytes += len(chunk)
        self._pass(chunk, t)

    def _send(self, tape: Tape, start: int, n: int) -> None:
        """Forward the ``n`` bytes at ``start`` of the tape (or nothing if the client is gone),
        then move the client's mark on the tape past them: only now may they be released."""
        try:
            if self.dst_open:
                self._send_open(tape, start, n)
        finally:
            tape.forwarded = start + n if self.dst_open else CLIENT_GONE

    def _send_open(self, tape: Tape, start: int, n: int) -> None:
        try:
            if self._sendfile:
                tape.send(self.dst, start, n)
                return
        except SendRefused as exc:  # e.g. a terminal, or a file opened O_APPEND: copy
            self._sendfile = False
            start, n = start + n - exc.left, exc.left
        except OSError as exc:
            self.dst_open = False
            if self.on_dst_closed is not None:
                self.on_dst_closed(self.direction, exc)
            return
        self._forward(tape.read(start, n))

    def _pass(self, chunk: bytes, t: float) -> None:
        for route, piece in self._lines.feed(chunk):
            if route == PASS:
                super()._pass(piece, t)
            else:
                self.hub.publish(self.direction, t, piece, injected=True)

    def _at_eof(self) -> None:
        held = self._lines.finish()
        if held:  # a line cut off by EOF before it was decided: it is the client's
            super()._pass(held, self.clock())
        super()._at_eof()
        with self._arm_lock:  # divert_ids writes to it under this lock: never to a number reused since
            for fd in (self._wake_r, self._wake_w):
                try:
                    os.close(fd)
                except OSError:
                    pass
            self._wake_r = self._wake_w = -1
