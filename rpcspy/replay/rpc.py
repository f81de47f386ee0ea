"""Replaying a JSON-RPC 2.0 (ACP) recording: error replies and the values a live session renames. Pure.

* :func:`rpc_failure` is the JSON-RPC error a divergent request gets (a notification or a
  response gets none, as JSON-RPC 5 says; an unreadable line gets ``id: null``).
* :class:`Renames` keeps the values that differ between the recorded and the live session
  and must stay consistent: each ``sessionId`` the recorded agent handed out is given to the
  live client as a fresh one (an agent never hands out the same session twice), and the
  working directory the live client opened its session in stands for the recorded one.
  Agent frames are rewritten recorded -> live (``session/update``, ``fs/read_text_file``'s
  path ...), client frames live -> recorded before matching, so ``--match exact`` compares
  what the client meant.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import msgspec

from rpcspy.framing import DECODE_ERRORS
from rpcspy.replay.model import MISSING, ClientFrame, RecordedCommand, classify

_enc = msgspec.json.encode
_dec = msgspec.json.decode

REPLAY_ERROR = -32603
"""Internal error: a divergence is the fake agent's failure to answer (ACP gives -32000 a meaning of its own,
authentication required, which would send a client to ``authenticate``)."""
PARSE_ERROR = -32700
INVALID_REQUEST = -32600


def rpc_failure(frame: ClientFrame, message: str) -> bytes | None:
    """The JSON-RPC error response for a live line the recording cannot answer, or None (nothing to answer)."""
    if frame.kind == "invalid":
        code, ident = PARSE_ERROR, b"null"
    elif frame.kind == "non_object":
        code, ident = INVALID_REQUEST, b"null"
    elif frame.kind == "answer" or frame.id_raw is None:
        return None  # a response, or a notification: JSON-RPC answers neither
    else:
        code, ident = REPLAY_ERROR, frame.id_raw
    error = _enc({"code": code, "message": message, "data": {"rpcspy": "replay divergence"}})
    return b'{"jsonrpc":"2.0","id":' + ident + b',"error":' + error + b"}"


def _inner(s: str) -> bytes:
    """``s`` as it appears between the quotes of a JSON string."""
    return _enc(s)[1:-1]


class _SessionIdOnly(msgspec.Struct):
    sessionId: Any = None


class _Result(msgspec.Struct):
    result: _SessionIdOnly | None = None


_result_dec = msgspec.json.Decoder(_Result)


class Renames:
    """Recorded <-> live session ids and working directory for one replay run."""

    def __init__(self, new_id: Callable[[], str]) -> None:
        self._new_id = new_id
        self.sessions: dict[str, str] = {}
        """Recorded session id -> the live one handed out."""
        self.cwd: tuple[str, str] | None = None
        """(recorded, live) working directory, once the live client opened a session."""

    # -- agent -> client ------------------------------------------------------------------
    def agent_frame(self, data: bytes) -> bytes:
        """A recorded agent frame with recorded session ids and cwd replaced by the live ones."""
        if b'"result"' in data:
            self._learn_session(data)
        for rec, live in self.sessions.items():
            data = data.replace(b'"' + _inner(rec) + b'"', b'"' + _inner(live) + b'"')
        if self.cwd is not None and self.cwd[0] != self.cwd[1]:
            data = _replace_path(data, self.cwd[0], self.cwd[1])
        return data

    def _learn_session(self, data: bytes) -> None:
        try:
            result = _result_dec.decode(data).result
        except DECODE_ERRORS:
            return
        sid = result.sessionId if result is not None else None
        if isinstance(sid, str) and sid not in self.sessions:
            self.sessions[sid] = self._new_id()

    # -- client -> agent ------------------------------------------------------------------
    def client_frame(self, frame: ClientFrame, recorded: list[RecordedCommand]) -> ClientFrame:
        """``frame`` as the recorded client would have said it (live session ids and cwd mapped back)."""
        if not frame.rpc:
            return frame
        data = frame.data
        if self.cwd is None:
            self._learn_cwd(frame, recorded)
        for rec, live in self.sessions.items():
            data = data.replace(b'"' + _inner(live) + b'"', b'"' + _inner(rec) + b'"')
        if self.cwd is not None and self.cwd[0] != self.cwd[1]:
            data = _replace_path(data, self.cwd[1], self.cwd[0])
        return frame if data == frame.data else classify(data)

    def _learn_cwd(self, frame: ClientFrame, recorded: list[RecordedCommand]) -> None:
        live = _cwd(frame)
        if live is None:
            return
        for cmd in recorded:
            rec = _cwd(cmd.frame)
            if rec is not None and cmd.frame.type == frame.type:
                self.cwd = (rec, live)
                return


def needs_cwd(frame: ClientFrame, recorded: list[RecordedCommand]) -> bool:
    """``frame`` opens a session in a directory and no recorded frame indexed so far says the recorded one."""
    return _cwd(frame) is not None and not any(_cwd(c.frame) is not None and c.frame.type == frame.type
                                                for c in recorded)


def _cwd(frame: ClientFrame) -> str | None:
    params = frame.obj.get("params") if isinstance(frame.obj, dict) else None
    cwd = params.get("cwd", MISSING) if isinstance(params, dict) else MISSING
    return cwd if isinstance(cwd, str) and cwd.startswith("/") and len(cwd) > 1 else None


def _replace_path(data: bytes, old: str, new: str) -> bytes:
    """Paths at or under ``old`` (inside JSON strings) moved under ``new``."""
    o, n = _inner(old.rstrip("/")), _inner(new.rstrip("/"))
    data = data.replace(b'"' + o + b'"', b'"' + n + b'"')
    return data.replace(b'"' + o + b"/", b'"' + n + b"/")
