"""Choosing which recorded client frame answers a live one (``--match``). Pure.

Modes:

* ``exact`` (default): the first unused recorded frame with the same payload, the
  ``id`` aside and volatile values normalised (JSON-RPC: the same ``method``, a request
  never standing for a notification). Answers to agent requests
  (``extension_ui_response`` ...) must also name the same dialog once ids are mapped.
  A ``<redacted>`` in a recorded string stands for any text (a fixture redacts a secret
  wherever it occurs, also where the live frame gives no rule a hint that it is one).
* ``type``: the first unused recorded frame of the same ``type`` (answers: the same
  dialog), whatever the other fields say.
* ``sequence``: the next recorded frame in recorded order, which must have the same
  ``type``.

Identical frames are served in recorded order; with ``reuse`` a frame with no unused
match is answered by the most recently served match again.
"""

from __future__ import annotations

import re
from collections import deque
from typing import Any, Literal

import msgspec

from rpcspy.diff.jsondiff import distance, first_difference
from rpcspy.normalise.normaliser import Normaliser
from rpcspy.normalise.secrets import REDACTED
from rpcspy.replay.model import MISSING, ClientFrame, RecordedCommand

_REDACTED_KEY = REDACTED.encode()

MatchMode = Literal["exact", "type", "sequence"]
MATCH_MODES: tuple[str, ...] = ("exact", "type", "sequence")
DEFAULT_MODE: MatchMode = "exact"

_enc = msgspec.json.encode


class Match(msgspec.Struct):
    command: RecordedCommand
    reused: bool = False


class NoMatch(msgspec.Struct):
    message: str
    closest: RecordedCommand | None = None
    path: str | None = None


class NeedMore:
    """The recording is not fully indexed yet: index more, then ask again."""

    __slots__ = ()


NEED_MORE = NeedMore()
Choice = Match | NoMatch | NeedMore


def payload(frame: ClientFrame) -> Any:
    """What ``exact`` compares: the JSON value without the command ``id``."""
    if frame.kind == "command":
        return {k: v for k, v in frame.obj.items() if k != "id"}
    if frame.kind == "answer":
        return {k: v for k, v in frame.obj.items() if k != "id"}
    if frame.kind == "non_object":
        return frame.obj
    return frame.data.decode("utf-8", "replace")


def type_key(frame: ClientFrame, answer_id: Any = MISSING) -> bytes:
    """Key for ``type`` and ``sequence``: kind, type and, for answers, the dialog id."""
    if frame.kind == "invalid":
        return b"I"
    if frame.kind == "non_object":
        return b"N"
    key = b"T" + _enc(frame.type)
    if frame.rpc:  # a JSON-RPC notification is never served a request's exchange, nor the other way round
        key = b"R" + _enc(frame.type) + (b"!" if frame.kind == "command" and frame.id is MISSING else b"")
    if frame.kind == "answer":
        ident = frame.id if answer_id is MISSING else answer_id
        key += b"#" + (b"-" if ident is MISSING else _enc(ident))
    return key


def exact_key(frame: ClientFrame, norm: Normaliser, answer_id: Any = MISSING) -> bytes:
    """Key for ``exact``: :func:`type_key` plus the normalised payload."""
    value = payload(frame)
    body = norm.text(value) if isinstance(value, str) else norm.key(value)
    return type_key(frame, answer_id) + b"|" + (body.encode("utf-8", "surrogatepass") if isinstance(body, str) else body)


class Matcher:
    """Holds the recorded client frames seen so far and serves live ones from them."""

    def __init__(self, mode: MatchMode = DEFAULT_MODE, *, reuse: bool = False, normaliser: Normaliser) -> None:
        if mode not in MATCH_MODES:
            raise ValueError(f"unknown match mode {mode!r}")
        self.mode = mode
        self.reuse = reuse
        self.norm = normaliser
        self.commands: list[RecordedCommand] = []
        self.used: list[bool] = []
        self._keys: list[bytes] = []
        self._unused: dict[bytes, deque[int]] = {}
        self._last: dict[bytes, int] = {}
        self.cursor = 0
        """sequence mode: index of the next recorded frame to serve."""

    def key(self, frame: ClientFrame, answer_id: Any = MISSING) -> bytes:
        if self.mode == "exact":
            return exact_key(frame, self.norm, answer_id)
        return type_key(frame, answer_id)

    def add(self, command: RecordedCommand) -> None:
        """Register the next recorded client frame (in recorded order)."""
        assert command.index == len(self.commands), "recorded frames must be added in order"
        key = self.key(command.frame)
        self.commands.append(command)
        self.used.append(False)
        self._keys.append(key)
        self._unused.setdefault(key, deque()).append(command.index)

    def choose(self, live: ClientFrame, *, complete: bool, answer_id: Any = MISSING) -> Choice:
        """Pick the recorded frame for ``live``; mark it used. ``answer_id``: the mapped dialog id."""
        key = self.key(live, answer_id)
        if self.mode == "sequence":
            return self._sequence(live, key, complete)
        dq = self._unused.get(key)
        if dq:
            return self._serve(dq.popleft(), key)
        if not complete:
            return NEED_MORE
        if self.mode == "exact":
            redacted = self._redacted(live, answer_id)
            if redacted is not None:
                return self._serve(redacted, self._keys[redacted])
        if self.reuse and key in self._last:
            return self._serve(self._last[key], key, reused=True)
        return self._no_match(live, answer_id)

    def unconsumed(self) -> list[RecordedCommand]:
        return [c for c, u in zip(self.commands, self.used, strict=False) if not u]

    def take(self, index: int) -> None:
        """Mark a recorded frame used without a live frame (a dialog that timed out)."""
        if not self.used[index]:
            self.used[index] = True
            dq = self._unused.get(self._keys[index])
            if dq and index in dq:
                dq.remove(index)

    # -- internals -------------------------------------------------------------------------
    def _serve(self, index: int, key: bytes, reused: bool = False) -> Match:
        if not reused:
            self.used[index] = True
            dq = self._unused.get(key)
            if dq and index in dq:
                dq.remove(index)
        self._last[key] = index
        self.cursor = max(self.cursor, index + 1)
        return Match(self.commands[index], reused)

    def _sequence(self, live: ClientFrame, key: bytes, complete: bool) -> Choice:
        if self.cursor < len(self.commands):
            if self._keys[self.cursor] == key:
                return self._serve(self.cursor, key)
        elif not complete:
            return NEED_MORE
        if self.reuse and key in self._last:
            return self._serve(self._last[key], key, reused=True)
        if self.cursor >= len(self.commands):
            return NoMatch("the recording has no more client frames (--match sequence)")
        expected = self.commands[self.cursor]
        path = first_difference(self._norm(expected.frame), self._norm(live)) or "$"
        return NoMatch(f"expected {expected.describe()} next (--match sequence); differs at {path}", expected, path)

    def _redacted(self, live: ClientFrame, answer_id: Any) -> int | None:
        """The first unused recorded frame of the same type whose ``<redacted>`` strings cover ``live``'s."""
        tkey = type_key(live, answer_id) + b"|"
        live_norm: Any = MISSING
        for i, key in enumerate(self._keys):
            if self.used[i] or not key.startswith(tkey) or _REDACTED_KEY not in key:
                continue
            if live_norm is MISSING:
                live_norm = self._norm(live)
            if covers(self._norm(self.commands[i].frame), live_norm):
                return i
        return None

    def _norm(self, frame: ClientFrame) -> Any:
        value = payload(frame)
        return self.norm.text(value) if isinstance(value, str) else self.norm.value(value)

    def _no_match(self, live: ClientFrame, answer_id: Any) -> NoMatch:
        label = live.label
        tkey = type_key(live, answer_id)
        same = [i for i, c in enumerate(self.commands) if type_key(c.frame) == tkey]
        if not same:
            same_type = [i for i, c in enumerate(self.commands) if c.frame.type == live.type and c.frame.kind == live.kind]
            if live.kind == "answer" and same_type:
                ident = live.id if answer_id is MISSING else answer_id
                return NoMatch(
                    f"no recorded {label} for dialog {_enc(ident).decode() if ident is not MISSING else '(no id)'}",
                    self.commands[same_type[0]], "$.id",
                )
            nxt = self._next_unused()
            if nxt is None:
                return NoMatch(f"the recording has no {label} frame")
            return NoMatch(f"the recording has no {label} frame; next unused: {nxt.describe()}", nxt, "$.type")
        live_norm = self._norm(live)
        unused = [i for i in same if not self.used[i]]
        pool = unused or same
        # among unused: the earliest of the most similar; all used: the latest (what --reuse would serve)
        best = min(pool, key=lambda i: (distance(self._norm(self.commands[i].frame), live_norm), i if unused else -i))
        closest = self.commands[best]
        path = first_difference(self._norm(closest.frame), live_norm)
        if self.mode == "type" or path is None:
            return NoMatch(
                f"no unused recorded {label} frame (all {len(same)} served; --reuse serves them again); "
                f"last: {closest.describe()}", closest, path,
            )
        where = "" if unused else f" (all {len(same)} {label} frames already served; --reuse serves them again)"
        return NoMatch(f"no recorded match (--match exact){where}; closest: {closest.describe()} differs at {path}",
                       closest, path)

    def _next_unused(self) -> RecordedCommand | None:
        for i in range(self.cursor, len(self.commands)):
            if not self.used[i]:
                return self.commands[i]
        for i in range(len(self.commands)):
            if not self.used[i]:
                return self.commands[i]
        return None


def covers(recorded: Any, live: Any) -> bool:
    """``live`` equals ``recorded`` where each ``<redacted>`` in a recorded string may be any text."""
    if isinstance(recorded, str):
        if not isinstance(live, str):
            return False
        if REDACTED not in recorded:
            return recorded == live
        if recorded.count(REDACTED) > 32:
            return False  # each wildcard multiplies the backtracking
        pattern = ".+?".join(re.escape(part) for part in recorded.split(REDACTED))
        return re.fullmatch(pattern, live, re.S) is not None
    if isinstance(recorded, dict):
        return isinstance(live, dict) and recorded.keys() == live.keys() and \
            all(covers(v, live[k]) for k, v in recorded.items())
    if isinstance(recorded, list):
        return isinstance(live, list) and len(recorded) == len(live) and \
            all(covers(a, b) for a, b in zip(recorded, live, strict=True))
    return bool(recorded == live and type(recorded) is type(live))
