"""``rpcspy why`` for an ACP session: who owes which answer, since when, and a cancel never honoured.

The session is followed by :class:`~rpcspy.protocol.acp_state.AcpState` (the checker's model too);
what is still waiting at the moment diagnosed becomes one sentence each: the client's
``session/prompt`` the agent has not answered (and, if a ``session/cancel`` came, that it was never
honoured; if the agent itself waits on the client, that too), and every request of the agent
(``session/request_permission``, ``fs/*``, ``terminal/*``, ``elicitation/create``) the client has not
answered.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import msgspec

from rpcspy.diagnose.items import Diagnosis, Item
from rpcspy.diagnose.pitfalls import seconds
from rpcspy.framing import DECODE_ERRORS
from rpcspy.protocol.acp import CANCELLED, PERMISSION, PROMPT
from rpcspy.protocol.acp_state import AcpState, Session
from rpcspy.protocol.pairing import Pending, show_id

_SIDES = {"c2a": "the client", "a2c": "the agent"}
_ASKS = {PERMISSION: "a permission dialog (is it rendered? answered?)", "fs/read_text_file": "a file read",
         "fs/write_text_file": "a file write", "terminal/create": "a terminal", "terminal/output": "terminal output",
         "terminal/wait_for_exit": "a terminal's exit", "terminal/kill": "a terminal kill",
         "terminal/release": "a terminal release", "elicitation/create": "an answer to a question"}


class AcpWhy:
    """Feed recording entries; :meth:`diagnosis` says what waits at the last moment seen (or ``at``)."""

    def __init__(self, dialect: str) -> None:
        self.dialect = dialect
        self.state = AcpState()
        self.frames = 0
        self.t = 0.0
        self.last: dict[str, tuple[int, float]] = {}
        self.exit: tuple[int, int] | None = None
        self.eof: int | None = None

    def feed_entry(self, entry: Any) -> None:
        kind = type(entry).__name__
        if kind == "FrameEntry":
            self.t = entry.t
            if entry.dir == "err":
                return
            self.frames += 1
            self.last[entry.dir] = (entry.seq, entry.t)
            try:
                obj = msgspec.json.decode(entry.to_frame().data)
            except DECODE_ERRORS:
                return
            if type(obj) is dict:
                self.state.message(entry.dir, entry.seq, entry.t, obj)
        elif kind == "Exit":
            self.exit = (entry.seq, entry.code)
        elif kind == "Eof" and entry.dir == "c2a":
            self.eof = entry.seq

    def diagnosis(self, at: float | None = None) -> Diagnosis:
        return acp_diagnosis(self.state, self.dialect, self.t if at is None else at, frames=self.frames,
                             last=self.last, exit=self.exit, eof=self.eof)


def acp_diagnosis(state: AcpState, dialect: str, now: float, *, frames: int, last: dict[str, tuple[int, float]],
                  exit: tuple[int, int] | None, eof: int | None) -> Diagnosis:
    """What waits in ``state`` at ``now``: one item per unanswered request; the exit and who spoke last."""
    d = Diagnosis(at=now, dialect=dialect, frames=frames)
    for direction, p in state.waiting():
        session = state.sessions.get(p.note) if isinstance(p.note, str) else None
        d.outstanding.append(_item(direction, p, session, now))
    if d.outstanding and exit is not None:
        d.context.append(f"the agent exited with code {exit[1]} (frame {exit[0]})"
                         + (f" after the client closed its stdin (frame {eof})" if eof else ""))
    d.context += _last_words(last, now)
    return d


def _item(direction: str, p: Pending, session: Session | None, now: float) -> Item:
    age = seconds(now - p.t)
    sid = f" of session {p.note!r}" if isinstance(p.note, str) else ""
    if direction == "c2a" and p.type == PROMPT:
        text = f"`session/prompt` (id {show_id(p.id)}, frame {p.seq}){sid} has had no answer for {age}: " \
               "the agent owes its `stopReason`"
        frames: tuple[int, ...] = (p.seq,)
        if session is not None and session.cancel is not None:
            cseq, ct = session.cancel
            text += f"; `session/cancel` at frame {cseq} ({seconds(now - ct)} ago) was never honoured " \
                    f"(the agent must answer `stopReason: {CANCELLED}`)"
            frames += (cseq,)
        asked = [q for q in (session.asked.values() if session is not None else ()) if q.seq > p.seq]
        if asked:
            q = asked[0]
            text += f"; the agent itself waits for the client's answer to `{q.type}` (frame {q.seq})"
            frames += (q.seq,)
        open_tools = [tc for tc in (session.tools.values() if session is not None else ())
                      if tc.status in ("pending", "in_progress") and tc.seq > p.seq]
        if open_tools:
            tc = open_tools[-1]
            text += f"; tool call {tc.id!r} ({tc.title or 'untitled'}) is still {tc.status}"
        return Item("prompt", text, frames, p.t)
    if direction == "a2c":
        what = _ASKS.get(p.type if isinstance(p.type, str) else "", "an answer")
        return Item("request", f"the agent waits for the client's answer to `{p.type}` (id {show_id(p.id)}, "
                    f"frame {p.seq}){sid} since {age}: the client owes {what}", (p.seq,), p.t)
    return Item("command", f"`{p.type}` (id {show_id(p.id)}, frame {p.seq}) from the client has had no answer "
                f"for {age}: the agent owes it", (p.seq,), p.t)

def _last_words(last: dict[str, tuple[int, float]], now: float) -> list[str]:
    seen = sorted(last.items(), key=lambda kv: kv[1][0])
    if not seen:
        return ["no frame has crossed yet"]
    direction, (seq, t) = seen[-1]
    other = "a2c" if direction == "c2a" else "c2a"
    text = f"{_SIDES[direction]} spoke last (frame {seq}, {seconds(now - t)} ago)"
    if other in last:
        text += f"; {_SIDES[other]} has been silent for {seconds(now - last[other][1])}"
    return [text]


def diagnose_acp(entries: Iterable[Any], dialect: str, *, at: float | None = None,
                 frame: int | None = None) -> Diagnosis:
    """:func:`~rpcspy.diagnose.explain.diagnose_entries` for a JSON-RPC (ACP) session."""
    why = AcpWhy(dialect)
    for entry in entries:
        seq, t = getattr(entry, "seq", -1), getattr(entry, "t", 0.0)
        if (at is not None and t > at) or (frame is not None and seq > frame):
            break
        why.feed_entry(entry)
    return why.diagnosis(at)
