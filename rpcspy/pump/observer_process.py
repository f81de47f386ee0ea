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
import signal
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from rpcspy.events import Note, Start
from rpcspy.pump import wire
from rpcspy.pump.hub import Dispatcher, Observer
from rpcspy.pump.pipesink import PipeSink
from rpcspy.pump.spawn import F_SETPIPE_SZ, PIPE_SIZE
from rpcspy.pump.spool import Spool

Warn = Callable[[str], None]
OBSERVER_NICENESS = 19
TICK_SECONDS = 1.0
"""With no traffic, observers get a ``tick`` this often (live checks for overdue answers)."""


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
    side_r, side_w = os.pipe()
    cmd_r, cmd_w = os.pipe()
    import fcntl

    for fd in (data_w, side_w):
        try:
            fcntl.fcntl(fd, F_SETPIPE_SZ, PIPE_SIZE)
        except OSError:
            pass
    pid = os.fork()
    if pid == 0:  # child
        code = 0
        try:
            os.close(data_w)
            os.close(side_w)
            os.close(cmd_r)
            session.command_fd = cmd_w
            _child_main(data_r, side_r, make_observers, session, warn)
        except BaseException:  # noqa: BLE001 - report and leave; never return into the proxy's code
            import traceback

            traceback.print_exc()
            code = 70
        os._exit(code)
    os.close(data_r)
    os.close(side_r)
    os.close(cmd_w)
    return ObserverProcess(pid, PipeSink(data_w, warn=warn, side_fd=side_w), cmd_r)


def _drain(data_fd: int, side_fd: int, spool: Spool) -> None:
    """Empty the proxy's pipes into the spool as fast as they fill: the proxy never waits on observers.

    Messages are copied as they are, except SIDE_DATA headers: their bytes are taken
    from the side pipe (spliced, never copied through Python) and spooled as DATA.
    """
    reader = _ExactReader(data_fd)
    try:
        while (head := reader.read(wire.HEADER.size)) is not None:
            kind, d, flags, t, length = wire.HEADER.unpack(head)
            if kind == wire.SIDE_DATA:
                spool.put(wire.HEADER.pack(wire.DATA, d, flags, t, length))
                spool.fill_exactly_from(side_fd, length)
                continue
            spool.put(head)
            if length:
                payload = reader.read(length)
                if payload is None:
                    break
                spool.put(payload)
    finally:
        spool.close()


class _ExactReader:
    """Reads exact sizes from a pipe, buffering what arrives beyond them."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.buf = bytearray()

    def read(self, size: int) -> bytes | None:
        while len(self.buf) < size:
            chunk = os.read(self.fd, max(size - len(self.buf), 1 << 16))
            if not chunk:
                return None
            self.buf += chunk
        out = bytes(self.buf[:size])
        del self.buf[:size]
        return out


def _child_main(data_fd: int, side_fd: int, make_observers: Callable[[ChildSession], list[Observer]], session: ChildSession,
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
    threading.Thread(target=_drain, args=(data_fd, side_fd, spool), name="rpcspy-spool", daemon=True).start()
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
