"""The tracker's records: a client command and what became of it, a request the agent waits on."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(slots=True, eq=False)
class Cmd:
    """A client command and what became of it."""

    seq: int
    t: float
    type: str | None
    id: Any
    busy: bool
    """The agent was busy (a run open or not yet settled) when it was sent."""
    resp: int | None = None
    resp_t: float = 0.0
    success: Any = None
    disposition: str | None = None
    message: str | None = None
    behavior: bool = False
    """A prompt carrying ``streamingBehavior`` (queued when sent during a run)."""
    behind: bool = False
    """A run command sent while an earlier one had not started its run yet."""

    @property
    def slash(self) -> bool:
        """A prompt naming a command (``/name``): an extension command may run without a run."""
        return isinstance(self.message, str) and self.message.startswith("/")


@dataclass(slots=True)
class Waiting:
    """Something the agent asked for and waits on (a dialog, a host tool call or URI request)."""

    seq: int
    t: float
    kind: str
    id: Any
    what: str
    deadline: float | None = None
