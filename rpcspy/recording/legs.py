"""Both legs of an adapter on one clock (``rpcspy run --legs``): the ACP session in front and the pi RPC
session(s) behind it, merged into one timeline with what caused what.

A front recording's header says ``leg: front``; each back-end process the adapter started was recorded
into a sibling ``REC.back.PID.jsonl`` whose header says ``leg: back`` and names the front. Each header's
``started_unix`` puts its ``t`` on the wall clock, so the legs merge without a shared process.

What it says (decided here, without I/O but reading the recordings):

* each pi command is *for* the ACP request still waiting when the adapter sent it (the latest, if
  several), with the delay: which ACP request caused which pi commands;
* each agent frame in front is *from* the latest pi frame before it: where the adapter translated;
* observations: a pi dialog (``extension_ui_request``) translated into an ACP request, or answered by the
  adapter itself, a tool pi ran with no ``session/request_permission`` asked in front, an ACP request the
  adapter never answered, a pi command that failed.
"""

from __future__ import annotations

import glob
import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

import msgspec

from rpcspy.frameinfo import label_of
from rpcspy.framing import DECODE_ERRORS
from rpcspy.protocol.vocabulary import DIALOGS
from rpcspy.recording.format import FrameEntry, Header
from rpcspy.recording.reader import RecordingError, open_recording

ACP, PI = "ACP", "pi"


@dataclass
class Item:
    """One frame of either leg, on the front's clock."""

    t: float
    leg: str
    dir: str
    obj: Any
    label: str
    note: str = ""

    @property
    def ident(self) -> Any:
        return self.obj.get("id") if isinstance(self.obj, dict) else None


@dataclass
class Legs:
    front: str
    backs: list[str]
    items: list[Item] = field(default_factory=list)
    caused: list[tuple[str, list[str]]] = field(default_factory=list)
    """(ACP request, the pi commands sent for it), in order."""
    observations: list[str] = field(default_factory=list)
    turns: list[Turn] = field(default_factory=list)
    """Each ACP ``session/prompt`` and the moments of its pi run: where the adapter adds delay."""


@dataclass
class Turn:
    """One ACP prompt turn on both legs (times on the front's clock; None: not seen)."""

    name: str
    t: float
    pi_prompt: float | None = None
    pi_text: float | None = None
    acp_text: float | None = None
    pi_end: float | None = None
    acp_end: float | None = None

    def describe(self) -> str:
        def gap(a: float | None, b: float | None) -> str:
            return "-" if a is None or b is None else f"+{_ms(b - a)}"

        return (f"{self.name} at {self.t:.3f}: pi prompt {gap(self.t, self.pi_prompt)}; first text: pi "
                f"{gap(self.t, self.pi_text)}, ACP {gap(self.t, self.acp_text)} (adapter {gap(self.pi_text, self.acp_text)}); "
                f"pi agent_end {gap(self.t, self.pi_end)}, ACP stopReason {gap(self.t, self.acp_end)} "
                f"(adapter {gap(self.pi_end, self.acp_end)})")


def find_legs(path: str) -> tuple[str, list[str]]:
    """The front recording and its back legs, from either one's path."""
    header = open_recording(path).header
    front = os.path.abspath(path)
    if getattr(header, "leg", None) == "back":
        front = os.path.join(os.path.dirname(os.path.abspath(path)), os.path.basename(str(header.front)))
    elif getattr(header, "leg", None) != "front":
        raise RecordingError(f"{path}: not a recording of `rpcspy run --legs` (its header names no leg)")
    backs = []
    for cand in sorted(glob.glob(glob.escape(front.removesuffix(".jsonl")) + ".back.*.jsonl")):
        try:
            h = open_recording(cand).header
        except RecordingError:
            continue
        # the pair may have moved together: the name, not the whole path, must match
        if getattr(h, "leg", None) == "back" and os.path.basename(str(h.front)) == os.path.basename(front):
            backs.append(cand)
    return front, backs


def _items(path: str, leg: str, origin: float) -> Iterator[Item]:
    rec = open_recording(path)
    shift = rec.header.started_unix - origin
    for block in rec.blocks():
        for e in block:
            if type(e) is FrameEntry and e.dir in ("c2a", "a2c"):
                try:
                    obj = msgspec.json.decode(e.data())
                except DECODE_ERRORS:
                    obj = None
                yield Item(round(e.t + shift, 6), leg, e.dir, obj, label_of(obj) or "<not JSON>")


def _unasked(start: Item) -> str:
    obj = start.obj if isinstance(start.obj, dict) else {}
    return (f"{start.t:.3f}: pi ran tool {obj.get('toolName')} ({obj.get('toolCallId')}) with no "
            "session/request_permission asked of the ACP client")


def load(path: str) -> Legs:
    """Read both legs of the session ``path`` belongs to and merge them."""
    front, backs = find_legs(path)
    header: Header = open_recording(front).header
    items = list(_items(front, ACP, header.started_unix))
    for b in backs:
        items += _items(b, PI, header.started_unix)
    return merge(front, backs, items)


def _name(item: Item) -> str:
    ident = item.ident
    if ident is None:
        return item.label
    shown = str(ident)
    return f"{item.label} #{shown if len(shown) <= 12 else shown[:8] + '…'}"  # pi-acp's ids are UUIDs


def merge(front: str, backs: list[str], items: Iterable[Item]) -> Legs:
    """Order the frames of both legs and attribute causes (pure)."""
    out = Legs(front, backs, sorted(items, key=lambda i: (i.t, i.leg != ACP)))
    waiting: dict[Any, Item] = {}  # ACP requests from the client not answered yet, by id
    last_request: Item | None = None
    last_pi: Item | None = None
    by_cause: dict[int, list[str]] = {}
    causes: list[Item] = []
    dialogs: dict[Any, tuple[Item, bool]] = {}  # pi dialog id -> (request, an ACP agent request followed)
    asked_since_prompt = False
    unasked: dict[Any, Item] = {}  # pi tool calls started with no ACP request of the agent's so far
    turns: dict[Any, Turn] = {}
    turn: Turn | None = None
    for it in out.items:
        obj = it.obj if isinstance(it.obj, dict) else {}
        if it.leg == ACP and it.dir == "c2a":
            if "method" in obj and "id" in obj:
                waiting[_key(obj["id"])] = it
                last_request = it
                if obj["method"] == "session/prompt":
                    asked_since_prompt = False
                    turn = turns[_key(obj["id"])] = Turn(_name(it), it.t)
                    out.turns.append(turn)
        elif it.leg == ACP:
            if "method" not in obj and "id" in obj:
                waiting.pop(_key(obj["id"]), None)
                done = turns.pop(_key(obj["id"]), None)
                if done is not None:
                    done.acp_end = it.t
            if turn is not None and turn.acp_text is None and it.label == "agent_message_chunk":
                turn.acp_text = it.t
            if "method" in obj and "id" in obj:
                asked_since_prompt = True
                unasked.clear()  # asked while the tool ran: pi's tool_call hooks (a gate's dialog) run after its start
                for did, (req, asked) in dialogs.items():
                    if not asked:
                        out.observations.append(
                            f"{it.t:.3f}: pi dialog {req.obj.get('method')} #{req.ident} translated to ACP {_name(it)} "
                            f"+{_ms(it.t - req.t)}")
                    dialogs[did] = (req, True)
            if last_pi is not None:
                it.note = f"from pi {_name(last_pi)} +{_ms(it.t - last_pi.t)}"
        elif it.dir == "c2a":
            if turn is not None and turn.pi_prompt is None and it.label == "prompt":
                turn.pi_prompt = it.t
            cause = max(waiting.values(), key=lambda i: i.t, default=None) or last_request
            if cause is not None:
                it.note = f"for ACP {_name(cause)} +{_ms(it.t - cause.t)}"
                if id(cause) not in by_cause:
                    causes.append(cause)
                by_cause.setdefault(id(cause), []).append(it.label)
            if it.label == "extension_ui_response" and (found := dialogs.pop(_key(obj.get("id")), None)):
                req, asked = found
                if not asked:
                    out.observations.append(
                        f"{it.t:.3f}: pi dialog {req.obj.get('method')} #{req.ident} answered by the adapter itself: "
                        "the ACP client was never asked")
        else:
            last_pi = it
            if turn is not None and turn.pi_prompt is not None:
                if turn.pi_text is None and it.label == "message_update" and _text_delta(obj):
                    turn.pi_text = it.t
                elif turn.pi_end is None and it.label == "agent_end":
                    turn.pi_end = it.t
            if it.label == "extension_ui_request" and obj.get("method") in DIALOGS:
                dialogs[_key(obj.get("id"))] = (it, False)
            elif it.label == "tool_execution_start" and not asked_since_prompt:
                unasked[_key(obj.get("toolCallId"))] = it
            elif it.label == "tool_execution_end" and (start := unasked.pop(_key(obj.get("toolCallId")), None)):
                out.observations.append(_unasked(start))
            elif it.label == "response" and obj.get("success") is False:
                out.observations.append(f"{it.t:.3f}: pi refused {obj.get('command')}: {obj.get('error')}")
    out.observations += [_unasked(start) for start in unasked.values()]
    out.observations.sort(key=lambda o: float(o.split(":", 1)[0]))  # in time (each begins with it); then the end's
    for req, _ in dialogs.values():
        out.observations.append(f"{req.t:.3f}: pi dialog {req.obj.get('method')} #{req.ident} never answered")
    for it in sorted(waiting.values(), key=lambda i: i.t):
        out.observations.append(f"{it.t:.3f}: ACP {_name(it)} never answered by the adapter")
    out.caused = [(_name(c), by_cause[id(c)]) for c in causes]
    return out


def _text_delta(obj: dict[str, Any]) -> bool:
    event = obj.get("assistantMessageEvent")
    return isinstance(event, dict) and event.get("type") == "text_delta"


def _key(value: Any) -> Any:
    return (type(value).__name__, value) if isinstance(value, (str, int, float)) else repr(value)


def _ms(seconds: float) -> str:
    return f"{max(0.0, seconds) * 1000:.0f} ms"


def render(legs: Legs, *, collapse: bool = True, width: int = 46) -> str:
    """The side-by-side text: time, the ACP column, the pi column; runs of one frame kind collapsed."""
    lines = [f"front (ACP): {legs.front}"] + [f"back (pi RPC): {b}" for b in legs.backs]
    lines.append(f"{'t':>8}  {'ACP (client <-> adapter)':<{width}}pi (adapter <-> pi)")
    rows: list[list[Any]] = []
    for it in legs.items:
        arrow = "→" if it.dir == "c2a" else "←"
        text = f"{arrow} {_name(it) if it.leg == ACP or it.dir == 'c2a' or it.label == 'response' else it.label}"
        prev = rows[-1] if rows else None
        if collapse and prev is not None and prev[1] == it.leg and prev[2] == text and it.ident is None:
            prev[3] += 1
            continue
        rows.append([it.t, it.leg, text, 1, it.note])
    for t, leg, text, n, note in rows:
        shown = text + (f" ×{n}" if n > 1 else "") + (f"   [{note}]" if note else "")
        if leg == ACP:
            lines.append(f"{t:8.3f}  {shown}")
        else:
            lines.append(f"{t:8.3f}  {'':<{width}}{shown}")
    if legs.caused:
        lines.append("")
        lines.append("which ACP request caused which pi commands:")
        for cause, cmds in legs.caused:
            lines.append(f"  {cause}: {', '.join(cmds)}")
    if legs.turns:
        lines.append("")
        lines.append("prompt turns (from the ACP session/prompt):")
        lines += [f"  {turn.describe()}" for turn in legs.turns]
    if legs.observations:
        lines.append("")
        lines.append("observations:")
        lines += [f"  {o}" for o in legs.observations]
    return "\n".join(lines) + "\n"
