"""The injected-id table: what goes to the agent for an injection, and who hears of its answer.

The control server asks a :class:`Ledger` and executes what it returns: the line to send, the id
prefix to divert first, and :class:`Push` values (a control message for one connection). The
connections are opaque here (any value). Messages are those of docs/control-protocol.md:

* ``{"op":"inject","ok":true,"inject_id":ID|null,"expects_response":BOOL}``, the acknowledgement;
* ``{"op":"response","inject_id":ID,"repeat":BOOL,"response":{...}}``, the agent's answer with the
  injector's own id restored (or none, if it sent none); ``repeat`` for a second answer to one id;
* ``{"op":"response","inject_id":ID,"ok":false,"error":...}``, when no answer will come.

A response is never pushed before its acknowledgement: one that arrives first waits for it.

JSON-RPC 2.0 (ACP) frames are injected too: a request gets an id in the same namespace (a string
the client never uses), a notification (``session/cancel``) and a response to one of the agent's
requests go as they are, with no answer to wait for.
"""

from __future__ import annotations

import json
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from rpcspy.framing import DECODE_ERRORS
from rpcspy.protocol.acp import looks_jsonrpc
from rpcspy.protocol.vocabulary import ANSWER_TYPES

PREFIX = "rpcspy-inject-"
"""The id namespace of injected commands; responses with such ids never reach the client."""
KEEP_ANSWERED = 256
"""Answered injections remembered, so that a repeated answer still finds its injector."""
ARM_WITHIN = 5.0
"""How long an injection that expects an answer waits for the divert to be armed (the proxy's relay of the
agent's output reading it line by line, which it can only start between two of its writes to the client);
not armed by then, the injection is refused and nothing is sent to the agent."""

C = TypeVar("C")


def injected_id(n: int) -> str:
    """The id of the ``n``-th injection: :data:`PREFIX` and decimal digits (what the diverter matches)."""
    return f"{PREFIX}{n}"


@dataclass(frozen=True)
class Push(Generic[C]):
    """Send ``message`` (one control message) to connection ``to``."""

    to: C
    message: dict[str, Any]


@dataclass(frozen=True)
class Injection:
    """What to send for one injection request."""

    command: dict[str, Any]
    """The frame as the agent gets it."""
    inject_id: str | None
    """Our id for it; None for a frame that answers the agent (sent as it is, no response comes)."""
    divert: bytes | None
    """Before sending: divert the agent's responses to ids with this prefix, and send only once that is
    armed (asked until it is, by each injection that expects a response: :meth:`Ledger.diverted` once
    armed, :meth:`Ledger.unarmed` if not within :data:`ARM_WITHIN`)."""


@dataclass
class _Pending(Generic[C]):
    conn: C
    ref: Any
    had_id: bool
    original_id: Any
    acked: bool = False
    early: dict[str, Any] | None = None


def refusal(command: Any, *, exited: bool, input_closed: bool) -> str | None:
    """Why ``command`` cannot be injected now, or None."""
    if isinstance(command, dict) and looks_jsonrpc(command):
        if command.get("jsonrpc", "2.0") != "2.0":
            return 'a JSON-RPC message must say "jsonrpc":"2.0"'
        if not isinstance(command.get("method"), str) and not ("id" in command and ("result" in command)
                                                                 != ("error" in command)):
            return ("a JSON-RPC message must be a request or notification (a string method) or a response "
                    "to the agent's request (an id and one of result/error)")
    elif not isinstance(command, dict) or not isinstance(command.get("type"), str):
        return ("command must be a JSON object with a string type (anything else would be answered "
                "to the client, which never asked)")
    if exited:
        return "the agent has exited"
    if input_closed:
        return "the agent's stdin is closed"
    return None


class Ledger(Generic[C]):
    """Injected ids to their injectors. Not thread-safe: the caller holds one lock around each call
    and the execution of what it returns (so pushes keep their order)."""

    def __init__(self) -> None:
        self._n = 0
        self._pending: dict[str, _Pending[C]] = {}
        self._unacked: dict[str, _Pending[C]] = {}
        self._answered: OrderedDict[str, _Pending[C]] = OrderedDict()
        self._diverting = False

    def register(self, conn: C, ref: Any, command: dict[str, Any]) -> Injection:
        """A (checked: :func:`refusal`) command from ``conn`` to inject; then :meth:`acknowledge` it
        once sent, or :meth:`withdraw` it if sending failed."""
        rpc = looks_jsonrpc(command)
        if rpc:
            from rpcspy.protocol.acp import NOTIFICATIONS

            command = {"jsonrpc": "2.0", **command}
            if not isinstance(command.get("method"), str) or command["method"] in NOTIFICATIONS:
                return Injection(command, None, None)  # an answer to the agent, or a notification: none comes
        elif command["type"] in ANSWER_TYPES:
            return Injection(command, None, None)
        self._n += 1
        rid = injected_id(self._n)
        self._pending[rid] = self._unacked[rid] = _Pending(conn, ref, "id" in command, command.get("id"))
        rest = {k: v for k, v in command.items() if k != "id"}
        line = {"jsonrpc": rest.pop("jsonrpc"), "id": rid, **rest} if rpc else {"id": rid, **rest}
        return Injection(line, rid, None if self._diverting else PREFIX.encode())

    def diverted(self) -> None:
        """The relay now diverts answers to injected ids (armed: for good)."""
        self._diverting = True

    def unarmed(self, injection: Injection, waited: float) -> str:
        """The divert was not armed within ``waited`` seconds: the injection is withdrawn, never sent (its
        answer could reach the client); the reason its injector is told."""
        self.withdraw(injection)
        return (f"the proxy could not arm the divert that keeps its answer from the client within "
                f"{waited:g} s (its relay of the agent's output is still writing to the client: is the client "
                "reading?); nothing was written to the agent, try again")

    def withdraw(self, injection: Injection) -> None:
        """Sending failed: forget it (its injector is told by the caller)."""
        if injection.inject_id is not None:
            self._pending.pop(injection.inject_id, None)
            self._unacked.pop(injection.inject_id, None)

    def acknowledge(self, conn: C, ref: Any, injection: Injection) -> list[Push[C]]:
        """It was sent: the acknowledgement, then an answer that came first, if any."""
        rid = injection.inject_id
        ack = Push(conn, {"op": "inject", "ref": ref, "ok": True, "inject_id": rid, "expects_response": rid is not None})
        pend = self._unacked.pop(rid, None) if rid is not None else None
        if pend is None:
            return [ack]
        pend.acked = True
        return [ack] if pend.early is None else [ack, Push(pend.conn, pend.early)]

    def answer(self, data: bytes) -> list[Push[C]]:
        """A diverted agent line: its response to the injector, with the injector's id restored."""
        try:
            obj = json.loads(data)
        except DECODE_ERRORS:
            return []
        rid = obj.get("id") if isinstance(obj, dict) else None
        if not isinstance(rid, str):
            return []
        pend = self._pending.pop(rid, None)
        repeat = pend is None
        if pend is None:
            pend = self._answered.get(rid)
            if pend is None:
                return []
        else:
            self._answered[rid] = pend
            while len(self._answered) > KEEP_ANSWERED:
                self._answered.popitem(last=False)
        restored = dict(obj)
        if pend.had_id:
            restored["id"] = pend.original_id
        else:
            del restored["id"]
        return self._tell(pend, {"op": "response", "ref": pend.ref, "inject_id": rid, "repeat": repeat,
                                 "response": restored})

    def fail_all(self, error: str) -> list[Push[C]]:
        """No answer will come (the agent exited, the session ended): tell every injector still waiting."""
        pending, self._pending = self._pending, {}
        return [push for rid, pend in pending.items()
                for push in self._tell(pend, {"op": "response", "ref": pend.ref, "inject_id": rid, "ok": False,
                                              "error": error})]

    @staticmethod
    def _tell(pend: _Pending[C], message: dict[str, Any]) -> list[Push[C]]:
        if pend.acked:
            return [Push(pend.conn, message)]
        pend.early = message  # pushed right after the acknowledgement
        return []
