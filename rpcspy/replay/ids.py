"""Id rewriting between a recording and a live client. Pure (fresh ids come from a callable).

* Command ids: which recorded command a recorded response answers is
  :class:`~rpcspy.protocol.pairing.Pairing`'s to say, as for check, show and stats: it
  is fed each recorded command when its exchange starts playing and each recorded
  response as it is played. The response then gets the live client's id for that
  command, or loses its ``id`` when the live command had none (pi echoes only ids it
  got); an id-less answer to a recorded command without id gains the live id. So
  commands served before earlier answers went out (polling with ``--reuse``, a recorded
  client reusing an id, id-less answers recorded after a later command) each get their
  own id back. ``bash_execution_update``/``prompt_result`` follow the command their id
  names (:meth:`Pairing.owner`).
* Agent request ids (``extension_ui_request``, ``host_tool_call``, ...): sent as
  recorded the first time, with a fresh id when a recorded request is sent again;
  the live answer's id is mapped back to the recorded one before matching, and
  ``targetId`` of cancel frames follows the same map.
* JSON-RPC 2.0 (ACP): the same with a request's ``method`` for its type. A response
  is paired to the recorded request (a second pairing, ``jsonrpc=True``) and given the
  live request's id; an agent request (``session/request_permission``, ``fs/*``,
  ``terminal/*``) keeps its recorded id the first time and gets a fresh one when sent
  again; notifications pass as they are.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from typing import Any

import msgspec

from rpcspy.framing import DECODE_ERRORS
from rpcspy.protocol.pairing import Pairing, is_blank
from rpcspy.protocol.vocabulary import AGENT_CANCEL_TYPES as CANCEL_TYPES
from rpcspy.protocol.vocabulary import AGENT_REQUEST_TYPES as REQUEST_TYPES
from rpcspy.protocol.vocabulary import ECHO_TYPES, READY
from rpcspy.replay.model import MISSING, ClientFrame

_dec = msgspec.json.decode
_enc = msgspec.json.encode

_INTERESTING = ECHO_TYPES | REQUEST_TYPES | CANCEL_TYPES
_TYPE_PREFIX = b'{"type":"'


class _Envelope(msgspec.Struct):
    type: Any = None
    id: msgspec.Raw = msgspec.Raw(b"")
    command: msgspec.Raw = msgspec.Raw(b"")
    success: Any = None
    method: Any = None
    targetId: msgspec.Raw = msgspec.Raw(b"")
    timeout: Any = None
    jsonrpc: Any = None
    result: msgspec.Raw = msgspec.Raw(b"")
    error: msgspec.Raw = msgspec.Raw(b"")


_env_decoder = msgspec.json.Decoder(_Envelope)


def canon(raw: bytes) -> bytes:
    """The JSON bytes ``JSON.stringify`` would write for this value (as pi echoes ids)."""
    try:
        return _enc(_dec(raw))
    except DECODE_ERRORS:
        return raw


class Served(msgspec.Struct):
    """One recorded command being answered for one live command."""

    recorded: ClientFrame
    live: ClientFrame
    started: bool = False
    """Its exchange began playing: the pairing waits for the recorded command's answer."""

    @property
    def live_id(self) -> bytes | None:
        """The live command's id as pi echoes it (None: it had none)."""
        return None if self.live.id_raw is None else canon(self.live.id_raw)


class AgentRequest(msgspec.Struct, frozen=True):
    """An agent request just sent: its recorded and live id (JSON bytes), method and timeout."""

    type: str
    recorded: bytes
    live: bytes
    method: Any
    timeout: Any


def _fresh_uuid() -> str:
    import uuid

    return str(uuid.uuid4())


class IdMapper:
    """Both directions of id translation for one replay run."""

    def __init__(self, new_id: Callable[[], str] = _fresh_uuid, *, omp: bool = False) -> None:
        self.new_id = new_id
        self.omp = omp
        """The recording is omp's (it skips blank lines, may answer a prompt twice): given, or learnt from
        the ``ready`` played first (the source plays a late ``ready`` with the prelude)."""
        self._pairing = Pairing(bounded=True)
        """Recorded commands (each :class:`Served` in its ``note``) and the recorded responses played."""
        self._rpc = Pairing(bounded=True, jsonrpc=True)
        """The same for JSON-RPC requests."""
        self._seq = 0
        self._queued: deque[Served] = deque()
        """Served commands whose exchange has not started, in serve (= play) order."""
        self._live_to_rec: dict[bytes, bytes] = {}
        self._rec_to_live: dict[bytes, bytes] = {}
        self.last_request: AgentRequest | None = None
        """Set by :meth:`agent_frame` when the frame it rewrote was an agent request."""

    # -- client -> agent ------------------------------------------------------------------
    def command_served(self, recorded: ClientFrame, live: ClientFrame) -> Served:
        """Remember that ``live`` is answered by ``recorded``'s exchange (mapped once it plays)."""
        served = Served(recorded, live)
        self._queued.append(served)
        return served

    def _start(self, served: Served | None) -> None:
        """Exchanges play in serve order: ``served``'s and all queued before it have started.

        ``None`` (a frame outside any exchange: the epilogue) starts them all.
        """
        if served is not None and served.started:
            return
        queued = self._queued
        while queued:
            s = queued.popleft()
            s.started = True
            self._seq += 1
            rec = s.recorded
            if rec.rpc:
                p = self._rpc.command(self._seq, 0.0, rec.obj)[0] if rec.kind == "command" else None
                if p is not None:
                    p.note = s
                if s is served:
                    return
                continue
            p = self._pairing.client(self._seq, 0.0, rec.obj, parsed=rec.kind != "invalid", blank=is_blank(rec.data),
                                     omp=self.omp)
            if p is not None:
                p.note = s
            if s is served:
                return

    def answer_id(self, live: ClientFrame) -> Any:
        """The recorded id a live answer refers to (the live id itself when unknown)."""
        if live.id_raw is None:
            return MISSING
        rec = self._live_to_rec.get(canon(live.id_raw))
        return live.id if rec is None else _dec(rec)

    # -- agent -> client ------------------------------------------------------------------
    def agent_frame(self, data: bytes, served: Served | None = None) -> bytes:
        """The bytes to send for a recorded agent frame."""
        self.last_request = None
        if data.startswith(_TYPE_PREFIX):
            end = data.find(b'"', 9)
            name = data[9:end].decode("utf-8", "replace") if end > 0 else None
            if name == READY:
                self.omp = True
            if name is not None and name not in _INTERESTING:
                return data
        try:
            env = _env_decoder.decode(data)
            return self._rewrite(data, env, served)
        except DECODE_ERRORS:  # an id msgspec cannot hold (1e400), a command that is not UTF-8: sent as recorded
            return data

    def _rewrite(self, data: bytes, env: _Envelope, served: Served | None) -> bytes:
        typ = env.type
        if env.jsonrpc is not None or (typ is None and (env.method is not None or len(env.result) or len(env.error))):
            return self._rpc_frame(data, served, env)
        if not isinstance(typ, str):
            return data
        rec_id = bytes(env.id)
        if typ in ECHO_TYPES:
            if self._queued:
                self._start(served)
            return self._echo(data, typ, rec_id, env)
        if typ in REQUEST_TYPES and rec_id:
            if typ == "extension_ui_request" and env.method == "cancel" and len(env.targetId):
                data = self._retarget(data, bytes(env.targetId))
            key = canon(rec_id)
            if key in self._rec_to_live:  # sent before (--reuse): a fresh id keeps ids unique
                live = _enc(self.new_id())
            else:
                live = key
            self._rec_to_live[key] = live
            self._live_to_rec[live] = key
            self.last_request = AgentRequest(typ, key, live, env.method, env.timeout)
            return data if live == key else _set_id(data, rec_id, live)
        if typ in CANCEL_TYPES and len(env.targetId):
            return self._retarget(data, bytes(env.targetId))
        return data

    def _rpc_frame(self, data: bytes, served: Served | None, env: _Envelope) -> bytes:
        """A JSON-RPC agent frame: a response gets its live request's id, a request an id of its own."""
        rec_id = bytes(env.id)
        if self._queued:  # any frame of an exchange: it has begun playing (and those served before it)
            self._start(served)
        if env.method is not None:
            if not rec_id:
                return data  # a notification
            key = canon(rec_id)
            live = _enc(self.new_id()) if key in self._rec_to_live else key
            self._rec_to_live[key] = live
            self._live_to_rec[live] = key
            self.last_request = AgentRequest("request", key, live, env.method, None)
            return data if live == key else _set_id(data, rec_id, live)
        if not rec_id or rec_id == b"null":
            return data  # an answer to an unreadable line: nothing to map
        self._seq += 1
        answer = self._rpc.response(self._seq, {"id": _dec(rec_id), **({"error": 1} if len(env.error) else {})})
        s = answer.command.note if answer.command is not None else None
        if not isinstance(s, Served) or s.live_id is None:
            return data
        live = s.live_id
        return data if live == canon(rec_id) else _set_id(data, rec_id, live)

    def rpc_waiting(self) -> list[Served]:
        """Live JSON-RPC requests whose exchange is playing and whose recorded response has not been sent."""
        served = [p.note for p in self._rpc.waiting_with_id()]
        for p in self._rpc.waiting_with_id():
            p.answers += 1
        self._rpc.forget()
        return [s for s in served if isinstance(s, Served)]

    def _echo(self, data: bytes, typ: str, rec_id: bytes, env: _Envelope) -> bytes:
        """A response (paired by the pairing) or another echo of a command id, with the live id."""
        if typ == "response":
            obj: dict[str, Any] = {"success": env.success}
            if rec_id:
                obj["id"] = _dec(rec_id)
            if len(env.command):
                obj["command"] = _dec(env.command)
            self._seq += 1
            answer = self._pairing.response(self._seq, obj, omp=self.omp)
            owner = answer.command
            if not rec_id and answer.kind != "idless":  # an error that dropped its command's id stays id-less
                return data
        elif rec_id:
            owner = self._pairing.owner(_dec(rec_id))
        else:
            return data
        s = owner.note if owner is not None else None
        if not isinstance(s, Served):
            return data
        live = s.live_id
        if not rec_id:
            return data if live is None else _set_id(data, None, live)
        return data if live == canon(rec_id) else _set_id(data, rec_id, live)

    def _retarget(self, data: bytes, target: bytes) -> bytes:
        live = self._rec_to_live.get(canon(target))
        if live is None or live == canon(target):
            return data
        obj = _dec(data)
        obj["targetId"] = _dec(live)
        return _enc(obj)


def _set_id(data: bytes, old: bytes | None, new: bytes | None) -> bytes:
    """``data`` with its top-level ``id`` replaced by ``new`` (removed when None, added when ``old`` is None)."""
    if old is not None:
        head = b'{"id":' + old
        if data.startswith(head) and data[len(head):len(head) + 1] in (b",", b"}"):
            rest = data[len(head):]
            if new is None:
                return b"{" + (rest[1:] if rest.startswith(b",") else rest)
            return b'{"id":' + new + rest
    elif new is not None and data.startswith(b"{") and not data.startswith(b"{}"):
        return b'{"id":' + new + b"," + data[1:]
    obj = _dec(data)
    if not isinstance(obj, dict):
        return data
    if new is None:
        obj.pop("id", None)
    elif "id" in obj:
        obj["id"] = _dec(new)
    else:
        obj = {"id": _dec(new), **obj}
    return _enc(obj)
