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
from collections.abc import Callable
from typing import Any

from rpcspy.pump.inprocess import InProcessProxy, OnEnd, OnEvents


class LocalBackend(InProcessProxy):
    """The agent behind an in-process proxy (:class:`~rpcspy.pump.inprocess.InProcessProxy`);
    the REPL is its only client."""

    injecting = False

    def detach(self) -> None:
        self.close_input()


class RemoteBackend:
    """A live proxy's control socket: commands are injected, events are subscribed to."""

    injecting = True
    record_path: str | None = None
    """The proxy records the session, not this client (``rpcspy sessions`` says where)."""

    def __init__(self, socket_path: str, *, backlog: int = 200, label: str = "") -> None:
        self.socket_path = socket_path
        self.backlog = backlog
        self.label = label or socket_path
        self.client: Any = None
        self.exit_code: int | None = None
        self.on_response: Callable[[dict[str, Any]], None] | None = None

    def start(self, on_events: OnEvents, on_end: OnEnd) -> None:
        from rpcspy.pump.observers.control_client import ControlClient
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
