"""Relays that let a third party into the conversation, at frame boundaries only.

:class:`ClientRelay` (client -> agent) writes injected lines between the client's
frames, never inside a partial line. :class:`AgentRelay` (agent -> client) keeps
responses to injected ids away from the client, which never asked for them.
Both copy every byte through memory (no splice, no sendfile: see :mod:`rpcspy.pump.forward.relay`).
"""

from __future__ import annotations

import os
import select
import threading
from collections import deque
from collections.abc import Callable

from rpcspy.events import Note
from rpcspy.injection.divert import PASS, Diverter
from rpcspy.injection.gate import LineGate
from rpcspy.pump.forward import wire
from rpcspy.pump.forward.relay import Relay


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
    core's :class:`Diverter`'s decision).

    Every byte is read into memory and written to the client from there (a plain copy, like
    :class:`Relay`): nothing the client reads is a reference to a file or a page another process
    may change, so however slowly the client reads, it reads what the agent wrote. The relay sees
    every line itself from the start, so a divert is armed at once."""

    def __init__(self, *args, warn: Callable[[str], None] | None = None, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._warn = warn
        self._lines = Diverter()
        self.armed = threading.Event()
        """Set: every line the relay forwards passes the diverter (always, since nothing goes around it)."""
        self.armed.set()

    def divert_ids(self, prefix: bytes, on_armed: Callable[[], None] | None = None) -> None:
        """From the next line on, responses whose id is ``prefix`` and digits do not reach the client.

        Never waits (any thread; the client relay's included); ``on_armed`` is called at once: the
        divert is armed as soon as it is set, so an injection may be sent right after."""
        self._lines.divert(prefix)
        if on_armed is not None:
            on_armed()

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
