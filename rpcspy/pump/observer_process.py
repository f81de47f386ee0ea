"""Observers in a forked child process: no GIL shared with the relays, nothing lost on a crash.

The proxy forks before it starts any thread or the agent. The child reads the
forwarded chunks from a pipe and runs the :class:`Dispatcher` and its observers;
it ignores terminal signals and ends at end of pipe, so even a SIGKILLed proxy
leaves a complete recording of everything it forwarded. Observers that need to act
on the session (the control socket) get a :class:`ChildSession` whose requests go
back to the proxy over a second pipe (a third tells them when a divert is armed).
"""

from __future__ import annotations

import os
import select
import signal
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from rpcspy.backpressure import STALL_AFTER
from rpcspy.events import Exit, Note, Start
from rpcspy.pump import wire
from rpcspy.pump.drain import PipeSpool
from rpcspy.pump.hub import Dispatcher
from rpcspy.pump.pipesink import PipeSink
from rpcspy.pump.session import ObserverFactory
from rpcspy.pump.spawn import F_SETPIPE_SZ, PIPE_SIZE, end_process_group
from rpcspy.pump.tape import AVAILABLE as TAPE_AVAILABLE
from rpcspy.pump.tape import Tape, count_dispatched
from rpcspy.pump.tape_reader import TapeReader

Warn = Callable[[str], None]
OBSERVER_NICENESS = 19
TICK_SECONDS = 1.0
"""With no traffic, observers get a ``tick`` this often (live checks for overdue answers)."""


@dataclass
class ChildSession:
    """The :class:`~rpcspy.pump.session.Session` observers in the child get: facts the proxy
    handed over at the fork, and requests sent back to it over the command pipe."""

    command_fd: int
    argv: list[str]
    record_path: str | None
    mode: str
    proxy_pid: int
    started: float
    agent_pid: int | None = None
    armed_fd: int = -1
    """Readable once the proxy armed the divert (a byte per divert asked); EOF when it is gone."""
    armed: bool = False

    def inject(self, line: bytes) -> None:
        """Ask the proxy to send ``line`` to the agent between client frames."""
        if not line.endswith(b"\n") or b"\n" in line[:-1]:
            raise ValueError("an injected frame is exactly one line ending in LF")
        os.write(self.command_fd, wire.command_message(wire.INJECT, line))

    def divert_ids(self, prefix: bytes, within: float) -> bool:
        """Ask the proxy to divert; True once it says the divert is armed (for good), False if it does
        not within ``within`` seconds (or it is gone). Only this thread waits, never the proxy's relays."""
        if self.armed:
            return True
        os.write(self.command_fd, wire.command_message(wire.DIVERT, prefix))
        if select.select([self.armed_fd], [], [], within)[0]:
            self.armed = os.read(self.armed_fd, 4096) != b""  # any byte: armed; EOF: the proxy is ending
        return self.armed


@dataclass
class ObserverProcess:
    pid: int
    sink: PipeSink
    command_fd: int
    armed_fd: int = -1
    """Where the proxy tells the observer process that the divert is armed (:meth:`tell_armed`)."""
    _armed_lock: threading.Lock = field(default_factory=threading.Lock)

    def tell_armed(self) -> None:
        """The divert is armed (any thread; a byte per divert asked, never waiting)."""
        with self._armed_lock:
            if self.armed_fd >= 0:
                try:
                    os.write(self.armed_fd, b"!")
                except OSError:
                    pass  # full of earlier tellings (one says it all), or the observer process is gone

    def close_commands(self) -> None:
        """Close both pipes between the proxy and the observers' requests (at the end of the session)."""
        os.close(self.command_fd)
        with self._armed_lock:  # tell_armed may come from a relay still running: never a reused number
            os.close(self.armed_fd)
            self.armed_fd = -1

    def wait(self, timeout: float, warn: Warn) -> None:
        """Wait for the child to finish the recording (it may be working through a backlog)."""
        start = time.monotonic()
        told = False
        while True:
            pid, _ = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                return
            if time.monotonic() - start >= timeout:
                break
            if not told and time.monotonic() - start > 2:
                told = True
                warn("finishing the recording and checks (the observers are behind the stream) ...")
            time.sleep(0.005)
        warn(f"observer process still busy after {timeout:.0f}s; leaving it to finish the recording")


def fork_observers(
    make_observers: ObserverFactory,
    session: ChildSession,
    *,
    warn: Warn,
    tmp_dir: str | None = None,
    stall_after: float = STALL_AFTER,
) -> ObserverProcess:
    """Fork the observer process; call before starting threads or the agent.

    The tape and the spool (unlinked files) go in ``tmp_dir`` (None: ``$TMPDIR``, else /tmp).
    ``stall_after``: how long the proxy's sink waits for observers that make no progress (then gaps).
    """
    data_r, data_w = os.pipe()
    cmd_r, cmd_w = os.pipe()
    armed_r, armed_w = os.pipe()
    os.set_blocking(armed_w, False)
    tape = _open_tape(warn, tmp_dir)
    import fcntl

    try:
        fcntl.fcntl(data_w, F_SETPIPE_SZ, PIPE_SIZE)
    except OSError:
        pass
    pid = os.fork()
    if pid == 0:  # child
        code = 0
        try:
            os.close(data_w)
            os.close(cmd_r)
            os.close(armed_w)
            session.command_fd, session.armed_fd = cmd_w, armed_r
            _child_main(data_r, tape, make_observers, session, warn, tmp_dir)
        except BaseException:  # noqa: BLE001 - report and leave; never return into the proxy's code
            import traceback

            traceback.print_exc()
            code = 70
        os._exit(code)
    os.close(data_r)
    os.close(cmd_w)
    os.close(armed_r)
    return ObserverProcess(pid, PipeSink(data_w, warn=warn, tape=tape, stall_after=stall_after), cmd_r, armed_w)


def _open_tape(warn: Warn, tmp_dir: str | None) -> Tape | None:
    if not TAPE_AVAILABLE:
        return None
    try:
        return Tape(tmp_dir)
    except OSError as exc:
        warn(f"no temporary file for the agent's output ({exc}); it goes through the pipe instead")
        return None


def _child_main(data_fd: int, tape: Tape | None, make_observers: ObserverFactory,
                session: ChildSession, warn: Warn, tmp_dir: str | None) -> None:
    for signum in (signal.SIGINT, signal.SIGHUP, signal.SIGTERM, signal.SIGPIPE):
        signal.signal(signum, signal.SIG_IGN)
    null = os.open(os.devnull, os.O_RDWR)
    os.dup2(null, 0)
    os.dup2(null, 1)  # stdout belongs to the client: the child must not hold it open
    os.close(null)
    spool = PipeSpool(data_fd, tmp_dir)  # its drain process, forked before any thread, empties the pipe
    spool.start()
    dispatcher = Dispatcher(make_observers(session), warn=warn)
    reader = TapeReader(tape)
    try:
        # Linux niceness is per thread: this (dispatching) thread yields the CPU to forwarding; the
        # drain process, forked above at normal priority, keeps the proxy's pipe empty.
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), OBSERVER_NICENESS)
    except OSError:
        pass
    decoder = wire.WireDecoder()
    last_t, last_at = 0.0, time.monotonic()
    told_failure = exited = False
    while (chunk := spool.get(timeout=0 if dispatcher.behind else TICK_SECONDS)) != b"":
        if not told_failure and (failure := spool.failure) is not None:
            told_failure = True
            text = (f"the observers' spool could not be written ({failure}); they now read the proxy's pipe "
                    "directly, and whatever they cannot keep up with is left out of the recording (gaps)")
            warn(text)
            dispatcher.event(Note(0, last_t, "warning", text))
        if chunk is None and dispatcher.behind:  # nothing to record: the live check's turn
            dispatcher.work()
            dispatcher.flush()
            continue
        if chunk is None:  # quiet for a while: let observers report what is overdue
            dispatcher.tick(last_t + time.monotonic() - last_at)
            dispatcher.flush()
            continue
        for msg in decoder.feed(chunk):
            count_dispatched(tape)  # progress the relays see in the tape's shared page, message by message
            if msg.t:
                last_t, last_at = msg.t, time.monotonic()
            if msg.kind == wire.DATA:
                dispatcher.data(msg.dir, msg.t, msg.payload, bool(msg.flags & wire.INJECTED))
            elif msg.kind == wire.TAPE_DATA:
                dispatcher.data(msg.dir, msg.t, reader.take(msg.length), bool(msg.flags & wire.INJECTED))
            elif msg.kind == wire.GAP:
                size, on_tape, events, reason = wire.load_gap(msg.payload)
                reader.skip(on_tape)
                dispatcher.dropped(msg.dir, msg.t, size, reason, events)
            elif msg.kind == wire.EOF:
                dispatcher.eof(msg.dir, msg.t)
            elif msg.kind == wire.EVENT:
                event = wire.load_event(msg.payload)
                if isinstance(event, Start):
                    session.agent_pid = event.pid
                elif isinstance(event, Exit):
                    exited = True
                dispatcher.event(event)
        dispatcher.flush()
    if decoder.pending:
        dispatcher.event(Note(0, last_t, "warning", f"the proxy stopped mid-message; {decoder.pending} bytes lost"))
    if not exited and session.agent_pid is not None and end_process_group(session.agent_pid):
        dispatcher.event(Note(0, last_t, "warning", "rpcspy ended before the agent did (killed?): the observer "
                              f"process ended the agent's process group {session.agent_pid}"))
    dispatcher.flush()
    dispatcher.close()
    spool.dispose()
