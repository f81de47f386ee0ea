"""Pairing responses with the commands that caused them (pure, incremental).

pi does not always echo ``id``: parse errors, non-object frames and, before
0.79, unknown commands get id-less responses. The pairer therefore matches in
this order: by ``id`` when the response has one; a ``"parse"`` response with
the oldest unanswered line that was not JSON; a response without ``command``
with the oldest unanswered frame that had no string ``type``; otherwise the
oldest unanswered command whose type equals the response's ``command``.
omp answers a prompt sent while streaming twice with the same id; the second
response is paired again with the command (``repeat`` is then True).
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from typing import Any

import msgspec

from rpcspy.protocol.vocabulary import ANSWER_TYPES as INPUT_NOT_COMMANDS
from rpcspy.render.frameinfo import NOT_JSON



@dataclass(slots=True)
class Pending:
    """A client frame waiting for its response."""

    seq: int
    t: float
    command: str | None
    """The frame's ``type``, or None for a frame that is not a typed JSON object."""
    id_key: bytes | None
    """The ``id`` re-encoded as JSON, so ``5`` and ``"5"`` differ; None when absent."""
    parse_error: bool
    answered: bool = False


@dataclass(slots=True)
class Match:
    """The command a response answers."""

    command: Pending
    latency: float
    repeat: bool = False


def _id_key(obj: dict) -> bytes | None:
    if "id" not in obj:
        return None
    try:
        return msgspec.json.encode(obj["id"])
    except (TypeError, msgspec.EncodeError):
        return None


class Pairer:
    """Feed client frames with :meth:`command`, agent responses with :meth:`response`."""

    def __init__(self) -> None:
        self._by_id: dict[bytes, deque[Pending]] = {}
        self._by_type: dict[str, deque[Pending]] = {}
        self._unparsed: deque[Pending] = deque()
        self._untyped: deque[Pending] = deque()
        self._last_by_id: dict[bytes, Pending] = {}

    def command(self, seq: int, t: float, obj: Any) -> Pending | None:
        """Register a client frame; None when it expects no response (dialog answers)."""
        if obj is NOT_JSON:
            p = Pending(seq, t, None, None, True)
            self._unparsed.append(p)
            return p
        if not isinstance(obj, dict) or not isinstance(obj.get("type"), str):
            p = Pending(seq, t, None, _id_key(obj) if isinstance(obj, dict) else None, False)
            self._untyped.append(p)
            if p.id_key is not None:
                self._by_id.setdefault(p.id_key, deque()).append(p)
            return p
        if obj["type"] in INPUT_NOT_COMMANDS:
            return None
        p = Pending(seq, t, obj["type"], _id_key(obj), False)
        self._by_type.setdefault(p.command, deque()).append(p)  # type: ignore[arg-type]
        if p.id_key is not None:
            self._by_id.setdefault(p.id_key, deque()).append(p)
        return p

    def response(self, t: float, obj: dict) -> Match | None:
        """Find the command a response answers (and mark it answered)."""
        key = _id_key(obj)
        cmd = obj.get("command")
        if key is not None:
            p = _pop(self._by_id.get(key))
            if p is None:
                last = self._last_by_id.get(key)
                return Match(last, t - last.t, repeat=True) if last is not None else None
        elif cmd == "parse":
            p = _pop(self._unparsed) or _pop(self._untyped)  # omp: `null` is a parse error
        elif not isinstance(cmd, str):
            p = _pop(self._untyped) or _pop(self._unparsed)
        else:
            p = _pop(self._by_type.get(cmd))
        if p is None:
            return None
        p.answered = True
        if p.id_key is not None:
            self._last_by_id[p.id_key] = p
        return Match(p, t - p.t)

    def unanswered(self) -> list[Pending]:
        """Commands still waiting, oldest first."""
        seen: dict[int, Pending] = {}
        for q in (*self._by_type.values(), self._unparsed, self._untyped):
            for p in q:
                if not p.answered:
                    seen[p.seq] = p
        return [seen[s] for s in sorted(seen)]


def _pop(q: deque[Pending] | None) -> Pending | None:
    """Oldest unanswered entry of a queue; answered ones are dropped lazily."""
    while q:
        p = q.popleft()
        if not p.answered:
            return p
    return None
