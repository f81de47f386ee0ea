"""Events that flow from the pump to observers: the pure core's view of a session.

The pump turns bytes read from pipes into these values; observers (recorder, checker,
renderers) consume them. Nothing here does I/O.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal, Union

Direction = Literal["c2a", "a2c", "err"]
"""c2a: client -> agent stdin; a2c: agent stdout -> client; err: agent stderr."""

DIRECTIONS: tuple[Direction, ...] = ("c2a", "a2c", "err")
ARROWS: dict[str, str] = {"c2a": "→", "a2c": "←", "err": "!"}


@dataclass(slots=True)
class Frame:
    """One line of one direction: the bytes between two LFs, without the LF.

    ``cr`` is set when the line ended in CR LF; ``data`` then excludes that CR.
    ``nl`` is False only for a last line that ended at EOF without LF.
    """

    seq: int
    t: float
    dir: Direction
    data: bytes
    nl: bool = True
    cr: bool = False
    injected: bool = False

    def raw(self) -> bytes:
        """The exact bytes as they crossed the pipe, line terminator included."""
        return self.data + (b"\r" if self.cr else b"") + (b"\n" if self.nl else b"")


@dataclass(slots=True)
class Start:
    """The agent process was started."""

    seq: int
    t: float
    pid: int
    argv: list[str]


@dataclass(slots=True)
class SpawnFailed:
    """The agent process could not be started."""

    seq: int
    t: float
    error: str
    code: int


@dataclass(slots=True)
class Eof:
    """End of input in one direction."""

    seq: int
    t: float
    dir: Direction


@dataclass(slots=True)
class Exit:
    """The agent exited: ``code`` is the shell-style status (128+N for signal N)."""

    seq: int
    t: float
    code: int
    signal: int | None = None


@dataclass(slots=True)
class Note:
    """Something rpcspy itself wants on record (a warning, a dropped observer, a gap)."""

    seq: int
    t: float
    level: Literal["info", "warning", "error"]
    text: str
    dir: Direction | None = None
    dropped_bytes: int = 0


@dataclass(slots=True)
class Finding:
    """A protocol violation (or remark) the checker found about one frame."""

    seq: int
    t: float
    rule: str
    severity: Literal["error", "warning", "info"]
    group: str
    message: str
    frame: int | None = None
    dir: Direction | None = None
    path: str | None = None
    related: int | None = None
    extra: dict[str, Any] = field(default_factory=dict)


Event = Union[Frame, Start, SpawnFailed, Eof, Exit, Note, Finding]


def frames_of(first: int, t: float, direction: Direction, lines: list[bytes], injected: bool = False) -> list[Frame]:
    """The frames ``first``, ``first + 1``, ... of ``lines`` (each read with its LF; a CR before it is
    taken off and flagged ``cr``), as the dispatcher numbers a chunk's lines."""
    return [Frame(seq, t, direction, line[:-1], True, True, injected) if line.endswith(b"\r")
            else Frame(seq, t, direction, line, True, False, injected)
            for seq, line in zip(range(first, first + len(lines)), lines, strict=True)]
