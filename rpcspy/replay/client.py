"""``rpcspy replay --client REC -- AGENT``, the pure half: what the recorded client waits for and sends.

The recording becomes a plan: each recorded client frame, the recorded gap before
it, and what the recorded agent had said since the previous client frame
(responses by id, id-less responses, ``ready``/``agent_end`` events, dialog
requests). Before sending a frame we wait until the live agent has said as much
(or ``timeout`` passes, noted), and at least the recorded gap scaled by ``speed``.
Dialog answers are sent to the live dialog of the same rank (ids mapped). The new
session is recorded (mode ``client``, source REC) for ``rpcspy diff``. The process
and its pipes are driven by :mod:`rpcspy.pump.commands.fake_client`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

import msgspec

from rpcspy.framing import DECODE_ERRORS
from rpcspy.protocol.vocabulary import ANSWER_TYPES, READY, RUN_END, RUN_PROGRESS_EVENTS
from rpcspy.protocol.vocabulary import DIALOGS as DIALOG_METHODS
from rpcspy.protocol.vocabulary import HOST_REQUEST_TYPES as REQUEST_TYPES
from rpcspy.replay.ids import canon

LANDMARK_TYPES = frozenset({READY, RUN_END})
_TYPE_PREFIX = b'{"type":"'
_BORING = RUN_PROGRESS_EVENTS


class _Env(msgspec.Struct):
    type: object = None
    id: msgspec.Raw = msgspec.Raw(b"")
    method: object = None


_env = msgspec.json.Decoder(_Env)


class Said(msgspec.Struct):
    """What an agent said, as counts the client waits for."""

    responses: Counter[bytes] = msgspec.field(default_factory=Counter)
    """Responses by canonical id."""
    idless: int = 0
    events: Counter[str] = msgspec.field(default_factory=Counter)
    """Landmark events (``ready``, ``agent_end``...) by type."""
    requests: list[bytes] = msgspec.field(default_factory=list)
    """Agent request ids needing an answer (dialogs, host tool calls), in order."""

    def add(self, data: bytes) -> None:
        if data.startswith(_TYPE_PREFIX):
            end = data.find(b'"', 9)
            if end > 0 and data[9:end].decode("utf-8", "replace") in _BORING:
                return
        try:
            env = _env.decode(data)
        except DECODE_ERRORS:
            return
        typ = env.type
        if not isinstance(typ, str):  # a list or an object is no type (and cannot key a table)
            return
        if typ == "response":
            if len(env.id):
                self.responses[canon(bytes(env.id))] += 1
            else:
                self.idless += 1
        elif typ in LANDMARK_TYPES:
            self.events[typ] += 1
        elif len(env.id) and (typ in REQUEST_TYPES or (typ == "extension_ui_request" and isinstance(env.method, str)
                                                   and env.method in DIALOG_METHODS)):
            self.requests.append(canon(bytes(env.id)))

    def forgive(self, need: Said) -> None:
        """Count what ``need`` has and this lacks as arrived (after a timeout)."""
        for k, n in need.responses.items():
            self.responses[k] = max(self.responses[k], n)
        self.idless = max(self.idless, need.idless)
        for typ, n in need.events.items():
            self.events[typ] = max(self.events[typ], n)
        self.requests.extend([b"null"] * (len(need.requests) - len(self.requests)))

    def missing(self, need: Said) -> list[str]:
        """What ``need`` has that this has not (empty when caught up)."""
        out = [f"response id {k.decode('utf-8', 'replace')}" for k, n in need.responses.items() if self.responses[k] < n]
        if self.idless < need.idless:
            out.append(f"{need.idless - self.idless} id-less response(s)")
        out += [f"{n - self.events[k]} {k}" for k, n in need.events.items() if self.events[k] < n]
        if len(self.requests) < len(need.requests):
            out.append(f"{len(need.requests) - len(self.requests)} dialog request(s)")
        return out


class Step(msgspec.Struct):
    """One recorded client frame (or the client's EOF) and what to wait for before it."""

    t: float
    data: bytes | None
    """Exact bytes to write (line terminator included); None for EOF."""
    need: Said
    seq: int = 0


def plan(entries: Iterable[msgspec.Struct], *, transcript: bool = False) -> list[Step]:
    """The steps of a recording: cumulative expectations before each client frame."""
    from rpcspy.events import Eof, Note
    from rpcspy.recording.format import FrameEntry

    said = Said()
    steps: list[Step] = []
    for e in entries:
        if isinstance(e, FrameEntry):
            if e.dir == "a2c":
                said.add(e.data())
            elif e.dir == "c2a":
                steps.append(Step(e.t, e.to_frame().raw(), _copy(said), e.seq))
        elif (isinstance(e, Eof) and e.dir == "c2a") or (
                transcript and isinstance(e, Note) and e.text.startswith("closing stdin (EOF)")):
            steps.append(Step(e.t, None, _copy(said), e.seq))
            break
    return steps


def _copy(s: Said) -> Said:
    return Said(Counter(s.responses), s.idless, Counter(s.events), list(s.requests))


def map_answer(data: bytes, recorded: list[bytes], live: list[bytes]) -> bytes:
    """A recorded dialog answer readdressed to the live request of the same rank.

    ``recorded`` and ``live`` are the canonical ids of the requests needing an answer, in
    order, in the recording and in the live session. Anything else is returned as it is.
    """
    line = data.rstrip(b"\r\n")
    try:
        obj = msgspec.json.decode(line)
    except DECODE_ERRORS:
        return data
    if not isinstance(obj, dict) or obj.get("type") not in ANSWER_TYPES or "id" not in obj:
        return data
    rec_id = canon(msgspec.json.encode(obj["id"]))
    if rec_id not in recorded:
        return data
    rank = recorded.index(rec_id)
    if rank >= len(live) or live[rank] == rec_id:
        return data
    obj["id"] = msgspec.json.decode(live[rank])
    return msgspec.json.encode(obj) + data[len(line):]
