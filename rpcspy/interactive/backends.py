"""Where the REPL's commands go and its events come from.

* :class:`LocalBackend` (``rpcspy repl -- AGENT``): the proxy runs in a thread of
  this process with pipes for the client's side; the REPL is that client. Its
  observer hands the events to the REPL, so the session is recorded (and
  checked, and offered on a control socket) exactly like a proxied one.
* :class:`RemoteBackend` (``rpcspy inject``): a live proxy's control socket;
  commands are injected, events come from the subscription.

Both call ``on_events(list_of_events)`` and, once, ``on_end()`` from their own
threads; ``send(line)`` returns an error text or None.
"""

from __future__ import annotations

import json
import os
import signal
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any

from rpcspy.events import Event, Note

OnEvents = Callable[[list[Event]], None]
OnEnd = Callable[[], None]


class _ReplObserver:
    """Hands each batch of the hub's events to the REPL."""

    name = "repl"

    def __init__(self, on_events: OnEvents) -> None:
        self.on_events = on_events
        self.batch: list[Event] = []

    def handle(self, event: Event, emit: Any) -> None:
        self.batch.append(event)

    def flush(self) -> None:
        if self.batch:
            batch, self.batch = self.batch, []
            self.on_events(batch)

    def close(self) -> None:
        self.flush()


class _Warn:
    """rpcspy's own warnings, shown in the REPL (the proxy would print them to stderr)."""

    def __init__(self, on_events: OnEvents, started: float) -> None:
        self.lock = threading.Lock()
        self.on_events = on_events
        self.started = started

    def __call__(self, message: str) -> None:
        self.on_events([Note(0, time.monotonic() - self.started, "warning", message)])


class LocalBackend:
    """The agent behind an in-process proxy; this process is its only client."""

    injecting = False

    def __init__(self, argv: Sequence[str], record_path: str | None, *, env: dict[str, str] | None = None,
                 check: bool = True, dialect: str = "auto", control: bool = True, mode: str = "repl") -> None:
        self.argv = list(argv)
        self.mode = mode
        self.record_path = record_path
        self.env = env
        self.check = check
        self.dialect = dialect
        self.control = control
        self.session: Any = None
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
        factories: list[Any] = [lambda _session: [_ReplObserver(on_events)]]
        if self.check:
            factories.insert(0, self._checker)
        config = ProxyConfig(argv=self.argv, record_path=self.record_path, env=self.env, observers=factories,
                             stdin=r_in, stdout=w_out, stderr=w_err, observer_process=False, control=self.control,
                             mode=self.mode)
        self.session = ProxySession(config, warn=_Warn(on_events, time.monotonic()))  # type: ignore[arg-type]
        for fd in (r_out, r_err):  # the client's stdout and stderr: the observer shows them, drain the pipes
            threading.Thread(target=_drain, args=(fd,), daemon=True).start()

        def run() -> None:
            try:
                self.exit_code = self.session.run()
            except Exception as exc:  # noqa: BLE001 - shown, never raised into a thread's void
                on_events([Note(0, 0.0, "error", f"the proxy failed: {type(exc).__name__}: {exc}")])
                self.exit_code = 70
            finally:
                self.close_input()  # EOF ends the client relay; only then may its descriptor go
                relay = getattr(self.session, "client_relay", None)
                if relay is not None:
                    relay.join(2.0)
                if relay is None or not relay.is_alive():
                    _close(r_in)
                for fd in (w_out, w_err):
                    _close(fd)
                self._done.set()
                on_end()

        threading.Thread(target=run, name="rpcspy-repl-proxy", daemon=True).start()

    def _checker(self, _session: Any) -> list[Any]:
        try:
            from rpcspy.pump.check_observer import CheckObserver, CheckOptions
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
        """SIGTERM to the agent; SIGKILL the second time."""
        self._kills += 1
        proc = getattr(self.session, "proc", None)
        if proc is not None and proc.poll() is None:
            try:
                os.kill(proc.pid, signal.SIGTERM if self._kills == 1 else signal.SIGKILL)
            except ProcessLookupError:
                pass

    def detach(self) -> None:
        self.close_input()


class RemoteBackend:
    """A live proxy's control socket: commands are injected, events are subscribed to."""

    injecting = True

    def __init__(self, socket_path: str, *, backlog: int = 200, label: str = "") -> None:
        self.socket_path = socket_path
        self.backlog = backlog
        self.label = label or socket_path
        self.client: Any = None
        self.exit_code: int | None = None
        self.on_response: Callable[[dict[str, Any]], None] | None = None

    def start(self, on_events: OnEvents, on_end: OnEnd) -> None:
        from rpcspy.control_client import ControlClient
        from rpcspy.recording.entries import entry_to_event

        def on_entry(entry: Any) -> None:
            on_events([entry_to_event(entry)])

        self.client = ControlClient(self.socket_path, on_entry=on_entry, on_close=on_end,
                                    on_response=lambda msg: self.on_response and self.on_response(msg))
        reply = self.client.subscribe(self.backlog)
        if not reply.get("ok"):
            raise ConnectionError(str(reply.get("error")))

    def send(self, line: bytes) -> str | None:
        try:
            obj = json.loads(line)
        except ValueError:
            return "only JSON objects can be injected (the agent's answer to anything else would reach the client)"
        try:
            reply = self.client.inject(obj)
        except (OSError, TimeoutError, ConnectionError) as exc:
            return f"cannot inject: {exc}"
        return None if reply.get("ok") else str(reply.get("error"))

    def close_input(self) -> None:
        self.detach()

    def detach(self) -> None:
        if self.client is not None:
            self.client.close()

    def wait(self, timeout: float | None = None) -> int | None:
        return 0

    def terminate(self) -> None:
        self.detach()


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
