"""Values the replay core works on: client frames, recorded commands, played frames.

A recording is split into *exchanges*: a client frame (a command, or an answer such
as ``extension_ui_response``) and the agent frames that followed it until the next
client frame. Agent frames before the first client frame form the *prelude* (with omp's
``ready`` even when it was read after a command, see :mod:`rpcspy.replay.source`); those
after the client's EOF form the *epilogue*. Pure: no I/O.
"""

from __future__ import annotations

from typing import Any, Literal

import msgspec

from rpcspy.framing import DECODE_ERRORS
from rpcspy.inert import inert_line
from rpcspy.protocol.acp import looks_jsonrpc
from rpcspy.protocol.vocabulary import ANSWER_TYPES as CLIENT_ANSWER_TYPES

_ID_ERRORS: tuple[type[Exception], ...] = (*DECODE_ERRORS, KeyError)
"""What reading a frame's raw ``id`` may raise."""

FrameKind = Literal["command", "answer", "invalid", "non_object"]

_raw_id = msgspec.json.Decoder(dict[str, msgspec.Raw])


class _Missing:
    __slots__ = ()

    def __repr__(self) -> str:
        return "<missing>"


MISSING: Any = _Missing()
"""Marker for an absent ``id`` (pi keeps "absent" and ``null`` apart)."""


class ClientFrame(msgspec.Struct):
    """One line the client sent (or the recorded client sent), classified."""

    data: bytes
    kind: FrameKind
    obj: Any = None
    """The decoded JSON value (None for invalid frames)."""
    type: Any = None
    """``obj["type"]`` when present (any JSON value), else None."""
    id: Any = MISSING
    """``obj["id"]`` as decoded, or :data:`MISSING`."""
    id_raw: bytes | None = None
    """The id's JSON bytes as sent (None when absent)."""
    rpc: bool = False
    """A JSON-RPC 2.0 message (ACP): ``type`` is its ``method``; an ``answer`` is a response to an agent request."""

    @property
    def label(self) -> str:
        """A short human name: the command type (JSON-RPC: the method), or the frame kind."""
        if isinstance(self.type, str):
            return self.type
        if self.rpc and self.kind == "answer":
            return "response"
        if self.kind == "invalid":
            return "<invalid JSON>"
        if self.kind == "non_object":
            return "<non-object>"
        return "<no type>" if self.type is None else repr(self.type)


def classify(data: bytes) -> ClientFrame:
    """Decode and classify one client line (without LF and CR)."""
    try:
        obj = msgspec.json.decode(data)
    except DECODE_ERRORS:
        return ClientFrame(data, "invalid")
    if not isinstance(obj, dict):
        return ClientFrame(data, "non_object", obj)
    if looks_jsonrpc(obj):
        method = obj.get("method")
        frame = ClientFrame(data, "command" if "method" in obj else "answer", obj,
                            method if isinstance(method, str) else None, rpc=True)
    else:
        typ = obj.get("type")
        if not isinstance(typ, str):  # a list or an object is no type (and cannot key a table)
            typ = None
        kind: FrameKind = "answer" if typ in CLIENT_ANSWER_TYPES else "command"
        frame = ClientFrame(data, kind, obj, typ)
    if "id" in obj:
        frame.id = obj["id"]
        try:
            frame.id_raw = bytes(_raw_id.decode(data)["id"])
        except _ID_ERRORS:
            frame.id_raw = msgspec.json.encode(obj["id"])
    return frame


class RecordedCommand(msgspec.Struct):
    """A client frame of the recording and where its exchange lies."""

    index: int
    """Position among the recording's client frames (0-based)."""
    seq: int
    """The entry's ``seq`` in the recording, for messages."""
    t: float
    frame: ClientFrame
    start: int = -1
    """File offset just after this command's line (exchange start), -1 when in memory."""
    end: int = -1
    """File offset of the next client frame (exchange end), -1 while unknown."""
    frames: list[PlayItem] | None = None
    """The exchange's frames when the source keeps them in memory."""

    @property
    def label(self) -> str:
        return self.frame.label

    def describe(self) -> str:
        ident = "" if self.frame.id is MISSING else f" id {msgspec.json.encode(self.frame.id).decode()}"
        return f"seq {self.seq} ({self.label}{ident})"


class PlayItem(msgspec.Struct):
    """One thing to reproduce from the recording: an agent frame, or the agent's exit."""

    t: float
    dir: Literal["a2c", "err", "exit", "eof"]
    data: bytes = b""
    nl: bool = True
    cr: bool = False
    code: int = 0
    """Exit status when ``dir == "exit"``."""


class Divergence(msgspec.Struct):
    """A live client frame the recording could not answer (or another mismatch)."""

    line: int
    """1-based number of the live client line."""
    label: str
    message: str
    live_id: Any = MISSING
    closest_seq: int | None = None
    path: str | None = None
    t: float = 0.0
    kind: str = "unmatched"
    """unmatched, timeout (a dialog the live client did not answer in time)."""

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"line": self.line, "command": self.label, "kind": self.kind, "message": self.message}
        if self.live_id is not MISSING:
            out["id"] = self.live_id
        if self.closest_seq is not None:
            out["closest_seq"] = self.closest_seq
        if self.path is not None:
            out["path"] = self.path
        return out


class Report(msgspec.Struct):
    """What happened in one replay run, for stderr, ``--report`` and the pytest plugin."""

    recording: str
    match: str
    matched: int = 0
    reused: int = 0
    divergences: list[Divergence] = msgspec.field(default_factory=list)
    unconsumed: list[RecordedCommand] = msgspec.field(default_factory=list)
    final: bool = False
    exit_code: int | None = None
    chaos: str | None = None
    """The ``--chaos`` SPEC in force, if any."""
    faults: list[dict[str, Any]] = msgspec.field(default_factory=list)
    """Every fault chaos injected (:meth:`rpcspy.replay.chaos.Fault.to_json`), in order."""

    @property
    def ok(self) -> bool:
        return not self.divergences

    def to_json(self) -> dict[str, Any]:
        return {
            "recording": self.recording,
            "match": self.match,
            "matched": self.matched,
            "reused": self.reused,
            "divergences": [d.to_json() for d in self.divergences],
            "unconsumed": [
                {"seq": c.seq, "command": c.label, **({} if c.frame.id is MISSING else {"id": c.frame.id})}
                for c in self.unconsumed
            ],
            "final": self.final,
            "exit_code": self.exit_code,
            **({"chaos": self.chaos, "faults": self.faults} if self.chaos is not None else {}),
        }

    def text(self) -> str:
        """The human report written to stderr at exit (empty when there is nothing to say)."""
        if not self.divergences and not self.unconsumed and not self.faults:
            return ""
        lines = [(
            f"rpcspy replay: {self.matched} client frame(s) matched, {len(self.divergences)} divergence(s), "
            f"{len(self.unconsumed)} recorded client frame(s) not consumed ({self.recording})"
        )]
        for d in self.divergences:
            lines.append(f"  diverged: live line {d.line} {d.label}: {d.message}")
        for c in self.unconsumed[:50]:
            lines.append(f"  not consumed: {c.describe()}")
        if len(self.unconsumed) > 50:
            lines.append(f"  ... and {len(self.unconsumed) - 50} more")
        if self.faults:
            lines.append(f"  chaos ({self.chaos}): {len(self.faults)} fault(s) injected")
            for f in self.faults[:50]:
                extra = f" ({f['detail']})" if f.get("detail") else ""
                lines.append(f"    frame {f['frame']} {f['type']}: {f['fault']}{extra}")
            if len(self.faults) > 50:
                lines.append(f"    ... and {len(self.faults) - 50} more (all in --report)")
        return "\n".join(inert_line(line) for line in lines) + "\n"
