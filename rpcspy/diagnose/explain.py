"""A :class:`Tracker`'s state, put into plain sentences: what is outstanding, why, and since when."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from rpcspy.diagnose import knowledge as K
from rpcspy.diagnose.items import Diagnosis, Item
from rpcspy.diagnose.pitfalls import handled_then_silent, label, seconds
from rpcspy.diagnose.state import Cmd
from rpcspy.diagnose.tracker import Tracker
from rpcspy.protocol.spec import spec_of

_SIDES = {"c2a": "the client", "a2c": "the agent"}


def explain(tr: Tracker, at: float | None = None) -> Diagnosis:
    """Diagnose the session as the tracker saw it, at time ``at`` (default: the last moment it saw)."""
    now = tr.t if at is None else at
    if tr.acp is not None:  # an ACP session, learnt from its first message (live)
        from rpcspy.diagnose.acp import acp_diagnosis
        from rpcspy.protocol.spec import ACP_V1

        eof = tr.eof.get("c2a")
        return acp_diagnosis(tr.acp, ACP_V1, now, frames=tr.frames, last=tr.last,
                             exit=(tr.exit[0], tr.exit[2]) if tr.exit is not None else None,
                             eof=eof[0] if eof is not None else None)
    d = Diagnosis(at=now, dialect=tr.dialect, frames=tr.frames, pitfalls=list(tr.pitfalls))
    ending = _ending(tr)
    out = d.outstanding
    out += _commands(tr, now)
    out += _runs(tr, now, ending, d.context)
    for call_id, (seq, t, name, update) in tr.tools.items():
        latest = f" (last update frame {update})" if update is not None else " (no update yet)"
        out.append(Item("tool", f"tool `{name}` (call {call_id!r}, frame {seq}) has been running for "
                        f"{seconds(now - t)}{latest}: the run goes on when it ends", (seq,), t))
    out += _waiting(tr, now, d.context)
    out += _queued(tr)
    if tr.compaction is not None:
        seq, t, reason = tr.compaction
        out.append(Item("compaction", f"a compaction{f' ({reason})' if reason else ''} has been in progress since "
                        f"frame {seq} ({seconds(now - t)}); the agent answers or runs nothing else until it ends",
                        (seq,), t))
    if tr.retry is not None:
        seq, t = tr.retry
        out.append(Item("retry", f"an automatic retry started at frame {seq} ({seconds(now - t)} ago) has not "
                        "ended (no auto_retry_end): the agent is waiting to try the provider again", (seq,), t))
    if out and ending:
        d.context.append(ending[0])
    d.context += _last_words(tr, now)
    if not out and tr.handled is not None and tr.handled.resp is not None:
        last = tr.last.get("c2a")
        if last is not None and last[0] <= tr.handled.resp and now - tr.handled.resp_t >= 1.0:
            d.pitfalls.append(handled_then_silent(tr.handled, now - tr.handled.resp_t))
    return d


def _ending(tr: Tracker) -> tuple[str, tuple[int, ...]] | tuple[()]:
    """Why the session stopped, if it did: the client's EOF, a signal, and the agent's exit."""
    eof = tr.eof.get("c2a")
    if tr.exit is not None:
        seq, _, code = tr.exit
        signal = ended_by_signal(tr)
        if signal is not None:
            cause = f"the agent was ended by {signal} (exit code {code}, frame {seq})"
            if tr.signalled is not None and tr.signalled[1] == signal:
                cause += f", which the proxy forwarded to it at frame {tr.signalled[0]}"
            if eof is not None:
                cause += f"; the client had also closed its stdin (frame {eof[0]})"
            return (cause, (seq,))
        cause = f"the agent exited with code {code} (frame {seq})"
        if eof is not None:
            cause += f" after the client closed its stdin (frame {eof[0]})"
        return (cause, (seq,))
    if eof is not None:
        return (f"the client closed the agent's stdin at frame {eof[0]}", (eof[0],))
    return ()


def ended_by_signal(tr: Tracker) -> str | None:
    """The signal that ended the agent: the one that killed it, or the one whose shell-style status it
    exited with (pi exits 143 itself after SIGTERM), or None for a plain exit."""
    if tr.exit is None:
        return None
    if tr.exit_signal is not None:
        return K.SHUTDOWN_SIGNALS.get(128 + tr.exit_signal, f"signal {tr.exit_signal}")
    return K.SHUTDOWN_SIGNALS.get(tr.exit[2])


def _commands(tr: Tracker, now: float) -> list[Item]:
    items = []
    dialog = next((w for w in tr.waiting.values() if w.kind == "dialog"), None)
    for cmd in tr.unanswered():
        age = now - cmd.t
        text = f"{label(cmd)} has had no response for {seconds(age)}"
        if age > tr.client_timeout:
            text += f", longer than a {seconds(tr.client_timeout)} client timeout"
        if cmd.type in K.RUN_COMMANDS and dialog is not None and dialog.seq > cmd.seq:
            text += f"; the agent answers it when the {dialog.what} (frame {dialog.seq}) is answered"
        elif cmd.type in K.SESSION_START_COMMANDS and dialog is not None and dialog.seq > cmd.seq:
            text += (f"; the agent answers it when the {dialog.what} (frame {dialog.seq}) is answered: pi runs the "
                     "extensions' session_start handlers before it answers a session operation, and one of them "
                     "asks this")
        elif cmd.type == "bash":
            text += "; the shell command is still running"
        elif cmd.type in K.STOP_COMMANDS and tr.busy:
            text += "; the agent answers it when the run has wound down"
        items.append(Item("command", text, (cmd.seq,), cmd.t))
    return items


def _runs(tr: Tracker, now: float, ending: tuple[Any, ...], context: list[str]) -> list[Item]:
    items = []
    cut = f": {ending[0]}" if ending else ""
    for cmd in tr.starting:
        if cmd.resp is None or cmd.success is not True:
            continue  # unanswered commands are listed as such
        disp = f" ({cmd.disposition!r})" if cmd.disposition else ""
        text = f"{label(cmd)} was accepted{disp} at frame {cmd.resp}, but its run has not started (no agent_start)"
        if cmd.slash and cmd.message is not None and cmd.disposition is None:  # slash: message is a str
            context.append(f"{text}; if {cmd.message.split()[0]} is an extension command it ran without a run "
                           "(pi before 0.99 does not say; later versions answer `handled`)")
            continue
        hint = "; pi drops a prompt sent before the previous one started its run" if cmd.behind else ""
        items.append(Item("prompt", text + (cut or hint), (cmd.seq, cmd.resp), cmd.t))
    if tr.run is not None:
        by = f" for {label(tr.run_by)}" if tr.run_by is not None else ""
        frames = (tr.run,) if tr.run_by is None else (tr.run_by.seq, tr.run)
        last = tr.last.get("a2c")
        signal = ended_by_signal(tr)
        eof = (f"; {signal} cuts a run in progress off (no {K.RUN_END})" if signal is not None
               else "; pi cuts a run in progress off at stdin EOF" if "c2a" in tr.eof else "")
        state = cut + eof if cut else (f"; the agent's last frame was {seconds(now - last[1])} ago" if last else "")
        items.append(Item("run", f"the run started at frame {tr.run}{by} has not ended (no {K.RUN_END}){state}",
                          frames))
    elif tr.ended is not None:
        retry = "; agent_end said willRetry: a retry run is due" if tr.will_retry else ""
        items.append(Item("settle", f"the run ended at frame {tr.ended} but {K.SETTLED} has not come: the agent "
                          f"still has work (a retry, compaction or queued messages){retry}{cut}", (tr.ended,)))
    for cmd in tr.omp_open.values():
        if cmd in tr.starting or cmd.resp is None:
            continue
        items.append(Item("prompt", f"{label(cmd)} was accepted at frame {cmd.resp} but omp has not closed it with "
                          f"{K.OMP_PROMPT_RESULT}{cut}", (cmd.seq, cmd.resp), cmd.t))
    if tr.omp_settle_due is not None:
        items.append(Item("settle", f"{K.OMP_PROMPT_RESULT} (frame {tr.omp_settle_due}) said the session was not "
                          f"settled, and {K.OMP_SESSION_SETTLED} has not come{cut}", (tr.omp_settle_due,)))
    return items


def _waiting(tr: Tracker, now: float, context: list[str]) -> list[Item]:
    items = []
    for w in sorted(tr.waiting.values(), key=lambda w: w.seq):
        if w.deadline is not None and now >= w.deadline:
            context.append(f"the {w.what} (frame {w.seq}) timed out unanswered after "
                           f"{seconds(w.deadline - w.t)}; the agent went on without telling the client")
            continue
        answer = "an extension_ui_response" if w.kind == "dialog" else "the host's result"
        text = f"the agent waits for {answer} to the {w.what} (id {w.id!r}, frame {w.seq}) since {seconds(now - w.t)}"
        frames: tuple[int, ...] = (w.seq,)
        strays = [(seq, rid) for seq, rid in tr.stray_answers if seq > w.seq] if w.kind == "dialog" else []
        if strays:
            seq, rid = strays[-1]
            text += (f"; the client's extension_ui_response at frame {seq} answered id {rid!r}, which the agent "
                     "never asked for, and was ignored")
            frames = (w.seq, seq)
        items.append(Item(w.kind, text, frames, w.t))
    return items


def _queued(tr: Tracker) -> list[Item]:
    idle = not tr.busy and not tr.starting  # no run open, settling or about to start
    if tr.queue_update is not None:
        seq, steering, follow_up = tr.queue_update
        if not steering and not follow_up:
            return []
        counts = f"{len(steering)} steering and {len(follow_up)} follow-up message(s) are queued (queue_update, frame {seq})"
        if not idle:
            return [Item("queued", f"{counts}: delivered when the run reaches them", (seq,))]
        frames = tuple(sorted({seq, *(c.seq for c in tr.queued)}))
        return [Item("queued", f"{counts} and no run is active: {_IDLE_QUEUE}", frames)]
    if idle:
        return [Item("queued", f"{label(cmd)} was queued (frame {cmd.resp}{_said(cmd)}) and no run is active: "
                     f"{_IDLE_QUEUE}", (cmd.seq, cmd.resp or cmd.seq), cmd.t) for cmd in tr.queued]
    return [Item("queued", f"{label(cmd)} was queued (frame {cmd.resp}) and not delivered yet",
                 (cmd.seq, cmd.resp or cmd.seq), cmd.t) for cmd in tr.queued]


_IDLE_QUEUE = ("a queued message starts no run; it waits for the next prompt, whose run delivers it, and a client "
               "that waits for a run after it waits forever")


def _said(cmd: Cmd) -> str:
    return f', disposition "{cmd.disposition}"' if cmd.disposition else ""


def _last_words(tr: Tracker, now: float) -> list[str]:
    seen = sorted(tr.last.items(), key=lambda kv: kv[1][0])
    if not seen:
        return ["no frame has crossed yet"]
    direction, (seq, t) = seen[-1]
    other = "a2c" if direction == "c2a" else "c2a"
    text = f"{_SIDES[direction]} spoke last (frame {seq}, {seconds(now - t)} ago)"
    if other in tr.last:
        text += f"; {_SIDES[other]} has been silent for {seconds(now - tr.last[other][1])}"
    else:
        text += f"; {_SIDES[other]} has sent nothing"
    return [text]


def diagnose_entries(entries: Iterable[Any], *, client_timeout: float = K.CLIENT_TIMEOUT, at: float | None = None,
                     frame: int | None = None, dialect: str | None = None,
                     dialect_reason: str | None = None) -> Diagnosis:
    """Diagnose recording entries up to time ``at`` or frame ``frame`` (inclusive), or to the end;
    ``dialect``: the session's, detected beforehand (as ``check`` does), else learnt from the frames
    (a JSON-RPC dialect's session, ACP, is diagnosed by :mod:`rpcspy.diagnose.acp`)."""
    spec = spec_of(dialect)
    if spec is not None and spec.jsonrpc:
        from rpcspy.diagnose.acp import diagnose_acp

        return diagnose_acp(entries, spec.name, at=at, frame=frame)
    tr = Tracker.seeded(dialect, dialect_reason, client_timeout=client_timeout)
    for entry in entries:
        seq, t = getattr(entry, "seq", -1), getattr(entry, "t", 0.0)
        if (at is not None and t > at) or (frame is not None and seq > frame):
            break
        tr.feed_entry(entry)
    return explain(tr, at)


_NEEDS = {
    "c2a": ({"dialog", "host"}, set()),
    "a2c": ({"command", "prompt", "queued"}, {"pitfall.stray_dialog_answer", "pitfall.late_response",
                                              "pitfall.settle_passed", "pitfall.handled_wait", "pitfall.dropped_prompt"}),
}
"""For each side a file may lack: the items and pitfalls that rest on it (a dialog is outstanding only if the
client's answer could have been seen; a command only if the agent's response could)."""


def one_sided(d: Diagnosis, absent: Iterable[str]) -> Diagnosis:
    """``d`` without what rests on a side the input does not hold (a one-sided transcript), saying so."""
    for side in sorted(absent):
        items, pitfalls = _NEEDS.get(side, (set(), set()))
        d.outstanding = [i for i in d.outstanding if i.kind not in items]
        d.pitfalls = [p for p in d.pitfalls if p.kind not in pitfalls]
        who = "client" if side == "c2a" else "agent"
        d.context.insert(0, f"the file holds no frame of the {who}'s side ({side}): what rests on it "
                         f"({', '.join(sorted(items | {p.split('.', 1)[1] for p in pitfalls}))}) is not judged")
    return d


__all__ = ["explain", "diagnose_entries", "one_sided", "Cmd"]
