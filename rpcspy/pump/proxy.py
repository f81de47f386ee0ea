"""The proxy session: spawn the agent, relay three streams, forward signals, exit like the agent."""

from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from rpcspy.backpressure import STALL_AFTER
from rpcspy.events import Direction, Exit, Note, SpawnFailed, Start
from rpcspy.pump.forward.heap import keep_freed_memory
from rpcspy.pump.forward.hub import Observer, Sink
from rpcspy.pump.forward.hub_thread import Hub
from rpcspy.pump.forward.inject_relays import AgentRelay, ClientRelay
from rpcspy.pump.forward.relay import Relay, monotonic_clock
from rpcspy.pump.forward.session import ObserverFactory, Session
from rpcspy.pump.forward.signals import SignalForwarder
from rpcspy.pump.forward.spawn import SpawnError, enlarge_pipes, exit_status, spawn_agent
from rpcspy.pump.forward.stdio import fill_closed_std_fds


@dataclass
class ProxyConfig:
    """Everything one proxied session needs; the CLI fills it in."""

    argv: Sequence[str]
    record_path: str | None
    env: dict[str, str] | None = None
    observers: list[ObserverFactory] = field(default_factory=list)
    stdin: int = 0
    stdout: int = 1
    stderr: int = 2
    observer_process: bool = False
    """Run observers in a forked child (the CLI's default). Needs a single-threaded caller."""
    control: bool = False
    """Offer a control socket (rpcspy inject / watch / sessions) for this session."""
    drain_timeout: float = 5.0
    """After the agent exits, how long its pipes get to reach EOF (grandchildren may hold them); a relay's
    wait for stalled observers comes on top (:func:`relay_patience`)."""
    observer_timeout: float = 60.0
    """At exit, how long the observer process may go without using any CPU (stuck) before it is ended; it is
    waited for as long as it works, and ended after a second if it is stopped (SIGSTOP)."""
    mode: str = "proxy"
    record_fd: int | None = None
    """``record_path`` already opened and locked (rpcspy.recording.writer.open_recording_file)."""
    gap_after: float = STALL_AFTER
    """At a bound, how long observers that are stopped or dead are waited for before gaps (0: never wait)."""
    leg: str | None = None
    """``front``/``back`` with ``rpcspy run --legs`` (recorded in the header), else None."""
    front: str | None = None
    """A back leg's front recording."""


def relay_patience(drain_timeout: float, gap_after: float) -> float:
    """How long, after the agent exits, the proxy waits for each output relay to end: ``drain_timeout``
    plus ``gap_after``, whatever their sizes.

    A relay's last bytes may first wait for stalled observers, at most ``gap_after`` (stalled observers
    are waited for once, then cut as a gap; observers that progress have only the pipe's last MiB to
    take), and only then can the relay see its pipe's EOF, which a grandchild holding the pipe delays:
    the drain time is for that. Adding ``gap_after`` only when it was at least the drain time (the
    rule before) let a stall of up to the drain time eat into a held pipe's drain time.
    """
    return drain_timeout + gap_after


class Warner(Protocol):
    """Where rpcspy's own messages go; ``lock`` is held while the agent's stderr is written."""

    lock: threading.Lock

    def __call__(self, message: str) -> None: ...


class StderrWriter:
    """rpcspy's own messages, interleaved with the agent's stderr only between chunks."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.lock = threading.Lock()

    def __call__(self, message: str) -> None:
        data = f"rpcspy: {message}\n".encode("utf-8", "replace")
        with self.lock:
            try:
                os.write(self.fd, data)
            except OSError:
                pass


class ProxySession:
    """One run of ``rpcspy -- AGENT...``; :meth:`run` returns the exit status."""

    def __init__(self, config: ProxyConfig, *, warn: Warner | None = None) -> None:
        self.config = config
        self.warn = warn or StderrWriter(config.stderr)
        self.clock = monotonic_clock()
        self.started = time.time()
        self.pid = os.getpid()
        self._record_id: tuple[int, int] | None = None
        """The claimed recording's (device, inode): removed if the agent never starts."""
        self.proc: Any = None
        self.sink: Sink | None = None
        self.client_relay: ClientRelay | None = None
        self.agent_relay: AgentRelay | None = None
        self._observer_process: Any = None
        self._relays: list[Relay] = []

    # --- observers ---------------------------------------------------------------------
    # --- what observers may ask (rpcspy.pump.forward.session.Session) -------------------------------
    @property
    def argv(self) -> list[str]:
        return list(self.config.argv)

    @property
    def record_path(self) -> str | None:
        return self.config.record_path

    @property
    def mode(self) -> str:
        return self.config.mode

    @property
    def proxy_pid(self) -> int:
        return self.pid

    def _make_observers(self, session: Session) -> list[Observer]:
        cfg = self.config
        observers: list[Observer] = []
        if cfg.record_path is not None:  # imported here: in the observer process, after the agent started
            from rpcspy.pump.observers.recorder import Recorder
            from rpcspy.recording.writer import RecordingWriter, make_header

            header = make_header(cfg.argv, mode=cfg.mode, started=self.started, pid=self.pid, leg=cfg.leg,
                                 front=cfg.front)
            observers.append(Recorder(RecordingWriter(cfg.record_path, header, warn=self.warn, fd=cfg.record_fd)))
        for factory in cfg.observers:
            observers += factory(session)
        if cfg.control:
            try:
                from rpcspy.pump.observers.control import start_control
            except ImportError:
                pass
            else:
                try:
                    observers.append(start_control(session))
                except Exception as exc:
                    self.warn(f"control socket unavailable: {exc}")
        return observers

    def _start_observers(self) -> int | None:
        """Start the sink; return the fd on which observers send requests (process mode)."""
        cfg = self.config
        if cfg.observer_process:
            from rpcspy.pump.forward.observer_process import ChildSession, fork_observers

            child = ChildSession(-1, list(cfg.argv), cfg.record_path, cfg.mode, os.getpid(), self.started)
            self._observer_process = fork_observers(self._make_observers, child, warn=self.warn,
                                                    stall_after=cfg.gap_after)
            self.sink = self._observer_process.sink
            return self._observer_process.command_fd
        hub = Hub(self._make_observers(self), warn=self.warn, stall_after=cfg.gap_after)
        hub.start()
        self.sink = hub
        return None

    def _stop_observers(self, exit_event: Exit | None = None) -> None:
        """Hand the observers the rest and wait for them while they work; never leave one behind. If the
        observer process did not finish well, the recording says so (:mod:`rpcspy.pump.observers.endnote`)."""
        observers = self._observer_process
        if observers is not None:
            handed_over = observers.sink.close(self.config.observer_timeout)
            why = observers.finish(self.warn, stuck_after=self.config.observer_timeout)
            observers.close_commands()
            if self.config.control:  # its server removes them at its end, unless it was killed first
                from rpcspy.pump.observers.control import unregister

                unregister(self.pid)
            if why is None and not handed_over:
                why = "the observer process did not take the end of the session (it was stopped or stuck)"
            if why is not None:
                self._say_incomplete(why, exit_event)
        elif isinstance(self.sink, Hub):
            self.sink.close()

    def _header_line(self) -> bytes:
        """The recording's first line, for a recording its writer never began."""
        from rpcspy.recording.format import encode_entry
        from rpcspy.recording.writer import make_header

        cfg = self.config
        return encode_entry(make_header(cfg.argv, mode=cfg.mode, started=self.started, pid=self.pid))

    def _say_incomplete(self, why: str, exit_event: Exit | None) -> None:
        """The observer process ended badly: say so on stderr, and in the recording after its last whole line."""
        from rpcspy.pump.observers.endnote import append_end, incomplete_text

        cfg = self.config
        if cfg.record_path is None:  # nothing recorded: only the live check and the control socket ended early
            self.warn(f"{why}; forwarding was not affected")
            return
        forwarded = {str(relay.direction): relay.bytes for relay in self._relays}
        text = incomplete_text(why, forwarded)
        self.warn(text)
        if exit_event is None:
            return
        # Read and write: the claimed descriptor is write-only. Through /proc, the very file that was claimed
        # (never a file put at its path since).
        where = f"/proc/self/fd/{cfg.record_fd}" if cfg.record_fd is not None else cfg.record_path
        try:
            fd = os.open(where, os.O_RDWR | os.O_CLOEXEC)
        except OSError:
            return
        try:
            append_end(fd, self._header_line, self.clock(), text, exit_event.code, exit_event.signal)
        finally:
            os.close(fd)

    # --- the session -------------------------------------------------------------------
    def run(self) -> int:
        cfg = self.config
        closed = fill_closed_std_fds((cfg.stdin, cfg.stdout, cfg.stderr))  # before any pipe takes their numbers
        keep_freed_memory()  # before the fork: the observer process inherits it
        if cfg.record_fd is not None:  # which file to remove if the agent does not start (the writer closes fd)
            from rpcspy.recording.claim import file_id

            self._record_id = file_id(cfg.record_fd)
        commands = self._start_observers()
        sink = self.sink
        assert sink is not None
        try:
            proc = spawn_agent(cfg.argv, cfg.env)
        except SpawnError as exc:
            self.warn(str(exc))
            sink.publish_event(SpawnFailed(0, self.clock(), str(exc), exc.code))
            self._stop_observers()
            self._discard_recording()
            return exc.code
        self.proc = proc
        enlarge_pipes(proc)
        sink.publish_event(Start(0, self.clock(), proc.pid, list(cfg.argv)))
        self._tell_closed(closed)
        with SignalForwarder(proc.pid, self._note_forwarded):  # before any output: a client may signal at once
            relays = self._start_relays(proc, commands, client_gone=cfg.stdout in closed)
            returncode = proc.wait()
            patience = relay_patience(cfg.drain_timeout, cfg.gap_after)
            for relay in relays[1:]:
                relay.join(patience)
                if relay.is_alive():
                    sink.publish_event(Note(0, self.clock(), "warning",
                                            f"{relay.direction} still open {patience:g}s after the agent "
                                            "exited (a child process holds the pipe); stopped waiting",
                                            dir=relay.direction))
        code, signum = exit_status(returncode)
        exit_event = Exit(0, self.clock(), code, signum)
        sink.publish_event(exit_event)
        if self._observer_process is not None and not relays[1].is_alive():
            self._close_client_stdout()  # the client has everything: let it see EOF while observers finish
        self._stop_observers(exit_event)
        return code

    def _discard_recording(self) -> None:
        """The agent did not start: the recording (a header and the failure, which stderr said) goes."""
        cfg = self.config
        if cfg.record_path is not None and self._record_id is not None:
            from rpcspy.recording.claim import discard_recording

            discard_recording(cfg.record_path, self._record_id)

    def _close_client_stdout(self) -> None:
        """Release the client's stdout (it sees EOF) while keeping the descriptor number valid."""
        try:
            null = os.open(os.devnull, os.O_WRONLY)
            os.dup2(null, self.config.stdout)
            os.close(null)
        except OSError:
            pass

    def _tell_closed(self, closed: set[int]) -> None:
        """Say once (stderr and recording) which standard descriptors were closed at start."""
        cfg = self.config
        what = {cfg.stdin: "stdin was closed when rpcspy started: the agent's input ends at once",
                cfg.stdout: "stdout was closed when rpcspy started: the agent's output is recorded but reaches "
                            "no client"}
        for fd in sorted(closed):
            if fd in what:
                self.warn(what[fd])
                assert self.sink is not None
                self.sink.publish_event(Note(0, self.clock(), "warning", what[fd]))

    def _start_relays(self, proc: Any, commands: int | None, *, client_gone: bool = False) -> list[Relay]:
        cfg, sink = self.config, self.sink
        assert sink is not None  # set by start() before the relays
        self.agent_relay = AgentRelay("a2c", proc.stdout.fileno(), cfg.stdout, sink, self.clock,
                                      on_dst_closed=self._dst_closed, warn=self.warn)
        self.agent_relay.dst_open = not client_gone
        self.client_relay = ClientRelay("c2a", cfg.stdin, proc.stdin.fileno(), sink, self.clock,
                                        close_dst=proc.stdin.close, on_dst_closed=self._dst_closed,
                                        commands=commands,
                                        on_divert=self._divert_for_observers if commands is not None else None)
        relays: list[Relay] = [
            self.client_relay,
            self.agent_relay,
            Relay("err", proc.stderr.fileno(), cfg.stderr, sink, self.clock,
                  on_dst_closed=self._dst_closed, dst_lock=self.warn.lock),
        ]
        self._relays = relays
        for relay in relays:
            relay.start()
        return relays

    def inject(self, line: bytes) -> None:
        """Send one line to the agent between the client's frames (thread-safe)."""
        if self.client_relay is None:
            raise RuntimeError("the agent is not running")
        self.client_relay.inject(line)

    def divert_ids(self, prefix: bytes, within: float) -> bool:
        """Keep responses whose id starts with ``prefix`` from the client (they answer injections); True
        once armed, False if not within ``within`` seconds (only the caller waits, never a relay)."""
        if self.agent_relay is None:
            raise RuntimeError("the agent is not running")
        self.agent_relay.divert_ids(prefix)
        return self.agent_relay.armed.wait(within)

    def _divert_for_observers(self, prefix: bytes) -> None:
        """A divert the observer process asked for, on the client relay's thread (so it must not wait):
        the observer process hears when it is armed."""
        assert self.agent_relay is not None  # started before the client relay reads commands
        self.agent_relay.divert_ids(prefix, self._observer_process.tell_armed)

    def _dst_closed(self, direction: Direction, exc: OSError) -> None:
        where = {"c2a": "agent stdin", "a2c": "client stdout", "err": "rpcspy stderr"}[direction]
        text = f"{where} closed ({exc.strerror or exc}); {direction} frames are still recorded but no longer delivered"
        if self.sink is not None:
            self.sink.publish_event(Note(0, self.clock(), "warning", text, dir=direction))

    def _note_forwarded(self, signum: int) -> None:
        if self.sink is not None:  # not from the handler itself: the sink's lock may be held right here
            text = f"forwarded {signal.Signals(signum).name} to the agent's process group"
            note = Note(0, self.clock(), "info", text)
            threading.Thread(target=self.sink.publish_event, args=(note,), daemon=True).start()


def run_proxy(config: ProxyConfig) -> int:
    """Run one proxied session to the end and return rpcspy's exit status."""
    return ProxySession(config).run()
