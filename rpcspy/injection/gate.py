"""Where injected lines may enter the client's byte stream: between the client's lines, never inside one.

A :class:`LineGate` follows the client's bytes chunk by chunk (split anywhere) and says, for each
chunk, where the lines waiting to be injected go. Lines end at LF (a CR before it is part of the line).
"""

from __future__ import annotations


class LineGate:
    """Boundary tracking over chunks (no I/O). :attr:`at_boundary`: the bytes so far end a line."""

    __slots__ = ("at_boundary",)

    def __init__(self) -> None:
        self.at_boundary = True

    def cut(self, chunk: bytes, waiting: bool) -> int | None:
        """Take the client's next chunk; with injections ``waiting``, the offset ``k`` where they
        enter (``chunk[:k]``, the injections, ``chunk[k:]``), or None if not in or right after this
        chunk (they wait for a later line end; a chunk ending in LF returns ``len(chunk)``)."""
        at_start = self.at_boundary
        if chunk:
            self.at_boundary = chunk.endswith(b"\n")
        if not waiting:
            return None
        if at_start:
            return 0
        nl = chunk.find(b"\n")
        return nl + 1 if nl >= 0 else None
