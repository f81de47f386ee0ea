"""The pipe protocol between the proxy and its observer process.

Each message is a fixed header ``<kind u8, dir u8, flags u8, pad, t f64, length u64>``
followed by ``length`` payload bytes. Data messages carry forwarded chunks as they
are; events are pickled (both ends are the same rpcspy, fork()ed). The same
framing carries commands back (inject a line, divert an id prefix).
"""

from __future__ import annotations

import pickle
import struct
from collections.abc import Iterator
from typing import NamedTuple

from rpcspy.events import DIRECTIONS, Direction, Event

HEADER = struct.Struct("<BBBxdQ")
DATA, EOF, EVENT, INJECT, DIVERT, GAP = 1, 2, 3, 4, 5, 7
"""GAP: bytes forwarded but not handed over (payload: :data:`GAP_COUNTS` then the reason, UTF-8)."""
GAP_COUNTS = struct.Struct("<QI")
"""bytes not recorded, events not recorded."""
INJECTED = 1
_DIR_INDEX = {d: i for i, d in enumerate(DIRECTIONS)}


class Message(NamedTuple):
    kind: int
    dir: Direction
    flags: int
    t: float
    payload: bytes
    length: int = 0
    """The header's length: of the payload."""


def header(kind: int, direction: Direction, t: float, length: int, flags: int = 0) -> bytes:
    return HEADER.pack(kind, _DIR_INDEX[direction], flags, t, length)


def event_message(event: Event) -> list[bytes]:
    payload = pickle.dumps(event, protocol=pickle.HIGHEST_PROTOCOL)
    return [header(EVENT, "c2a", 0.0, len(payload)), payload]


def gap_message(direction: Direction, t: float, size: int, reason: str, events: int = 0) -> list[bytes]:
    payload = GAP_COUNTS.pack(size, events) + reason.encode()
    return [header(GAP, direction, t, len(payload)), payload]


def load_gap(payload: bytes) -> tuple[int, int, str]:
    """(bytes, events, reason) of a GAP message."""
    size, events = GAP_COUNTS.unpack_from(payload)
    return size, events, payload[GAP_COUNTS.size:].decode()


def command_message(kind: int, payload: bytes) -> bytes:
    return header(kind, "c2a", 0.0, len(payload)) + payload


def load_event(payload: bytes) -> Event:
    return pickle.loads(payload)  # noqa: S301 - written by our own parent process


class WireDecoder:
    """Incremental decoder: ``feed()`` bytes, get whole messages."""

    def __init__(self) -> None:
        self._buf = bytearray()

    @property
    def pending(self) -> int:
        """Bytes of an incomplete message (non-zero at EOF means the writer died mid-message)."""
        return len(self._buf)

    def feed(self, data: bytes) -> Iterator[Message]:
        buf = self._buf
        buf += data
        pos = 0
        size = HEADER.size
        while len(buf) - pos >= size:
            kind, d, flags, t, length = HEADER.unpack_from(buf, pos)
            end = pos + size + length
            if end > len(buf):
                break
            yield Message(kind, DIRECTIONS[d], flags, t, bytes(buf[pos + size:end]), length)
            pos = end
        del buf[:pos]
