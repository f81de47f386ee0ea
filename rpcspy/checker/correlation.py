"""Correlation rules: what is wrong with how responses pair with commands.

The pairing itself is :class:`rpcspy.protocol.pairing.Pairing` (shared with show, export and
stats); this module turns its answers into findings (reused, unknown and duplicate ids, id-less
errors, mismatched ``command``, commands never answered).
"""

from __future__ import annotations

from typing import Any

from rpcspy.checker.findings import Sink
from rpcspy.protocol.pairing import MISSING, WAITING_CAP, Pairing, Pending, id_key, show_id, show_type
from rpcspy.protocol.vocabulary import SLOW_COMMANDS

__all__ = ["Correlator"]


class Correlator:
    """Tracks pending commands and checks every response against them."""

    def __init__(self, sink: Sink) -> None:
        self.sink = sink
        self.pairing = Pairing(bounded=True, answered=True)
        """Bounded: past WAITING_CAP unanswered commands the oldest are forgotten (``correlation.forgotten``)."""

    # ---- stdin -----------------------------------------------------------------------------
    def expect_idless(self, seq: int, t: float, expect: Any) -> None:
        """A non-object: pi answers with an id-less error."""
        self.pairing.expect_idless(seq, t, expect)

    def not_json(self, seq: int, t: float, *, blank: bool, omp: bool) -> bool:
        """A line that is not JSON: whether an (id-less ``parse`` error) answer is due (not for omp's blank lines)."""
        return self.pairing.client(seq, t, None, parsed=False, blank=blank, omp=omp) is not None

    def command(self, seq: int, t: float, obj: dict[str, Any]) -> Pending:
        """Register a command frame; returns its :class:`Pending`."""
        pairing = self.pairing
        forgotten = pairing.forgotten
        p, older = pairing.command(seq, t, obj)
        if pairing.forgotten != forgotten and not forgotten:  # said once: the count is in the summary at the end
            self.sink.emit("correlation.forgotten", t, seq, "c2a",
                           f"more than {WAITING_CAP:,} commands wait for an answer: the oldest "
                           f"{pairing.forgotten:,} are forgotten (memory stays bounded); an answer to one of "
                           "them reads as an unknown id, and they are not listed as unanswered")
        if older is not None:
            self.sink.emit("correlation.reused_id", t, seq, "c2a",
                           f"command {p.label()} reuses the id of {older.label()}, still awaiting its response",
                           path="$.id", related=older.seq)
        return p

    # ---- stdout ----------------------------------------------------------------------------
    def response(self, seq: int, t: float, obj: dict[str, Any], *, omp: bool) -> Pending | None:
        """Check a response frame; return the command it answers, if any."""
        answer = self.pairing.response(seq, obj, omp=omp)
        p, cmd, emit = answer.command, obj.get("command", MISSING), self.sink.emit
        if answer.kind == "unknown_id":
            emit("correlation.unknown_id", t, seq, "a2c",
                 f"response {show_type(cmd)} has id {show_id(obj['id'])}, which no command used", path="$.id")
        elif answer.kind == "duplicate":
            assert p is not None
            emit("correlation.duplicate_response", t, seq, "a2c",
                 f"second response to id {show_id(obj['id'])} (first answered at frame {answer.first})",
                 path="$.id", related=p.seq)
            return None
        elif answer.kind == "unexpected":
            emit("correlation.unexpected_response", t, seq, "a2c",
                 f"id-less response {show_type(cmd)} matches no request waiting for one")
        elif answer.kind == "idless_error":
            assert p is not None
            emit("correlation.idless_error", t, seq, "a2c",
                 f"error response without id for {p.label()}; the client cannot correlate it", related=p.seq)
        elif answer.mismatch:
            assert p is not None
            emit("correlation.command_mismatch", t, seq, "a2c",
                 f"response has command {show_type(cmd)} but request {p.label()} "
                 f"has type {show_type(p.type)}", path="$.command", related=p.seq)
        return p

    # ---- time ------------------------------------------------------------------------------
    def overdue(self, now: float, limit: float, blocked: bool) -> None:
        """Report commands pending longer than ``limit`` seconds (once each).

        ``blocked`` is true while a dialog is open: the command may wait on the user.
        """
        if blocked:
            return
        for p in self.pairing.pending.values():
            if now - p.t < limit:
                break
            if p.reported or (isinstance(p.type, str) and p.type in SLOW_COMMANDS) or _is_slash_prompt(p):
                continue
            p.reported = True
            self.sink.emit("correlation.unanswered", now, p.seq, "c2a",
                           f"command {p.label()} not answered after {now - p.t:.1f} s")

    def finish(self, t: float, why: str) -> None:
        """End of session: every command with an id still pending was never answered."""
        if self.pairing.forgotten:
            self.sink.emit("correlation.forgotten", t, None, "c2a",
                           f"{self.pairing.forgotten:,} commands were forgotten unanswered in all, more than "
                           f"{WAITING_CAP:,} waiting at once; the ones still waiting at the end follow",
                           extra={"forgotten": self.pairing.forgotten})
        for p in self.pairing.waiting_with_id():
            if p.reported:
                continue
            self.sink.emit("correlation.unanswered", t, p.seq, "c2a",
                           f"command {p.label()} was never answered{why}")
        self.pairing.forget()

    def has_bash(self, cid: Any) -> bool:
        p = self.pairing.pending.get(id_key(cid))
        return p is not None and p.type == "bash"


def _is_slash_prompt(p: Pending) -> bool:
    """An extension-command prompt is answered only when its handler (maybe a dialog) returns."""
    return p.type == "prompt" and p.message is not None and p.message.startswith("/")
