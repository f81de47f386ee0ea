"""The fake agent's decisions, without I/O: live line in, what to play or answer out.

The I/O layer (:mod:`rpcspy.pump.commands.fake_agent`) feeds client lines and the agent frames
it is about to write, and asks for expired dialogs; this module matches, rewrites
ids, builds protocol-correct failure responses and keeps the divergence report.
"""

from __future__ import annotations

from typing import Any

import msgspec

from rpcspy.protocol.vocabulary import DIALOGS as DIALOG_METHODS
from rpcspy.replay.ids import IdMapper, Served, canon
from rpcspy.replay.matcher import NEED_MORE, Match, Matcher, NoMatch
from rpcspy.replay.model import (
    MISSING,
    ClientFrame,
    Divergence,
    RecordedCommand,
    Report,
    classify,
)
from rpcspy.replay.rpc import Renames, needs_cwd, rpc_failure

PREFIX = "rpcspy replay: "

_enc = msgspec.json.encode
_dec = msgspec.json.decode


class Outcome(msgspec.Struct):
    """What to do about one live client line."""

    frame: ClientFrame
    match: Match | None = None
    served: Served | None = None
    reply: bytes | None = None
    """A failure response to send now (no line terminator)."""
    divergence: Divergence | None = None
    need_more: bool = False
    """Index more of the recording and call again with the same line."""


class _Dialog(msgspec.Struct):
    deadline: float
    recorded: bytes
    live: bytes
    method: Any
    timeout_ms: float
    sent_rec_t: float


def failure_response(frame: ClientFrame, message: str) -> bytes | None:
    """A response the client can parse, or None for frames pi never answers (dialog answers)."""
    error = PREFIX + message
    if frame.kind == "answer":
        return None
    if frame.kind == "invalid":
        return _enc({"type": "response", "command": "parse", "success": False, "error": error})
    if frame.kind == "non_object":
        return _enc({"type": "response", "success": False, "error": error})
    body: dict[str, Any] = {"type": "response"}
    if frame.type is not None:
        body["command"] = frame.type
    body["success"] = False
    body["error"] = error
    out = _enc(body)
    if frame.id_raw is not None:
        out = b'{"id":' + canon(frame.id_raw) + b"," + out[1:]
    return out


class ReplayEngine:
    """Matching, id mapping and bookkeeping for one replay run."""

    def __init__(self, matcher: Matcher, *, recording: str, ids: IdMapper | None = None) -> None:
        self.matcher = matcher
        self.ids = ids or IdMapper()
        self.report = Report(recording=recording, match=matcher.mode)
        self._dialogs: dict[bytes, _Dialog] = {}
        self.jsonrpc = False
        """The recording is JSON-RPC (ACP): learnt from its client frames."""
        self.renames = Renames(self.ids.new_id)

    def add_recorded(self, command: RecordedCommand) -> None:
        if command.frame.rpc:
            self.jsonrpc = True
        self.matcher.add(command)

    # -- client side ----------------------------------------------------------------------
    def client_line(self, data: bytes, *, line: int, t: float = 0.0, complete: bool,
                    frame: ClientFrame | None = None) -> Outcome:
        """Decide about one live client line (without LF/CR)."""
        frame = frame or classify(data)
        if frame.rpc:
            if not complete and self.renames.cwd is None and needs_cwd(frame, self.matcher.commands):
                return Outcome(frame, need_more=True)
            frame = self.renames.client_frame(frame, self.matcher.commands)
        answer_id = self.ids.answer_id(frame) if frame.kind == "answer" else MISSING
        choice = self.matcher.choose(frame, complete=complete, answer_id=answer_id)
        if choice is NEED_MORE:
            return Outcome(frame, need_more=True)
        if isinstance(choice, Match):
            self.report.matched += 1
            if choice.reused:
                self.report.reused += 1
            if frame.kind == "answer" and frame.id_raw is not None:
                self._dialogs.pop(canon(frame.id_raw), None)
            served = self.ids.command_served(choice.command.frame, frame)
            return Outcome(frame, match=choice, served=served)
        assert isinstance(choice, NoMatch)
        div = Divergence(
            line=line, label=frame.label, message=choice.message, live_id=frame.id,
            closest_seq=choice.closest.seq if choice.closest else None, path=choice.path, t=t,
        )
        self.report.divergences.append(div)
        rpc = self.jsonrpc if self.matcher.commands else frame.rpc  # answer in the recording's protocol
        reply = rpc_failure(frame, PREFIX + choice.message) if rpc else failure_response(frame, choice.message)
        if rpc and frame.kind == "answer":
            reply = self._strand(choice.message)
        return Outcome(frame, reply=reply, divergence=div)

    def _strand(self, message: str) -> bytes | None:
        """A JSON-RPC client answered an agent request differently: the recording cannot go on, so each live
        request whose recorded answer was still to come gets a JSON-RPC error instead of waiting forever."""
        lines = [rpc_failure(s.live, f"{PREFIX}cannot answer {s.live.label}: your answer to the agent's request "
                                     f"diverged ({message})")
                 for s in self.ids.rpc_waiting()]
        out = [line for line in lines if line is not None]
        return b"\n".join(out) if out else None

    # -- agent side -----------------------------------------------------------------------
    def agent_frame(self, data: bytes, served: Served | None = None, *, now: float = 0.0,
                    rec_t: float = 0.0) -> bytes:
        """Rewrite a recorded agent frame for the live client; start dialog timers."""
        out = self.ids.agent_frame(data, served)
        if self.jsonrpc:
            out = self.renames.agent_frame(out)
        req = self.ids.last_request
        if (req is not None and req.type == "extension_ui_request" and isinstance(req.method, str)
                and req.method in DIALOG_METHODS
                and isinstance(req.timeout, (int, float)) and not isinstance(req.timeout, bool)
                and req.timeout > 0):
            self._dialogs[req.live] = _Dialog(now + req.timeout / 1000.0, req.recorded, req.live, req.method,
                                              float(req.timeout), rec_t)
        return out

    def next_deadline(self) -> float | None:
        if not self._dialogs:
            return None
        return min((d.deadline for d in self._dialogs.values()), default=None)

    def expire(self, now: float, *, complete: bool, line: int = 0) -> list[Outcome] | None:
        """Dialogs whose timeout passed unanswered; None when more indexing is needed first.

        If the recorded client answered such a dialog within its timeout, the
        recorded answer is played as if the live client had sent it (pi resolves
        the dialog on its own at the timeout) and a ``timeout`` divergence noted.
        """
        due = [d for d in self._dialogs.values() if d.deadline <= now]
        out: list[Outcome] = []
        for d in due:
            cmd = self._recorded_answer(d.recorded)
            if cmd is None and not complete:
                return None
            del self._dialogs[d.live]
            if cmd is None or cmd.t - d.sent_rec_t > d.timeout_ms / 1000.0:
                continue  # the recorded agent timed out too: its continuation is already in the exchange
            self.matcher.take(cmd.index)
            message = (f"dialog {d.live.decode()} ({d.method}) not answered within its {d.timeout_ms:g} ms timeout; "
                       f"played the recorded answer {cmd.describe()}")
            div = Divergence(line=line, label=cmd.label, message=message, live_id=_dec(d.live),
                             closest_seq=cmd.seq, kind="timeout", t=now)
            self.report.divergences.append(div)
            served = self.ids.command_served(cmd.frame, cmd.frame)
            out.append(Outcome(cmd.frame, match=Match(cmd), served=served, divergence=div))
        return out

    def _recorded_answer(self, recorded_id: bytes) -> RecordedCommand | None:
        m = self.matcher
        for i, c in enumerate(m.commands):
            if not m.used[i] and c.frame.kind == "answer" and c.frame.id_raw is not None \
                    and canon(c.frame.id_raw) == recorded_id:
                return c
        return None

    # -- end ------------------------------------------------------------------------------
    def finish(self, exit_code: int | None) -> Report:
        """The final report (unconsumed recorded frames listed)."""
        self.report.unconsumed = self.matcher.unconsumed()
        self.report.final = True
        self.report.exit_code = exit_code
        return self.report
