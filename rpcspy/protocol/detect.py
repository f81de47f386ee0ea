"""Guess the dialect of a session from its traffic (``--dialect auto``).

The client's JSON-RPC 2.0 ``initialize`` (the first frame of every ACP session, so a recording says
which dialect it used), or any JSON-RPC message from the agent, decides ACP (another JSON-RPC client
frame is a pi client's mistake: ``misuse.jsonrpc_frame``). Otherwise
only agent frames decide: omp announces itself with ``ready``; pi >= 0.84 sends
delta-only ``message_update``, ``agent_settled`` and system messages; pi >= 0.99 answers
``prompt``/``steer``/``follow_up`` with a ``disposition``; pi 0.73 sends the full
``message`` and ``partial`` in ``message_update``; only the Feb-2026 doc uses
``auto_compaction_*`` without omp's ``ready``.

pi >= 0.84 evidence often comes before the first disposition (a ``get_entries`` answer, a
run's events), so a ``pi-0.84`` decision stays *refinable*: a later disposition (or
``agent_settled.aborted``) refines it to ``pi-0.99``, and a success response to
``prompt``/``steer``/``follow_up`` without one confirms it.
"""

from typing import Any, Literal

from rpcspy.protocol.spec import ACP_V1, FALLBACK, OMP_18, PI_073, PI_084, PI_099, PI_FEB2026, REFINED
from rpcspy.protocol.vocabulary import DISPOSED_COMMANDS, MESSAGE_EDGES, names

DEFAULT = FALLBACK

_DECISIVE: dict[str, tuple[str, str]] = {
    "ready": (OMP_18, "omp `ready` frame"),
    "prompt_result": (OMP_18, "omp `prompt_result` frame"),
    "session_settled": (OMP_18, "omp `session_settled` frame"),
    "available_commands_update": (OMP_18, "omp `available_commands_update` frame"),
    "host_tool_call": (OMP_18, "omp `host_tool_call` frame"),
    "host_uri_request": (OMP_18, "omp `host_uri_request` frame"),
    "rpc_chunk": (OMP_18, "omp `rpc_chunk` frame"),
    "agent_settled": (PI_084, "`agent_settled` event: pi >= 0.84"),
    "bash_execution_update": (PI_084, "`bash_execution_update` event: pi >= 0.84"),
    "entry_appended": (PI_084, "`entry_appended` event: pi >= 0.84"),
    "auto_compaction_start": (PI_FEB2026, "`auto_compaction_start` without an omp `ready` frame: "
                              "the Feb-2026 doc's event names"),
    "auto_compaction_end": (PI_FEB2026, "`auto_compaction_end` without an omp `ready` frame: "
                            "the Feb-2026 doc's event names"),
}
_PI084_COMMANDS = frozenset({"clear_queue", "get_available_thinking_levels", "get_entries", "get_tree"})
"""Commands pi >= 0.84 answers with success and pi 0.73 does not know (omp is caught by `ready`)."""
_MESSAGE_EVENTS = names(MESSAGE_EDGES | {"turn_end"})
"""Events that carry a whole ``message`` (its fields tell the dialects apart)."""


class DialectDetector:
    """Feed decoded frames; guesses the dialect from the traffic.

    ``feed()`` returns the dialect on the frame that makes it sure, else ``None``
    (also on every frame after that). ``dialect`` is the best guess so far and
    ``reason`` says why.
    """

    __slots__ = ("_dialect", "_reason", "_sure", "_refinable", "frames_seen")

    def __init__(self) -> None:
        self._dialect = DEFAULT
        self._reason = "no distinguishing agent frame seen yet; assuming pi 0.73"
        self._sure = False
        self._refinable = False
        self.frames_seen = 0

    @classmethod
    def known(cls, dialect: str, reason: str) -> "DialectDetector":
        """A detector already sure of ``dialect`` (found beforehand, e.g. by a first pass over a recording)."""
        detector = cls()
        detector._dialect, detector._reason, detector._sure = dialect, reason, True
        return detector

    @property
    def dialect(self) -> str:
        """Best guess so far (default ``"pi-0.73"``)."""
        return self._dialect

    @property
    def reason(self) -> str:
        """Why, e.g. "message_update without `message` (delta-only): pi >= 0.84"."""
        return self._reason

    @property
    def sure(self) -> bool:
        return self._sure

    @property
    def refinable(self) -> bool:
        """Sure, but a later frame may still refine the dialect (see :data:`REFINED`)."""
        return self._refinable

    def feed(self, obj: Any, direction: str) -> str | None:
        """Look at one decoded frame; return the dialect once it becomes sure (or is refined), else None."""
        if type(obj) is not dict:
            return None
        if not self._sure and "jsonrpc" in obj and (direction == "a2c" or obj.get("method") == "initialize"):
            self.frames_seen += 1
            self._dialect, self._reason, self._sure = ACP_V1, _jsonrpc(obj, direction), True
            return self._dialect
        if direction != "a2c":
            return None
        if self._sure:
            return self._refine(obj) if self._refinable else None
        self.frames_seen += 1
        found = self._classify(obj)
        if found is None:
            return None
        self._dialect, self._reason = found
        self._sure = True
        self._refinable = self._dialect in REFINED
        if self._refinable:  # the deciding frame itself may already show the newer dialect
            return self._refine(obj) or self._dialect
        return self._dialect

    def _refine(self, obj: dict[str, Any]) -> str | None:
        """A refinable decision: the newer dialect when ``obj`` shows it; None otherwise."""
        found = _pi099(obj)
        if found is True:
            self._refinable = False
            return None
        if found is None:
            return None
        self._dialect, self._reason = REFINED[self._dialect], found
        self._refinable = False
        return self._dialect

    def _classify(self, obj: dict[str, Any]) -> tuple[str, str] | None:
        type_ = obj.get("type")
        if type(type_) is not str:
            return None
        hit = _DECISIVE.get(type_)
        if hit is not None:
            return hit
        if type_ == "message_update":
            return _message_update(obj)
        if type_ in _MESSAGE_EVENTS:
            return _message(obj.get("message"), obj)
        if type_ == "agent_end":
            if "willRetry" in obj:
                return PI_084, "`agent_end.willRetry`: pi >= 0.84"
            if "isTerminal" in obj:
                return OMP_18, "`agent_end.isTerminal`: omp"
            messages = obj.get("messages")
            for message in messages if isinstance(messages, list) else ():
                if (found := _message(message, obj)) is not None:
                    return found
        if type_ == "response":
            return _response(obj)
        return None


def _jsonrpc(obj: dict[str, Any], direction: str) -> str:
    """Why a JSON-RPC message shows ACP v1."""
    params, result = obj.get("params"), obj.get("result")
    if obj.get("method") == "initialize" and isinstance(params, dict):
        return f"client `initialize` with protocolVersion {params.get('protocolVersion')!r}: ACP (JSON-RPC 2.0)"
    if isinstance(result, dict) and "protocolVersion" in result:
        return f"`initialize` answered with protocolVersion {result.get('protocolVersion')!r}: ACP (JSON-RPC 2.0)"
    return "a JSON-RPC 2.0 message from the agent before any `initialize` was seen: ACP"


def _pi099(obj: dict[str, Any]) -> str | Literal[True] | None:
    """Why ``obj`` shows pi >= 0.99; True when it shows an older pi; None when it says nothing."""
    type_ = obj.get("type")
    if type_ == "agent_settled" and "aborted" in obj:
        return "`agent_settled.aborted`: pi >= 1.1"
    command = obj.get("command")
    if type_ != "response" or obj.get("success") is not True or type(command) is not str or command not in DISPOSED_COMMANDS:
        return None
    data = obj.get("data")
    if isinstance(data, dict) and "disposition" in data:
        return f"`{obj['command']}` response with a `disposition`: pi >= 0.99"
    return True


def _response(obj: dict[str, Any]) -> tuple[str, str] | None:
    command = obj.get("command")
    if type(command) is not str:  # pi echoes a client's non-string type here
        return None
    if obj.get("success") is True:
        data = obj.get("data")
        if command in DISPOSED_COMMANDS and isinstance(data, dict) and "disposition" in data:
            return PI_099, f"`{command}` response with a `disposition`: pi >= 0.99"
        if command in _PI084_COMMANDS:
            return PI_084, f"success response to `{command}`: pi >= 0.84"
        if command == "get_state" and isinstance(data, dict) and "queuedMessageCount" in data:
            return OMP_18, "`get_state` data with `queuedMessageCount`: omp"
    elif "id" in obj and str(obj.get("error", "")).startswith("Unknown command:"):
        return PI_084, "unknown-command error that echoes the request id: pi >= 0.79.7"
    return None


def _message_update(obj: dict[str, Any]) -> tuple[str, str] | None:
    if "message" not in obj:
        return PI_084, "message_update without `message` (delta-only): pi >= 0.84"
    if "messageId" in obj:
        return OMP_18, "message_update with `messageId`: omp"
    event = obj.get("assistantMessageEvent")
    if isinstance(event, dict) and "partial" not in event:
        return OMP_18, "message_update with `message` but no `partial` (omp delta projection)"
    return PI_073, "message_update carries the full `message` and `partial`: pi 0.73"


def _message(message: Any, event: dict[str, Any]) -> tuple[str, str] | None:
    if "messageId" in event:
        return OMP_18, f"{event.get('type')} with `messageId`: omp"
    if type(message) is not dict:
        return None
    role = message.get("role")
    if role == "system":
        return PI_084, "system-role message: pi >= 0.86"
    if role == "assistant" and message.get("stopReason") == "pending":
        return PI_084, "assistant message with stopReason 'pending': pi >= 0.84"
    if role == "user" and "attribution" in message:
        return OMP_18, "user message with `attribution`: omp"
    if role == "assistant" and ("ttft" in message or "duration" in message):
        return OMP_18, "assistant message with `ttft`/`duration`: omp"
    return None
