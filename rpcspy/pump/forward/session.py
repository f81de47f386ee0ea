"""What observers may ask of the proxied session they watch: one declared type for all of them.

Two classes satisfy it (mypy checks both where they are handed to observers): the proxy's own
:class:`~rpcspy.pump.proxy.ProxySession`, when observers run in its process (``rpcspy repl``,
``rpcspy drive``: :mod:`rpcspy.pump.inprocess`), and
:class:`~rpcspy.pump.forward.observer_process.ChildSession` in the forked observer process (``rpcspy run``),
whose requests go back to the proxy over a pipe.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from rpcspy.pump.forward.hub import Observer


class Session(Protocol):
    """The session's facts (for the control socket's registry) and the two ways to act on it."""

    @property
    def argv(self) -> list[str]:
        """The agent's command line."""

    @property
    def record_path(self) -> str | None:
        """Where the session is recorded (None: not recorded)."""

    @property
    def mode(self) -> str:
        """Who drives the agent: ``proxy``, ``repl`` or ``drive`` (the recording header's mode)."""

    @property
    def proxy_pid(self) -> int:
        """The pid of the proxy that forwards the streams (names the control socket)."""

    @property
    def started(self) -> float:
        """When the proxy started (Unix time)."""

    def inject(self, line: bytes) -> None:
        """Send one line (ending in LF) to the agent between the client's frames."""

    def divert_ids(self, prefix: bytes, within: float) -> bool:
        """Keep responses whose id starts with ``prefix`` from the client (they answer injections).

        True once that is armed, for good (the agent's output is read line by line from then on);
        False if not within ``within`` seconds: an injection that expects an answer must not be sent.
        The client's relays never wait for it."""


ObserverFactory = Callable[[Session], "list[Observer]"]
"""Builds extra observers; gets the session they may act on."""
