"""A proxied session run in a thread of this process, with pipes for the client's side.

``rpcspy repl`` (its local backend) and ``rpcspy drive`` are that client: they write commands
with :meth:`InProcessProxy.send` and get the numbered events from the proxy's observers.
Observers too slow for the agent slow it down as in ``rpcspy run``: gaps only once they
make no progress for the stall time (the commands' ``--gap-after``; without one ``RPCSPY_GAP_AFTER``,
default 2; 0: never wait).
"""

from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from rpcspy.backpressure import STALL_AFTER
from rpcspy.events import Event, Note
from rpcspy.pump.forward.session import ObserverFactory, Session
from rpcspy.pump.forward.spawn import signal_group

if TYPE_CHECKING:
    from rpcspy.pump.forward.hub import Observer
    from rpcspy.pump.proxy import ProxySession

OnEvents = Callable[[list[Event]], None]
OnEnd = Callable[[], None]
GAP_AFTER_ENV = "RPCSPY_GAP_AFTER"


def gap_after_from_env(environ: dict[str, str] | None = None) -> tuple[float, str | None]:
    """``RPCSPY_GAP_AFTER`` (seconds, at least 0) as ``rpcspy run --gap-after`` reads it, and what was
    wrong with it (then the default is used)."""
    text = (os.environ if environ is None else environ).get(GAP_AFTER_ENV, "").strip()
    try:
        value = float(text) if text else STALL_AFTER
    except ValueError:
        value = -1.0
    if value >= 0:
        return value, None
    return STALL_AFTER, f"{GAP_AFTER_ENV}={text!r} is not a number of seconds (at least 0): {STALL_AFTER:g} used"


class _EventsObserver:
    """Hands each batch of the hub's events to ``on_events``."""

    name = "repl"

    def __init__(self, on_events: OnEvents) -> None:
        self.on_events = on_events
        self.batch: list[Event] = []

    def handle(self, event: Event, emit: Any) -> None:
        self.batch.append(event)

    def handle_batch(self, events: list[Event]) -> None:
        self.batch += events

    def flush(self) -> None:
        if self.batch:
            batch, self.batch = self.batch, []
            self.on_events(batch)

    def close(self) -> None:
        self.flush()


class _Warn:
    """rpcspy's own warnings as notes among the events (the proxy would print them to stderr)."""

    def __init__(self, on_events: OnEvents, started: float) -> None:
        self.lock = threading.Lock()
        self.on_events = on_events
        self.started = started

    def __call__(self, message: str) -> None:
        self.on_events([Note(0, time.monotonic() - self.started, "warning", message)])


class InProcessProxy:
    """The agent behind a proxy running in a thread of this process, which is its only client.

    Its observers hand the events to ``on_events``, so the session is recorded (and
    checked, and offered on a control socket) exactly like a proxied one.
    ``on_events(list_of_events)`` and, once, ``on_end()`` are called from the proxy's
    threads; :meth:`send` returns an error text or None.
    """

    def __init__(self, argv: Sequence[str], record_path: str | None, *, env: dict[str, str] | None = None,
                 check: bool = True, dialect: str = "auto", control: bool = True, mode: str = "repl",
                 gap_after: float | None = None, observers: Sequence[ObserverFactory] = (),
                 record_fd: int | None = None) -> None:
        """``record_fd``: ``record_path`` already claimed (rpcspy.recording.claim), else the writer opens it."""
        self.argv = list(argv)
        self.observers = list(observers)
        """More observers (the live OpenTelemetry export), after the checker."""
        self.mode = mode
        self.record_path = record_path
        self.record_fd = record_fd
        self.env = env
        self.check = check
        self.dialect = dialect
        self.control = control
        self._env_problem: str | None = None
        if gap_after is None:
            gap_after, self._env_problem = gap_after_from_env()
        self.gap_after = gap_after
        """How long observers that make no progress are waited for before gaps (None: RPCSPY_GAP_AFTER)."""
        self.session: ProxySession | None = None
        self.exit_code: int | None = None
        self._w_in: int | None = None
        self._lock = threading.Lock()
        self._done = threading.Event()
        self._kills = 0

    @property
    def label(self) -> str:
        return " ".join(self.argv)

    def start(self, on_events: OnEvents, on_end: OnEnd) -> None:
        from rpcspy.pump.proxy import ProxyConfig, ProxySession

        r_in, self._w_in = os.pipe()
        r_out, w_out = os.pipe()
        r_err, w_err = os.pipe()
        factories: list[ObserverFactory] = [lambda _session: [_EventsObserver(on_events)]]
        factories[:0] = self.observers
        if self.check:
            factories.insert(0, self._checker)
        config = ProxyConfig(argv=self.argv, record_path=self.record_path, env=self.env, observers=factories,
                             stdin=r_in, stdout=w_out, stderr=w_err, observer_process=False, control=self.control,
                             mode=self.mode, gap_after=self.gap_after, record_fd=self.record_fd)
        self.session = session = ProxySession(config, warn=_Warn(on_events, time.monotonic()))
        if self._env_problem is not None:
            session.warn(self._env_problem)
        for fd in (r_out, r_err):  # the client's stdout and stderr: the observer shows them, drain the pipes
            threading.Thread(target=_drain, args=(fd,), daemon=True).start()

        def run() -> None:
            try:
                self.exit_code = session.run()
            except Exception as exc:  # noqa: BLE001 - shown, never raised into a thread's void
                on_events([Note(0, 0.0, "error", f"the proxy failed: {type(exc).__name__}: {exc}")])
                self.exit_code = 70
            finally:
                self.close_input()  # EOF ends the client relay; only then may its descriptor go
                relay = session.client_relay
                if relay is not None:
                    relay.join(2.0)
                if relay is None or not relay.is_alive():
                    _close(r_in)
                for fd in (w_out, w_err):
                    _close(fd)
                self._done.set()
                on_end()

        threading.Thread(target=run, name="rpcspy-repl-proxy", daemon=True).start()

    def _checker(self, _session: Session) -> list[Observer]:
        try:
            from rpcspy.pump.observers.check_observer import CheckObserver, CheckOptions
        except ImportError:
            return []
        return [CheckObserver(CheckOptions(dialect=self.dialect, summary_fd=-1))]

    def send(self, line: bytes) -> str | None:
        with self._lock:
            if self._w_in is None:
                return "the agent's stdin is closed"
            try:
                view = memoryview(line)
                while view:
                    view = view[os.write(self._w_in, view):]
            except OSError as exc:
                return f"cannot write to the agent: {exc.strerror or exc}"
        return None

    def close_input(self) -> None:
        """EOF to the agent (Ctrl-D)."""
        with self._lock:
            if self._w_in is not None:
                _close(self._w_in)
                self._w_in = None

    def wait(self, timeout: float | None = None) -> int | None:
        self._done.wait(timeout)
        return self.exit_code

    def terminate(self) -> None:
        """SIGTERM to the agent's process group; SIGKILL the second time."""
        self._kills += 1
        proc = self.session.proc if self.session is not None else None
        if proc is not None and proc.poll() is None:
            signal_group(proc.pid, signal.SIGTERM if self._kills == 1 else signal.SIGKILL)


def _drain(fd: int) -> None:
    try:
        while os.read(fd, 1 << 16):
            pass
    except OSError:
        pass
    _close(fd)


def _close(fd: int) -> None:
    try:
        os.close(fd)
    except OSError:
        pass
