"""The proxy session: spawn the agent, relay three streams, forward signals, exit like the agent."""

from __future__ import annotations

import os
import signal
import sys
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from rpcspy.events import Direction, Exit, Note, SpawnFailed, Start
from rpcspy.pump.hub import Hub, Observer
from rpcspy.pump.recorder import Recorder
from rpcspy.pump.relay import Relay, monotonic_clock
from rpcspy.pump.splice import AgentRelay, ClientRelay
from rpcspy.pump.spawn import SpawnError, enlarge_pipes, exit_status, spawn_agent
from rpcspy.recording.writer import RecordingWriter, make_header

FORWARDED_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
SWITCH_INTERVAL = 0.001
"""GIL switch interval while relaying: a relay thread waiting for the GIL behind the
hub thread waits at most this long (Python's default, 5 ms, throttles the relay)."""


@dataclass
class ProxyConfig:
    """Everything one proxied session needs; the CLI fills it in."""

    argv: Sequence[str]
    record_path: str | None
    env: dict[str, str] | None = None
    observers: list[Observer] = field(default_factory=list)
    stdin: int = 0
    stdout: int = 1
    stderr: int = 2
    control: bool = False
    """Offer a control socket (rpcspy inject / watch / sessions) for this session."""
    drain_timeout: float = 5.0
    """After the agent exits, how long to wait for its pipes to reach EOF (grandchildren may hold them)."""


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

    def __init__(self, config: ProxyConfig, *, warn: StderrWriter | None = None) -> None:
        self.config = config
        self.warn = warn or StderrWriter(config.stderr)
        self.clock = monotonic_clock()
        self.writer: RecordingWriter | None = None
        observers = list(config.observers)
        if config.record_path is not None:
            self.writer = RecordingWriter(config.record_path, make_header(config.argv), warn=self.warn)
            observers.insert(0, Recorder(self.writer))
        self.hub = Hub(observers, warn=self.warn)
        self.proc = None
        self.client_relay: ClientRelay | None = None
        self.agent_relay: AgentRelay | None = None
        self._signals_seen = 0

    def run(self) -> int:
        previous_interval = sys.getswitchinterval()
        sys.setswitchinterval(SWITCH_INTERVAL)
        try:
            return self._run()
        finally:
            sys.setswitchinterval(previous_interval)

    def _run(self) -> int:
        cfg, hub = self.config, self.hub
        hub.start()
        try:
            proc = spawn_agent(cfg.argv, cfg.env)
        except SpawnError as exc:
            self.warn(str(exc))
            hub.publish_event(SpawnFailed(0, self.clock(), str(exc), exc.code))
            hub.close()
            return exc.code
        self.proc = proc
        enlarge_pipes(proc)
        hub.publish_event(Start(0, self.clock(), proc.pid, list(cfg.argv)))
        relays = self._start_relays(proc)
        if cfg.control:
            self._start_control()
        previous = self._install_signals()
        try:
            returncode = proc.wait()
            for relay in relays[1:]:
                relay.join(cfg.drain_timeout)
                if relay.is_alive():
                    hub.publish_event(Note(0, self.clock(), "warning",
                                           f"{relay.direction} still open {cfg.drain_timeout}s after the agent exited "
                                           "(a child process holds the pipe); stopped waiting", dir=relay.direction))
        finally:
            self._restore_signals(previous)
        code, signum = exit_status(returncode)
        hub.publish_event(Exit(0, self.clock(), code, signum))
        hub.close()
        return code

    def _start_control(self) -> None:
        """Open the control socket; failing to is a warning, never fatal."""
        try:
            from rpcspy.pump.control import start_control
        except ImportError:
            return
        try:
            self.hub.add_observer(start_control(self))
        except Exception as exc:
            self.warn(f"control socket unavailable: {exc}")

    def _start_relays(self, proc) -> list[Relay]:  # type: ignore[no-untyped-def]
        cfg, hub = self.config, self.hub
        self.client_relay = ClientRelay("c2a", cfg.stdin, proc.stdin.fileno(), hub, self.clock,
                                        close_dst=proc.stdin.close, on_dst_closed=self._dst_closed)
        self.agent_relay = AgentRelay("a2c", proc.stdout.fileno(), cfg.stdout, hub, self.clock,
                                      on_dst_closed=self._dst_closed)
        relays = [
            self.client_relay,
            self.agent_relay,
            Relay("err", proc.stderr.fileno(), cfg.stderr, hub, self.clock,
                  on_dst_closed=self._dst_closed, dst_lock=self.warn.lock),
        ]
        for relay in relays:
            relay.start()
        return relays

    def inject(self, line: bytes) -> None:
        """Send one line to the agent between the client's frames (thread-safe)."""
        if self.client_relay is None:
            raise RuntimeError("the agent is not running")
        self.client_relay.inject(line)

    def divert_ids(self, prefix: bytes) -> None:
        """Keep responses whose id starts with ``prefix`` from the client (they answer injections)."""
        if self.agent_relay is None:
            raise RuntimeError("the agent is not running")
        self.agent_relay.divert_ids(prefix)

    def _dst_closed(self, direction: Direction, exc: OSError) -> None:
        where = {"c2a": "agent stdin", "a2c": "client stdout", "err": "rpcspy stderr"}[direction]
        text = f"{where} closed ({exc.strerror or exc}); {direction} frames are still recorded but no longer delivered"
        self.hub.publish_event(Note(0, self.clock(), "warning", text, dir=direction))

    def _install_signals(self) -> dict[int, object]:
        previous: dict[int, object] = {}
        if threading.current_thread() is not threading.main_thread():
            return previous
        for signum in FORWARDED_SIGNALS:
            previous[signum] = signal.signal(signum, self._forward_signal)
        return previous

    def _restore_signals(self, previous: dict[int, object]) -> None:
        for signum, handler in previous.items():
            signal.signal(signum, handler)  # type: ignore[arg-type]

    def _forward_signal(self, signum: int, _frame: object) -> None:
        """Pass the signal on; the third one in a row kills the agent (a stuck agent must not trap the user)."""
        self._signals_seen += 1
        target = signal.SIGKILL if self._signals_seen >= 3 else signum
        self.hub.publish_event(Note(0, self.clock(), "info", f"forwarded {signal.Signals(target).name} to the agent"))
        if self.proc is not None:
            try:
                os.kill(self.proc.pid, target)
            except ProcessLookupError:
                pass


def run_proxy(config: ProxyConfig) -> int:
    """Run one proxied session to the end and return rpcspy's exit status."""
    return ProxySession(config).run()


