"""Observers in a forked child process: no GIL shared with the relays, nothing lost on a crash.

The proxy forks before it starts any thread or the agent. The child reads the
forwarded chunks from a pipe and runs the :class:`Dispatcher` and its observers;
it ignores terminal signals and ends at end of pipe, so even a SIGKILLed proxy
leaves a complete recording of everything it forwarded. Observers that need to act
on the session (the control socket) get a :class:`ChildSession` whose requests go
back to the proxy over a second pipe.
"""

from __future__ import annotations

import os
import select
import signal
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from rpcspy.events import Direction, Event, Note, Start
from rpcspy.pump import wire
from rpcspy.pump.hub import Dispatcher, Observer
from rpcspy.pump.spawn import F_SETPIPE_SZ, PIPE_SIZE
from rpcspy.pump.spool import Spool

Warn = Callable[[str], None]
OBSERVER_NICENESS = 10
TICK_SECONDS = 1.0
"""With no traffic, observers get a ``tick`` this often (live checks for overdue answers)."""


class PipeSink:
    """Proxy side: serialise what the relays forwarded into the observer pipe.

    Writes are blocking with a bound: a child that does not read for
    ``stall_timeout`` seconds is cut off (one warning), and forwarding goes on.
    """

    def __init__(self, fd: int, *, warn: Warn, stall_timeout: float = 10.0) -> None:
        self.fd = fd
        self._warn = warn
        self._stall_timeout = stall_timeout
        self._lock = threading.Lock()
        self.dead = False
        os.set_blocking(fd, False)

    def publish(self, direction: Direction, t: float, chunk: bytes, injected: bool = False) -> None:
        self._send([wire.header(wire.DATA, direction, t, len(chunk), wire.INJECTED if injected else 0), chunk])

    def publish_eof(self, direction: Direction, t: float) -> None:
        self._send([wire.header(wire.EOF, direction, t, 0)])

    def publish_event(self, event: Event) -> None:
        self._send(wire.event_message(event))

    def _send(self, pieces: list[bytes]) -> None:
        if self.dead:
            return
        with self._lock:
            try:
                self._writev(pieces)
            except OSError as exc:
                self._cut_off(f"observer process gone ({exc.strerror or exc}); recording stopped, forwarding continues")

    def _writev(self, pieces: list[bytes]) -> None:
        views = [memoryview(p) for p in pieces if p]
        deadline = None
        while views:
            try:
                n = os.writev(self.fd, views)
            except BlockingIOError:
                now = time.monotonic()
                deadline = deadline or now + self._stall_timeout
                if now >= deadline or not select.select([], [self.fd], [], deadline - now)[1]:
                    self._cut_off(f"observers stalled for {self._stall_timeout:.0f}s; recording stopped, "
                                  "forwarding continues")
                    return
                continue
            deadline = None
            while views and n >= len(views[0]):
                n -= len(views.pop(0))
            if n:
                views[0] = views[0][n:]

    def _cut_off(self, message: str) -> None:
        if not self.dead:
            self.dead = True
            self._warn(message)
            try:
                os.close(self.fd)
            except OSError:
                pass

    def close(self) -> None:
        with self._lock:
            if not self.dead:
                self.dead = True
                os.close(self.fd)


@dataclass
class ChildSession:
    """What observers in the child know of the session, and how they act on it."""

    command_fd: int
    argv: list[str]
    record_path: str | None
    proxy_pid: int
    dispatcher: Dispatcher | None = None
    agent_pid: int | None = None

    def inject(self, line: bytes) -> None:
        """Ask the proxy to send ``line`` to the agent between client frames."""
        if not line.endswith(b"\n") or b"\n" in line[:-1]:
            raise ValueError("an injected frame is exactly one line ending in LF")
        os.write(self.command_fd, wire.command_message(wire.INJECT, line))

    def divert_ids(self, prefix: bytes) -> None:
        os.write(self.command_fd, wire.command_message(wire.DIVERT, prefix))

    @property
    def frame_counts(self) -> dict[str, int]:
        return dict(self.dispatcher.frames) if self.dispatcher else {}


@dataclass
class ObserverProcess:
    pid: int
    sink: PipeSink
    command_fd: int

    def wait(self, timeout: float, warn: Warn) -> None:
        """Wait for the child to finish the recording (it may be working through a backlog)."""
        start = time.monotonic()
        told = False
        while time.monotonic() - start < timeout:
            pid, _ = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                return
            if not told and time.monotonic() - start > 2:
                told = True
                warn("finishing the recording and checks (the observers are behind the stream) ...")
            time.sleep(0.005)
        warn(f"observer process still busy after {timeout:.0f}s; leaving it to finish the recording")


def fork_observers(
    make_observers: Callable[[ChildSession], list[Observer]],
    session: ChildSession,
    *,
    warn: Warn,
) -> ObserverProcess:
    """Fork the observer process; call before starting threads or the agent."""
    data_r, data_w = os.pipe()
    cmd_r, cmd_w = os.pipe()
    try:
        import fcntl

        fcntl.fcntl(data_w, F_SETPIPE_SZ, PIPE_SIZE)
    except OSError:
        pass
    pid = os.fork()
    if pid == 0:  # child
        code = 0
        try:
            os.close(data_w)
            os.close(cmd_r)
            session.command_fd = cmd_w
            _child_main(data_r, make_observers, session, warn)
        except BaseException:  # noqa: BLE001 - report and leave; never return into the proxy's code
            import traceback

            traceback.print_exc()
            code = 70
        os._exit(code)
    os.close(data_r)
    os.close(cmd_w)
    return ObserverProcess(pid, PipeSink(data_w, warn=warn), cmd_r)


def _drain(data_fd: int, spool: Spool) -> None:
    """Empty the proxy's pipe into the spool as fast as it fills: the proxy never waits on observers."""
    try:
        while spool.fill_from(data_fd):
            pass
    finally:
        spool.close()


def _child_main(data_fd: int, make_observers: Callable[[ChildSession], list[Observer]], session: ChildSession,
                warn: Warn) -> None:
    for signum in (signal.SIGINT, signal.SIGHUP, signal.SIGTERM, signal.SIGPIPE):
        signal.signal(signum, signal.SIG_IGN)
    null = os.open(os.devnull, os.O_RDWR)
    os.dup2(null, 0)
    os.dup2(null, 1)  # stdout belongs to the client: the child must not hold it open
    os.close(null)
    dispatcher = Dispatcher(make_observers(session), warn=warn)
    session.dispatcher = dispatcher
    spool = Spool()
    threading.Thread(target=_drain, args=(data_fd, spool), name="rpcspy-spool", daemon=True).start()
    sys.setswitchinterval(0.0005)  # the drain thread must get the GIL back quickly to keep the pipe empty
    try:
        # Linux niceness is per thread: only this (dispatching) thread yields the CPU to forwarding;
        # the drain thread, started above at normal priority, keeps the proxy's pipe empty.
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), OBSERVER_NICENESS)
    except OSError:
        pass
    decoder = wire.WireDecoder()
    last_t, last_at = 0.0, time.monotonic()
    while (chunk := spool.get(timeout=TICK_SECONDS)) != b"":
        if chunk is None:  # quiet for a while: let observers report what is overdue
            dispatcher.tick(last_t + time.monotonic() - last_at)
            dispatcher.each("flush")
            continue
        for msg in decoder.feed(chunk):
            if msg.t:
                last_t, last_at = msg.t, time.monotonic()
            if msg.kind == wire.DATA:
                dispatcher.data(msg.dir, msg.t, msg.payload, bool(msg.flags & wire.INJECTED))
            elif msg.kind == wire.EOF:
                dispatcher.eof(msg.dir, msg.t)
            elif msg.kind == wire.EVENT:
                event = wire.load_event(msg.payload)
                if isinstance(event, Start):
                    session.agent_pid = event.pid
                dispatcher.event(event)
        dispatcher.each("flush")
    if decoder.pending:
        dispatcher.event(Note(0, last_t, "warning", f"the proxy stopped mid-message; {decoder.pending} bytes lost"))
    dispatcher.each("flush")
    dispatcher.each("close")
