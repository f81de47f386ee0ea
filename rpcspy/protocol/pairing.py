"""Which command a response answers: the one pairing model of rpcspy (pure, incremental).

check, show, export, stats, the REPL, the diagnosis (``rpcspy why``, watch, drive) and replay's id
mapping all pair through :class:`Pairing`, so they agree. pi does not serialise commands, so
responses arrive out of order and are matched by ``id``. Lines that get id-less answers (unparsable
lines, non-objects, commands without ``id``) wait in a FIFO and are matched by the response's
``command`` (``"parse"`` for a line that was not JSON). Only when no such line waits does an
id-less *error* fall back to a command with an id and the same type (pi 0.73 and omp 18.2.3 answer
unknown commands without their id). omp answers a prompt sent while streaming twice under one id
(success, then error): that second response is a ``repeat``. omp skips a blank client line
(:func:`is_blank`) without answering; pi answers it with a ``parse`` error. The ``omp`` flags say
the session is omp's (its dialect: detected as ``check`` does).

JSON-RPC 2.0 (ACP) pairs with the same model: :class:`Conversation` keeps one :class:`Pairing` per
side that sends requests (each side numbers its own: independent id spaces, numbers or strings), keyed
by ``method``; a response goes to the pairing of the other side's requests, and a notification waits
for nothing.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from itertools import islice
from typing import Any, Literal

import msgspec

from rpcspy.protocol.bounded import trim_oldest
from rpcspy.protocol.vocabulary import ANSWER_TYPES

_encode = msgspec.json.encode
MISSING: Any = object()
"""``type``, ``id`` or ``command`` absent from the frame."""
PARSE = "parse"
"""The ``command`` of the answer to a line that is not JSON (and the expectation it meets)."""
NONOBJECT: Any = object()
"""Expected id-less answer to a JSON value that is not an object."""
IDLESS_CAP = 4096
ANSWERED_CAP = 16384
WAITING_CAP = 65536
"""A bounded pairing's bound on commands with an id still waiting."""
BOUNDED_ANSWERED_CAP = 4096
"""A bounded pairing's :data:`ANSWERED_CAP` (enough for omp's second answer, which follows the first)."""


def id_key(value: Any) -> Any:
    """A hashable key for any JSON id (pi echoes ids of every JSON type); ``5`` and ``"5"`` differ."""
    return value if type(value) is str else _encode(value)


def is_blank(line: bytes) -> bool:
    """An empty or whitespace-only line (omp trims each line and skips it when nothing is left)."""
    return not line.strip()


def show_id(value: Any) -> str:
    return _encode(value).decode("utf-8", "replace")


def show_type(value: Any) -> str:
    return "(no type)" if value is MISSING or value is None else f"`{value}`" if isinstance(value, str) else repr(value)


class Pending:
    """A client line waiting for its response."""

    __slots__ = ("seq", "t", "type", "id", "unparsed", "blank", "message", "behavior", "reported", "note", "answers")

    def __init__(self, seq: int, t: float, type: Any, id: Any, obj: dict[str, Any], unparsed: bool = False) -> None:
        self.seq, self.t, self.type, self.id = seq, t, type, id
        self.unparsed = unparsed
        """The line was not JSON (``type`` is then :data:`PARSE`)."""
        self.blank = False
        """A blank line (:func:`is_blank`), taken for pi's while the dialect was not known."""
        message = obj.get("message")
        self.message: str | None = message if isinstance(message, str) else None
        self.behavior = "streamingBehavior" in obj
        """The command carried ``streamingBehavior`` (prompt)."""
        self.reported = False
        self.answers = 0
        """Responses matched to this command so far (2 for omp's success-then-error)."""
        self.note: Any = None
        """The pairing's user's slot: the checker's rules (e.g. "sent while streaming"), the
        diagnosis tracker's :class:`~rpcspy.diagnose.state.Cmd`."""

    def label(self) -> str:
        shown = "" if self.id is MISSING else f" (id {show_id(self.id)})"
        return f"{show_type(self.type)}{shown}"

    @property
    def name(self) -> str:
        """The command type for tables: ``(invalid)`` for a line that was not JSON, ``(no type)``."""
        if self.unparsed:
            return "(invalid)"
        return self.type if isinstance(self.type, str) else "(no type)"


Kind = Literal["id", "idless", "idless_error", "repeat", "duplicate", "unknown_id", "unexpected"]


@dataclass(slots=True)
class Answer:
    """What one response answers.

    ``kind``: ``id`` (matched by id), ``idless`` (an id-less answer to a line without id),
    ``idless_error`` (an error that dropped its command's id), ``repeat`` (omp's second response
    to a prompt), ``duplicate`` (another response to an id already answered), ``unknown_id`` and
    ``unexpected`` (no command waits for it: ``command`` is None).
    """

    kind: Kind
    command: Pending | None = None
    first: int | None = None
    """``duplicate``: the seq of the first response to that id."""
    mismatch: bool = False
    """Matched by id, but the response's ``command`` differs from the command's type."""

    @property
    def fresh(self) -> bool:
        """The response is the first answer to its command."""
        return self.kind in ("id", "idless", "idless_error")


class _Answered:
    __slots__ = ("p", "resp", "success")

    def __init__(self, p: Pending, resp: int, success: Any) -> None:
        self.p, self.resp, self.success = p, resp, success


class Pairing:
    """Commands waiting for responses; feed client lines and agent responses in stream order.

    ``bounded`` (the checker and the diagnosis tracker, which run live): a session that never answers
    must not grow without end. Past :data:`WAITING_CAP` commands with an id waiting, the oldest are
    forgotten (counted in ``forgotten``), and answered ids are kept up to :data:`BOUNDED_ANSWERED_CAP`.
    Unbounded (show, stats, the timeline), each command waits until answered.
    """

    def __init__(self, *, bounded: bool = False, jsonrpc: bool = False, answered: bool = False) -> None:
        """``answered``: keep answered ids up to :data:`ANSWERED_CAP` even when ``bounded`` (the checker)."""
        self._jsonrpc = jsonrpc
        """JSON-RPC 2.0: a request's kind is its ``method``, and a response names none (no ``command``)."""
        self.pending: dict[Any, Pending] = {}
        """Commands with an id, by :func:`id_key`, oldest first."""
        self._reused: dict[Any, list[Pending]] = {}
        self._nreused = 0
        self._bounded = bounded
        self._answered_cap = BOUNDED_ANSWERED_CAP if bounded and not answered else ANSWERED_CAP
        self._idless: deque[tuple[Any, Pending]] = deque()
        self._answered: dict[Any, _Answered] = {}
        self.forgotten = 0
        """Commands with an id forgotten unanswered by the bound (``bounded`` only)."""

    # ---- client lines ----------------------------------------------------------------------
    def client(self, seq: int, t: float, obj: Any, *, parsed: bool = True, blank: bool = False,
               omp: bool = False) -> Pending | None:
        """Any client line (``parsed=False`` when it was not JSON, ``blank`` when :func:`is_blank`);
        None for answers to the agent and, with ``omp``, for blank lines (no answer comes back)."""
        if not parsed:
            if blank and omp:
                return None
            p = self.expect_idless(seq, t, PARSE)
            p.blank = blank
            return p
        if type(obj) is not dict:
            return self.expect_idless(seq, t, NONOBJECT)
        if obj.get("type") in ANSWER_TYPES:
            return None
        return self.command(seq, t, obj)[0]

    def expect_idless(self, seq: int, t: float, expect: Any) -> Pending:
        """A line pi answers with an id-less error: not JSON (:data:`PARSE`) or not an object."""
        p = Pending(seq, t, expect, MISSING, {}, unparsed=expect is PARSE)
        self._push_idless(expect, p)
        return p

    def command(self, seq: int, t: float, obj: dict[str, Any]) -> tuple[Pending, Pending | None]:
        """Register a command; returns it and the older command still waiting under the same id."""
        ctype = obj.get("method" if self._jsonrpc else "type", MISSING)
        if "id" not in obj:
            p = Pending(seq, t, ctype, MISSING, obj)
            self._push_idless(ctype, p)
            return p, None
        p = Pending(seq, t, ctype, obj["id"], obj)
        key = id_key(obj["id"])
        older = self.pending.get(key)
        if older is not None:
            self._reused.setdefault(key, []).append(p)
            self._nreused += 1
        else:
            self.pending[key] = p
        if self._bounded:
            self._bound()
        return p, older

    def _bound(self) -> None:
        """Forget the oldest waiting commands (a quarter of the cap at a time, as ``trim_oldest``)."""
        if len(self.pending) > WAITING_CAP + WAITING_CAP // 4:
            for key in list(islice(self.pending, len(self.pending) - WAITING_CAP)):
                del self.pending[key]
                n = len(self._reused.pop(key, ()))
                self._nreused -= n
                self.forgotten += 1 + n
        while self._nreused > WAITING_CAP:
            n = len(self._reused.pop(next(iter(self._reused))))
            self._nreused -= n
            self.forgotten += n

    def _push_idless(self, expect: Any, p: Pending) -> None:
        self._idless.append((expect, p))
        if len(self._idless) > IDLESS_CAP:
            self._idless.popleft()

    def omp_now(self) -> None:
        """The session turned out to be omp's (live, the dialect is learnt from the agent's frames): the
        blank lines still waiting for a ``parse`` answer get none."""
        if any(p.blank for _, p in self._idless):
            self._idless = deque(item for item in self._idless if not item[1].blank)

    # ---- responses -------------------------------------------------------------------------
    def response(self, seq: int, obj: dict[str, Any], *, omp: bool = False) -> Answer:
        """Pair a response frame (``omp``: its prompts may be answered twice)."""
        if self._jsonrpc:
            return self._rpc_response(seq, obj)
        cmd = obj.get("command", MISSING)
        success = obj.get("success")
        if "id" in obj:
            return self._by_id(seq, id_key(obj["id"]), cmd, success, omp)
        for i, (expect, p) in enumerate(self._idless):
            if _compatible(expect, cmd):
                del self._idless[i]
                p.answers += 1
                return Answer("idless", p)
        if success is False:
            for key, p in self.pending.items():
                if p.type == cmd or (cmd is MISSING and p.type is MISSING):
                    self._pop(key)
                    self._remember(key, p, seq, success)
                    return Answer("idless_error", p)
        return Answer("unexpected")

    def _rpc_response(self, seq: int, obj: dict[str, Any]) -> Answer:
        """A JSON-RPC response: by its id; ``id: null`` answers a message that could not be read (JSON-RPC
        5: parse error, invalid request), the oldest such line waiting."""
        rid = obj.get("id")
        success = "error" not in obj
        if rid is None:
            for i, (_, p) in enumerate(self._idless):
                del self._idless[i]
                p.answers += 1
                return Answer("idless", p)
            return Answer("unexpected")
        return self._by_id(seq, id_key(rid), MISSING, success, False)

    def _by_id(self, seq: int, key: Any, cmd: Any, success: Any, omp: bool) -> Answer:
        p = self._pop(key)
        if p is None:
            done = self._answered.get(key)
            if done is None:
                return Answer("unknown_id")
            if omp and done.p.type == "prompt" and done.success is True and success is False and done.p.answers == 1:
                done.p.answers += 1
                return Answer("repeat", done.p)
            return Answer("duplicate", done.p, first=done.resp)
        self._remember(key, p, seq, success)
        if self._jsonrpc:
            return Answer("id", p)
        return Answer("id", p, mismatch=cmd != p.type and not (cmd is MISSING and p.type is MISSING))

    def _pop(self, key: Any) -> Pending | None:
        p = self.pending.pop(key, None)
        if p is None:
            return None
        queue = self._reused.get(key)
        if queue:
            self.pending[key] = queue.pop(0)
            self._nreused -= 1
            if not queue:
                del self._reused[key]
        return p

    def _remember(self, key: Any, p: Pending, resp: int, success: Any) -> None:
        p.answers += 1
        self._answered[key] = _Answered(p, resp, success)
        trim_oldest(self._answered, self._answered_cap)

    def owner(self, id: Any) -> Pending | None:
        """The command another echo of ``id`` (``bash_execution_update``, ``prompt_result``) belongs
        to: the one the next response with that id answers, else the last one it answered."""
        key = id_key(id)
        p = self.pending.get(key)
        if p is None and (done := self._answered.get(key)) is not None:
            return done.p
        return p

    # ---- what waits ------------------------------------------------------------------------
    def waiting_with_id(self) -> list[Pending]:
        """Commands with an id still waiting (those that reuse a waiting id too), oldest first."""
        leftovers = list(self.pending.values()) + [p for q in self._reused.values() for p in q]
        return sorted(leftovers, key=lambda p: p.seq)

    def unanswered(self) -> list[Pending]:
        """Every line still waiting for an answer, with or without id, oldest first."""
        return sorted(self.waiting_with_id() + [p for _, p in self._idless], key=lambda p: p.seq)

    def __repr__(self) -> str:
        waiting = [(p.seq, p.answers) for p in self.unanswered()]
        answered = [(a.p.seq, a.resp, a.success) for a in self._answered.values()]
        return f"Pairing(waiting={waiting}, answered={answered})"

    def forget(self) -> None:
        """End of session: nothing waits any more."""
        self.pending.clear()
        self._reused.clear()
        self._nreused = 0


def _compatible(expect: Any, cmd: Any) -> bool:
    if expect is NONOBJECT:
        return cmd is MISSING or cmd == PARSE
    if expect is MISSING:
        return cmd is MISSING
    return bool(cmd == expect)


class Conversation:
    """JSON-RPC 2.0 pairing (ACP): requests both ways, each side's in its own id space.

    ``message`` takes every decoded message in stream order and says what it was: a request (its
    :class:`Pending`, waiting in the sender's pairing), a notification (nothing waits) or a response
    (the :class:`Answer` from the pairing of the other side's requests)."""

    def __init__(self, *, bounded: bool = False) -> None:
        self.sides = {"c2a": Pairing(bounded=bounded, jsonrpc=True), "a2c": Pairing(bounded=bounded, jsonrpc=True)}
        """Requests by the side that sent them: ``c2a`` the client's, ``a2c`` the agent's."""

    def request(self, direction: str, seq: int, t: float, obj: dict[str, Any]) -> tuple[Pending, Pending | None]:
        """A request (``id`` and ``method``) from ``direction``'s side; the older request waiting under its id."""
        return self.sides[direction].command(seq, t, obj)

    def unreadable(self, direction: str, seq: int, t: float) -> Pending:
        """A line from ``direction`` that is no JSON-RPC message: the peer answers it with ``id: null``."""
        return self.sides[direction].expect_idless(seq, t, PARSE)

    def response(self, direction: str, seq: int, obj: dict[str, Any]) -> Answer:
        """A response sent in ``direction``: it answers a request of the other side."""
        return self.sides["a2c" if direction == "c2a" else "c2a"].response(seq, obj)

    def waiting(self) -> list[tuple[str, Pending]]:
        """(sender's direction, request) of every request still waiting, oldest first."""
        return sorted(((d, p) for d, side in self.sides.items() for p in side.waiting_with_id()),
                      key=lambda item: item[1].seq)
