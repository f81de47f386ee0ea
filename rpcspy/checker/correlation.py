"""Correlation of commands (stdin) with responses (stdout).

Commands are matched to responses by ``id`` only: pi does not serialise commands,
so responses arrive out of order. Lines that get id-less answers (unparsable
lines, non-objects, commands without id, and in pi 0.73 unknown commands even
with an id) wait in a FIFO and are matched by the response's ``command``.
"""

from __future__ import annotations

from collections import deque
from typing import Any

import msgspec

from rpcspy.checker.bounded import trim_oldest
from rpcspy.checker.findings import Sink

_encode = msgspec.json.encode
MISSING = object()
"""``type`` (or ``command``) absent from the frame."""
PARSE = "parse"
NONOBJECT = object()
"""Expected id-less answer to a JSON value that is not an object."""
IDLESS_CAP = 4096
ANSWERED_CAP = 16384
"""Answered ids remembered (to tell a duplicate response from an unknown id); at most a quarter more."""
# Commands that legitimately take long: never reported by the live ``unanswered_after`` check.
_SLOW = frozenset({"bash", "compact", "abort", "new_session", "switch_session", "fork", "clone", "branch"})


def id_key(value: Any) -> Any:
    """A hashable key for any JSON id (pi echoes ids of every JSON type)."""
    return value if type(value) is str else _encode(value)


def show_id(value: Any) -> str:
    return _encode(value).decode("utf-8", "replace")


def show_type(value: Any) -> str:
    return "(no type)" if value is MISSING or value is None else f"`{value}`" if isinstance(value, str) else repr(value)


class Pending:
    """A command waiting for its response."""

    __slots__ = ("seq", "t", "type", "id", "message", "behavior", "reported", "note", "answers")

    def __init__(self, seq: int, t: float, type: Any, id: Any, obj: dict) -> None:
        self.seq, self.t, self.type, self.id = seq, t, type, id
        message = obj.get("message")
        self.message: str | None = message if isinstance(message, str) else None
        self.behavior = "streamingBehavior" in obj
        """The command carried ``streamingBehavior`` (prompt)."""
        self.reported = False
        self.answers = 0
        """Responses matched to this command so far (2 for omp's success-then-error)."""
        self.note: Any = None
        """Scratch slot for other checkers (e.g. "sent while streaming")."""

    def label(self) -> str:
        shown = "" if self.id is MISSING else f" (id {show_id(self.id)})"
        return f"{show_type(self.type)}{shown}"


class Answered:
    """An answered command, slim: its :class:`Pending` is kept only for a prompt (omp may answer twice)."""

    __slots__ = ("seq", "resp", "success", "p")

    def __init__(self, p: Pending, resp: int, success: Any) -> None:
        self.seq, self.resp, self.success = p.seq, resp, success
        self.p = p if p.type == "prompt" else None


class Correlator:
    """Tracks pending commands and checks every response against them."""

    def __init__(self, sink: Sink) -> None:
        self.sink = sink
        self.pending: dict[Any, Pending] = {}
        self._reused: dict[Any, list[Pending]] = {}
        self._idless: deque[tuple[Any, Pending]] = deque()
        self.answered: dict[Any, Answered] = {}

    # ---- stdin -----------------------------------------------------------------------------
    def expect_idless(self, seq: int, t: float, expect: Any) -> None:
        """An unparsable line or a non-object: pi answers with an id-less error."""
        self._push_idless(expect, Pending(seq, t, expect, MISSING, {}))

    def command(self, seq: int, t: float, obj: dict) -> Pending:
        """Register a command frame; returns its :class:`Pending`."""
        ctype = obj.get("type", MISSING)
        if "id" not in obj:
            p = Pending(seq, t, ctype, MISSING, obj)
            self._push_idless(ctype, p)
            return p
        cid = obj["id"]
        p = Pending(seq, t, ctype, cid, obj)
        key = id_key(cid)
        older = self.pending.get(key)
        if older is not None:
            self.sink.emit("correlation.reused_id", t, seq, "c2a",
                           f"command {p.label()} reuses the id of {older.label()}, still awaiting its response",
                           path="$.id", related=older.seq)
            self._reused.setdefault(key, []).append(p)
        else:
            self.pending[key] = p
        return p

    def _push_idless(self, expect: Any, p: Pending) -> None:
        self._idless.append((expect, p))
        if len(self._idless) > IDLESS_CAP:
            self._idless.popleft()

    # ---- stdout ----------------------------------------------------------------------------
    def response(self, seq: int, t: float, obj: dict, *, omp: bool) -> Pending | None:
        """Check a response frame; return the command it answers, if any."""
        cmd = obj.get("command", MISSING)
        success = obj.get("success")
        if "id" in obj:
            return self._by_id(seq, t, obj["id"], cmd, success, omp)
        return self._idless_response(seq, t, cmd, success)

    def _pop(self, key: Any) -> Pending | None:
        p = self.pending.pop(key, None)
        if p is None:
            return None
        queue = self._reused.get(key)
        if queue:
            self.pending[key] = queue.pop(0)
            if not queue:
                del self._reused[key]
        return p

    def _by_id(self, seq: int, t: float, cid: Any, cmd: Any, success: Any, omp: bool) -> Pending | None:
        key = id_key(cid)
        p = self._pop(key)
        if p is None:
            done = self.answered.get(key)
            if done is None:
                self.sink.emit("correlation.unknown_id", t, seq, "a2c",
                               f"response {show_type(cmd)} has id {show_id(cid)}, which no command used",
                               path="$.id")
            elif omp and done.p is not None and done.success is True and success is False \
                    and done.p.answers == 1:
                done.p.answers += 1  # omp: documented success-then-error for a prompt sent while streaming
                return done.p
            else:
                self.sink.emit("correlation.duplicate_response", t, seq, "a2c",
                               f"second response to id {show_id(cid)} (first answered at frame {done.resp})",
                               path="$.id", related=done.seq)
            return None
        if cmd != p.type and not (cmd is MISSING and p.type is MISSING):
            self.sink.emit("correlation.command_mismatch", t, seq, "a2c",
                           f"response has command {show_type(cmd)} but request {p.label()} "
                           f"has type {show_type(p.type)}", path="$.command", related=p.seq)
        self._remember(key, p, seq, success)
        return p

    def _remember(self, key: Any, p: Pending, resp: int, success: Any) -> None:
        p.answers += 1
        self.answered[key] = Answered(p, resp, success)
        trim_oldest(self.answered, ANSWERED_CAP)

    def _idless_response(self, seq: int, t: float, cmd: Any, success: Any) -> Pending | None:
        for i, (expect, p) in enumerate(self._idless):
            if _compatible(expect, cmd):
                del self._idless[i]
                p.answers += 1
                return p
        if success is False:
            # pi 0.73 / omp 18.2.3: unknown commands are answered without their id.
            for key, p in self.pending.items():
                if p.type == cmd or (cmd is MISSING and p.type is MISSING):
                    self._pop(key)
                    self._remember(key, p, seq, success)
                    self.sink.emit("correlation.idless_error", t, seq, "a2c",
                                   f"error response without id for {p.label()}; the client cannot "
                                   "correlate it", related=p.seq)
                    return p
        self.sink.emit("correlation.unexpected_response", t, seq, "a2c",
                       f"id-less response {show_type(cmd)} matches no request waiting for one")
        return None

    # ---- time ------------------------------------------------------------------------------
    def overdue(self, now: float, limit: float, blocked: bool) -> None:
        """Report commands pending longer than ``limit`` seconds (once each).

        ``blocked`` is true while a dialog is open: the command may wait on the user.
        """
        if blocked:
            return
        for p in self.pending.values():
            if now - p.t < limit:
                break
            if p.reported or (isinstance(p.type, str) and p.type in _SLOW) or _is_slash_prompt(p):
                continue
            p.reported = True
            self.sink.emit("correlation.unanswered", now, p.seq, "c2a",
                           f"command {p.label()} not answered after {now - p.t:.1f} s")

    def finish(self, t: float, why: str) -> None:
        """End of session: every command with an id still pending was never answered."""
        leftovers = list(self.pending.values()) + [p for q in self._reused.values() for p in q]
        for p in sorted(leftovers, key=lambda p: p.seq):
            if p.reported:
                continue
            self.sink.emit("correlation.unanswered", t, p.seq, "c2a",
                           f"command {p.label()} was never answered{why}")
        self.pending.clear()
        self._reused.clear()

    def has_bash(self, cid: Any) -> bool:
        p = self.pending.get(id_key(cid))
        return p is not None and p.type == "bash"


def _is_slash_prompt(p: Pending) -> bool:
    """An extension-command prompt is answered only when its handler (maybe a dialog) returns."""
    return p.type == "prompt" and p.message is not None and p.message.startswith("/")


def _compatible(expect: Any, cmd: Any) -> bool:
    if expect is NONOBJECT:
        return cmd is MISSING or cmd == PARSE
    if expect is MISSING:
        return cmd is MISSING
    return cmd == expect
