"""Seeded fault injection for ``rpcspy replay --chaos SPEC``: parse the spec, plan each frame's fate.

Pure: :class:`Chaos` is fed each agent frame the replay is about to write and returns a
:class:`Plan` (what to write, how, after which pause); the replay agent executes it. The
same spec, seed and recording give the same faults, whatever the timing. Every fault is
recorded as a :class:`Fault` for the replay report.

SPEC is a comma-separated list of ``name=value`` items (see :data:`FAULTS`), e.g.
``seed=7,latency=50ms,jitter=20ms,drop=0.1,stall=2s@0.05,split=0.3``. Probabilities are
per eligible frame (0..1); durations take ``ms`` or ``s`` (plain numbers are seconds);
sizes take ``K``/``M`` suffixes (KiB, MiB).
"""

from __future__ import annotations

import json
import random
import re
from dataclasses import dataclass, field
from typing import Any

from rpcspy.protocol.vocabulary import RUN_END, SETTLED

FAULTS: dict[str, str] = {
    "seed": "seed=N: the random seed (default 0); the same seed gives the same faults",
    "latency": "latency=DUR: every response is held back DUR",
    "jitter": "jitter=DUR: every frame is held back a random 0..DUR",
    "drop": "drop=P: a response is never sent",
    "dup": "dup=P: a response is sent twice",
    "idless-error": "idless-error=P: after a response, an error response without an id",
    "stall": "stall=DUR[@P]: before a frame, nothing for DUR (P default 0.05)",
    "oversize": "oversize=P[:SIZE]: an event grows by a padding field of SIZE bytes (default 2M)",
    "split": "split=P: a frame is written in three pieces, 20 ms apart",
    "u2028": "u2028=P: a frame gains a string field holding a raw U+2028 and U+2029",
    "settled": "settled=P: a stray agent_settled inside a run (after a message_update)",
    "reorder": "reorder=P: a response is sent after the frame that followed it",
}
"""Every fault the spec may name, with its syntax."""

STRAY_SETTLED = b'{"type":"agent_settled"}'
IDLESS_ERROR = b'{"type":"response","command":"parse","success":false,"error":"Failed to parse command (injected by rpcspy chaos)"}'
SPLIT_GAP = 0.02


class ChaosSpecError(ValueError):
    """The SPEC does not parse; the message says which item and why."""


@dataclass(frozen=True)
class ChaosSpec:
    text: str = ""
    seed: int = 0
    latency: float = 0.0
    jitter: float = 0.0
    drop: float = 0.0
    dup: float = 0.0
    idless_error: float = 0.0
    stall: float = 0.0
    stall_p: float = 0.05
    oversize: float = 0.0
    oversize_bytes: int = 2 << 20
    split: float = 0.0
    u2028: float = 0.0
    settled: float = 0.0
    reorder: float = 0.0


_DUR = re.compile(r"^(\d+(?:\.\d+)?)(ms|s)?$")
_SIZE = re.compile(r"^(\d+)([KkMm])?$")


def _duration(item: str, value: str) -> float:
    m = _DUR.match(value.strip())
    if not m:
        raise ChaosSpecError(f"{item}: {value!r} is not a duration (e.g. 50ms, 2s, 0.5)")
    return float(m.group(1)) / (1000 if m.group(2) == "ms" else 1)


def _prob(item: str, value: str) -> float:
    try:
        p = float(value)
    except ValueError:
        raise ChaosSpecError(f"{item}: {value!r} is not a probability (0..1)") from None
    if not 0 <= p <= 1:
        raise ChaosSpecError(f"{item}: probability {p} is not within 0..1")
    return p


def _size(item: str, value: str) -> int:
    m = _SIZE.match(value.strip())
    if not m:
        raise ChaosSpecError(f"{item}: {value!r} is not a size (e.g. 2M, 512K, 70000)")
    unit = {"k": 1 << 10, "m": 1 << 20}.get((m.group(2) or "").lower(), 1)
    return int(m.group(1)) * unit


def parse_spec(text: str) -> ChaosSpec:
    """Parse SPEC; :class:`ChaosSpecError` names the first bad item."""
    values: dict[str, Any] = {"text": text}
    for raw in filter(None, (p.strip() for p in text.split(","))):
        name, sep, value = raw.partition("=")
        name = name.strip()
        if name not in FAULTS:
            raise ChaosSpecError(f"unknown fault {name!r}; known: {', '.join(FAULTS)}")
        if not sep:
            raise ChaosSpecError(f"{name}: needs a value ({FAULTS[name]})")
        if name == "seed":
            if not value.strip().lstrip("-").isdigit():
                raise ChaosSpecError(f"seed: {value!r} is not an integer")
            values["seed"] = int(value)
        elif name in ("latency", "jitter"):
            values[name] = _duration(name, value)
        elif name == "stall":
            dur, _, p = value.partition("@")
            values["stall"] = _duration(name, dur)
            if p:
                values["stall_p"] = _prob(name, p)
        elif name == "oversize":
            p, _, size = value.partition(":")
            values["oversize"] = _prob(name, p)
            if size:
                values["oversize_bytes"] = _size(name, size)
        else:
            values[name.replace("-", "_")] = _prob(name, value)
    return ChaosSpec(**values)


@dataclass(frozen=True)
class Fault:
    """One injected fault: which agent frame (1-based, counting frames the replay wrote), what."""

    frame: int
    fault: str
    type: str
    detail: str = ""

    def to_json(self) -> dict[str, Any]:
        out = {"frame": self.frame, "fault": self.fault, "type": self.type}
        if self.detail:
            out["detail"] = self.detail
        return out


@dataclass
class Plan:
    """What to do with one frame: pause ``delay`` s, then write ``frames`` (each split into
    ``pieces`` when set); ``hold``: keep the first frame back until after the next one."""

    delay: float = 0.0
    frames: list[bytes] = field(default_factory=list)
    split: bool = False
    hold: bool = False


def _frame_type(data: bytes) -> str:
    try:
        obj = json.loads(data)
    except ValueError:
        return "?"
    return str(obj.get("type")) if isinstance(obj, dict) else "?"


def _add_field(data: bytes, key: str, value: str) -> bytes:
    """``data`` (a JSON object) with one more string field, non-ASCII written raw."""
    stripped = data.rstrip()
    if not stripped.endswith(b"}"):
        return data
    encoded = json.dumps(value, ensure_ascii=False).encode()
    sep = b"" if stripped.endswith(b"{}") else b","
    return stripped[:-1] + sep + json.dumps(key).encode() + b":" + encoded + b"}"


def split_points(data: bytes) -> list[bytes]:
    """Three pieces of ``data`` (cut at a third and two thirds; small frames may give fewer)."""
    n = len(data)
    cuts = sorted({0, n // 3, 2 * n // 3, n})
    return [data[a:b] for a, b in zip(cuts, cuts[1:], strict=False) if b > a]


class Chaos:
    """The planner: one instance per replay run, fed every agent frame in order."""

    def __init__(self, spec: ChaosSpec) -> None:
        self.spec = spec
        self.rng = random.Random(spec.seed)
        self.faults: list[Fault] = []
        self.count = 0
        self.in_run = False

    def _roll(self, p: float) -> bool:
        return p > 0 and self.rng.random() < p  # no draw at all for faults not asked for

    def _note(self, fault: str, kind: str, detail: str = "") -> None:
        self.faults.append(Fault(self.count, fault, kind, detail))

    def plan(self, data: bytes) -> Plan:
        """Decide the fate of the next agent frame."""
        s = self.spec
        self.count += 1
        kind = _frame_type(data)
        plan = Plan(frames=[data])
        if kind == "agent_start":
            self.in_run = True
        elif kind in (RUN_END, SETTLED):
            self.in_run = False
        if s.jitter:
            plan.delay += self.rng.uniform(0, s.jitter)
        if self._roll(s.stall_p if s.stall else 0.0):
            plan.delay += s.stall
            self._note("stall", kind, f"{s.stall:g} s")
        is_response = kind == "response"
        if is_response and s.latency:
            plan.delay += s.latency
        if is_response and self._roll(s.drop):
            self._note("drop", kind)
            plan.frames = []
            return plan
        if not is_response and kind != "?" and self._roll(s.oversize):
            plan.frames[0] = _add_field(plan.frames[0], "rpcspyChaosPad", "x" * s.oversize_bytes)
            self._note("oversize", kind, f"+{s.oversize_bytes} bytes")
        if kind != "?" and self._roll(s.u2028):
            plan.frames[0] = _add_field(plan.frames[0], "rpcspyChaosText", "line\u2028separator\u2029")
            self._note("u2028", kind)
        if is_response and self._roll(s.dup):
            plan.frames.append(plan.frames[0])
            self._note("dup", kind)
        if is_response and self._roll(s.idless_error):
            plan.frames.append(IDLESS_ERROR)
            self._note("idless-error", kind)
        if kind == "message_update" and self.in_run and self._roll(s.settled):
            plan.frames.append(STRAY_SETTLED)
            self._note("settled", kind, "stray agent_settled inside a run")
        if self._roll(s.split):
            plan.split = True
            self._note("split", kind)
        if is_response and self._roll(s.reorder):
            plan.hold = True
            self._note("reorder", kind, "sent after the next frame")
        return plan
