"""Events that flow from the pump to observers: the pure core's view of a session.

The pump turns bytes read from pipes into these values; observers (recorder, checker,
renderers) consume them. Nothing here does I/O. Every event but :class:`Frame` is also the
recording's entry of its ``kind`` (one hierarchy); a frame is recorded in the form
:mod:`rpcspy.recording.format` gives it (its JSON embedded, or text, or base64) and read back
as a :class:`~rpcspy.recording.format.FrameEntry` (that stored form; ``to_frame()``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any, Literal, Union

import msgspec

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


Seq = Annotated[int, msgspec.Meta(ge=-(2**63), le=2**63 - 1)]
"""An entry's ``seq``: a 64-bit integer (a larger one in a recording is a damaged line, not a number to carry around)."""

# The events other than frames are the recording's entries: msgspec Structs tagged by ``kind``, written as
# they are (rpcspy.recording.format.encode_entry) and read back as themselves (rpcspy.recording.decode).
# Their field order is the order on disk (docs/recording-format.md): do not reorder.


class Start(msgspec.Struct, tag="start", tag_field="kind"):
    """The agent process was started."""

    seq: Seq
    t: float
    pid: int
    argv: list[str]


class SpawnFailed(msgspec.Struct, tag="spawn_failed", tag_field="kind"):
    """The agent process could not be started."""

    seq: Seq
    t: float
    error: str
    code: int


class Eof(msgspec.Struct, tag="eof", tag_field="kind"):
    """End of input in one direction."""

    seq: Seq
    t: float
    dir: Direction


class Exit(msgspec.Struct, tag="exit", tag_field="kind"):
    """The agent exited: ``code`` is the shell-style status (128+N for signal N)."""

    seq: Seq
    t: float
    code: int
    signal: int | None = None


NoteLevel = Literal["info", "warning", "error"]
NOTE_LEVELS: frozenset[str] = frozenset(("info", "warning", "error"))


class Note(msgspec.Struct, tag="note", tag_field="kind", omit_defaults=True):
    """Something rpcspy itself wants on record (a warning, a dropped observer, a gap).

    ``level`` is one of :data:`NOTE_LEVELS`; a recording's note of another level reads as ``info``."""

    seq: Seq
    t: float
    level: str
    text: str
    dir: Direction | None = None
    dropped_bytes: int = 0

    def __post_init__(self) -> None:
        if self.level not in NOTE_LEVELS:
            self.level = "info"


Severity = Literal["error", "warning", "info"]


class Finding(msgspec.Struct, tag="finding", tag_field="kind", omit_defaults=True):
    """A protocol violation (or remark) the checker found about one frame (``severity``: a :data:`Severity`)."""

    seq: Seq
    t: float
    rule: str
    severity: str
    group: str
    message: str
    frame: int | None = None
    dir: Direction | None = None
    path: str | None = None
    related: int | None = None
    extra: dict[str, Any] = msgspec.field(default_factory=dict)


Event = Union[Frame, Start, SpawnFailed, Eof, Exit, Note, Finding]


def frames_of(first: int, t: float, direction: Direction, lines: list[bytes], injected: bool = False) -> list[Frame]:
    """The frames ``first``, ``first + 1``, ... of ``lines`` (each read with its LF; a CR before it is
    taken off and flagged ``cr``), as the dispatcher numbers a chunk's lines."""
    return [Frame(seq, t, direction, line[:-1], True, True, injected) if line.endswith(b"\r")
            else Frame(seq, t, direction, line, True, False, injected)
            for seq, line in zip(range(first, first + len(lines)), lines, strict=True)]
