"""Observers in a forked child process: no GIL shared with the relays, nothing lost on a crash.

The proxy forks before it starts any thread or the agent. The child reads the
forwarded chunks from a pipe and runs the :class:`Dispatcher` and its observers, at
the same priority as the agent (backpressure waits on it: a starved observer would
slow the agent, or worse, look stalled). It ignores terminal signals and ends at end
of pipe, so even a SIGKILLed proxy leaves a complete recording of everything it
forwarded. Observers that need to act on the session (the control socket) get a
:class:`ChildSession` whose requests go back to the proxy over a second pipe (a third
tells them when a divert is armed).

The proxy never leaves it behind: at the end it waits for it while it works
(:meth:`ObserverProcess.finish`), and ends it if it is stopped or makes no progress,
saying so in the recording (:mod:`rpcspy.pump.observers.endnote`).
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
from rpcspy.pump.forward import procstate, wire
from rpcspy.pump.forward.hub import Dispatcher
from rpcspy.pump.forward.pipesink import PipeSink
from rpcspy.pump.forward.session import ObserverFactory
from rpcspy.pump.forward.spawn import F_SETPIPE_SZ, PIPE_SIZE, end_process_group

Warn = Callable[[str], None]
READ_SIZE = 1 << 20
"""The most the observer process takes from its pipe at a time."""
STOPPED_GRACE = 1.0
"""At the end, how long a stopped (SIGSTOP) observer process is given to continue before it is ended."""
PAUSE = 0.001
"""With the live check behind, how long the pipe must stay empty before it gets a slice of work: the
stream paused. In a flood the check waits (and falls behind up to its bound) instead of taking the CPU
the relays, the agent and the client need on a busy machine."""
TICK_SECONDS = 1.0
"""With no traffic, observers get a ``tick`` this often (live checks for overdue answers)."""


@dataclass
class ChildSession:
    """The :class:`~rpcspy.pump.forward.session.Session` observers in the child get: facts the proxy
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

    def halted(self) -> bool:
        """Stopped (SIGSTOP) or dead: only then does backpressure cut a gap."""
        return procstate.state(self.pid) != procstate.RUNNING

    def finish(self, warn: Warn, *, stuck_after: float) -> str | None:
        """Wait for the observer process to end while it works; None if it ended by itself and well,
        else what happened to it (for the recording's note): it died, or was stopped for
        :data:`STOPPED_GRACE` seconds, or used no CPU for ``stuck_after`` seconds (it is then ended)."""
        start = last = time.monotonic()
        ticks = procstate.cpu_ticks(self.pid)
        told = False
        stopped_since: float | None = None
        while True:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                return _ended(status)
            now = time.monotonic()
            if procstate.state(self.pid) == procstate.STOPPED:
                stopped_since = stopped_since if stopped_since is not None else now
                if now - stopped_since >= STOPPED_GRACE:
                    self._end()
                    return "the observer process was stopped (SIGSTOP) and did not continue"
            else:
                stopped_since = None
                if (now_ticks := procstate.cpu_ticks(self.pid)) != ticks:
                    ticks, last = now_ticks, now
                elif now - last >= stuck_after:
                    self._end()
                    return f"the observer process made no progress for {stuck_after:g} s"
            if not told and now - start > 2:
                told = True
                warn("finishing the recording and checks (the observers are behind the stream) ...")
            time.sleep(0.005)

    def _end(self) -> None:
        try:
            os.kill(self.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        os.waitpid(self.pid, 0)


def _ended(status: int) -> str | None:
    """None for a clean exit; else how the observer process ended."""
    if os.WIFSIGNALED(status):
        return f"the observer process was killed ({procstate.signal_name(os.WTERMSIG(status))})"
    code = os.WEXITSTATUS(status)
    return None if code == 0 else f"the observer process failed (exit status {code})"


def fork_observers(
    make_observers: ObserverFactory,
    session: ChildSession,
    *,
    warn: Warn,
    stall_after: float = STALL_AFTER,
) -> ObserverProcess:
    """Fork the observer process; call before starting threads or the agent.

    ``stall_after``: how long the proxy's sink waits for stopped or dead observers (then gaps).
    """
    data_r, data_w = os.pipe()
    cmd_r, cmd_w = os.pipe()
    armed_r, armed_w = os.pipe()
    os.set_blocking(armed_w, False)
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
            _child_main(data_r, make_observers, session, warn)
        except BaseException as exc:  # noqa: BLE001 - report and leave; never return into the proxy's code
            try:  # one line, never a traceback on the user's terminal; the proxy notes it in the recording
                warn(f"the observer process failed ({type(exc).__name__}: {exc}); recording stopped")
            except BaseException:  # noqa: BLE001, S110
                pass
            code = 70
        os._exit(code)
    os.close(data_r)
    os.close(cmd_w)
    os.close(armed_r)
    observers = ObserverProcess(pid, PipeSink(data_w, warn=warn, stall_after=stall_after), cmd_r, armed_w)
    observers.sink.set_halted(observers.halted)
    return observers


def _read_pipe(fd: int, timeout: float) -> bytes | None:
    """Up to READ_SIZE bytes of the pipe; b"" once it ended (EOF or hang-up: the proxy is gone); None
    after ``timeout`` seconds with nothing."""
    if not select.select([fd], [], [], timeout)[0]:
        return None
    try:
        return os.read(fd, READ_SIZE)
    except OSError:
        return b""


def _child_main(data_fd: int, make_observers: ObserverFactory, session: ChildSession, warn: Warn) -> None:
    for signum in (signal.SIGINT, signal.SIGHUP, signal.SIGTERM, signal.SIGPIPE):
        signal.signal(signum, signal.SIG_IGN)
    null = os.open(os.devnull, os.O_RDWR)
    os.dup2(null, 0)
    os.dup2(null, 1)  # stdout belongs to the client: the child must not hold it open
    os.close(null)
    dispatcher = Dispatcher(make_observers(session), warn=warn)
    decoder = wire.WireDecoder()
    last_t, last_at = 0.0, time.monotonic()
    exited = False
    while (chunk := _read_pipe(data_fd, PAUSE if dispatcher.behind else TICK_SECONDS)) != b"":
        if chunk is None and dispatcher.behind:  # nothing to record: the live check's turn
            dispatcher.work()
            dispatcher.flush()
            continue
        if chunk is None:  # quiet for a while: let observers report what is overdue
            dispatcher.tick(last_t + time.monotonic() - last_at)
            dispatcher.flush()
            continue
        for msg in decoder.feed(chunk):
            if msg.t:
                last_t, last_at = msg.t, time.monotonic()
            if msg.kind == wire.DATA:
                dispatcher.data(msg.dir, msg.t, msg.payload, bool(msg.flags & wire.INJECTED))
            elif msg.kind == wire.GAP:
                size, events, reason = wire.load_gap(msg.payload)
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
