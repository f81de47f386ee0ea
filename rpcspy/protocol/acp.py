"""The Agent Client Protocol v1 (JSON-RPC 2.0 over stdio): message kinds, methods, capabilities, validation.

The types are generated from the official schema (:mod:`rpcspy.protocol.acp_types`); this module
holds what the schema says in prose: which side sends each method, which capability negotiated in
``initialize`` a method needs, and what makes a JSON-RPC message of each kind. A request carries
``id`` and ``method``, a notification ``method`` alone, a response ``id`` and exactly one of
``result``/``error``. Each side numbers its own requests (independent id spaces, numbers or strings).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

import msgspec
from msgspec import UNSET

from rpcspy.protocol.issues import SchemaIssue, json_type

Kind = Literal["request", "notification", "response", "invalid"]
JSONRPC = "2.0"
CLIENT_METHODS = frozenset({"initialize", "authenticate", "logout", "session/new", "session/load", "session/list",
                            "session/delete", "session/resume", "session/close", "session/set_mode",
                            "session/set_config_option", "session/prompt", "session/cancel"})
"""Methods the client sends (the agent handles them)."""
AGENT_REQUESTS = ("session/request_permission", "fs/read_text_file", "fs/write_text_file", "terminal/create",
                  "terminal/output", "terminal/release", "terminal/wait_for_exit", "terminal/kill",
                  "elicitation/create")
"""Requests the agent sends and the client answers."""
NOTIFICATIONS = frozenset({"session/update", "session/cancel", "elicitation/complete", "$/cancel_request"})
"""Methods that are notifications: never an ``id``, never an answer."""
PERMISSION = "session/request_permission"
PROMPT = "session/prompt"
CANCEL = "session/cancel"
UPDATE = "session/update"
INITIALIZE = "initialize"
CANCELLED = "cancelled"
"""The ``stopReason`` a prompt turn cancelled by ``session/cancel`` must end with (schema: CancelNotification)."""
STATUS_ORDER = {"pending": 0, "in_progress": 1, "completed": 2, "failed": 2}
"""A tool call's status only moves forward (schema ToolCallStatus: pending -> in_progress -> completed | failed)."""
ERROR_CODES = {-32700: "parse error", -32600: "invalid request", -32601: "method not found", -32602: "invalid params",
               -32603: "internal error", -32800: "request cancelled", -32000: "authentication required",
               -32002: "resource not found"}


def looks_jsonrpc(obj: dict[str, Any]) -> bool:
    """A JSON-RPC 2.0 message rather than a pi frame: it says ``jsonrpc``, or has no ``type`` but a
    ``method``, ``result`` or ``error`` (replay, inject and the REPL tell the two apart by this)."""
    return "jsonrpc" in obj or ("type" not in obj and ("method" in obj or "result" in obj or "error" in obj))


def numbered(obj: dict[str, Any], new_id: Any) -> dict[str, Any]:
    """A JSON-RPC message as sent: ``"jsonrpc":"2.0"`` first, and ``new_id`` for a request of ours that
    carries none (a notification, such as ``session/cancel``, and a response keep what they have)."""
    out = {"jsonrpc": JSONRPC, **obj}
    method = out.get("method")
    if "id" in out or not isinstance(method, str) or method in NOTIFICATIONS:
        return out
    return {"jsonrpc": out.pop("jsonrpc"), "id": new_id, **out}


def kind_of(obj: dict[str, Any]) -> Kind:
    """What JSON-RPC message ``obj`` is (``invalid``: neither request, notification nor response)."""
    method = obj.get("method", UNSET)
    if method is not UNSET:
        return "request" if "id" in obj else "notification"
    if "id" in obj and ("result" in obj or "error" in obj):
        return "response"
    return "invalid"


def handled_by(method: str) -> str | None:
    """``"agent"``, ``"client"`` or ``"protocol"`` (both); None for a method the schema does not name
    (an extension method, ``_``-prefixed, is legal either way)."""
    from rpcspy.protocol.acp_types import METHODS

    found = METHODS.get(method)
    return found.side if found is not None else None


# ---- capabilities ------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Gate:
    """A method legal only when a capability was advertised in ``initialize``."""

    by: Literal["client", "agent"]
    """Whose capabilities: the client's (``params.clientCapabilities``) or the agent's (``result.agentCapabilities``)."""
    path: tuple[str, ...]
    """The capability's path under those capabilities; it must be true (or a non-null object)."""

    @property
    def spelled(self) -> str:
        return ("clientCapabilities." if self.by == "client" else "agentCapabilities.") + ".".join(self.path)


GATES: dict[str, Gate] = {
    "fs/read_text_file": Gate("client", ("fs", "readTextFile")),
    "fs/write_text_file": Gate("client", ("fs", "writeTextFile")),
    **{m: Gate("client", ("terminal",)) for m in AGENT_REQUESTS if m.startswith("terminal/")},
    "elicitation/create": Gate("client", ("elicitation",)),
    "session/load": Gate("agent", ("loadSession",)),
    "session/list": Gate("agent", ("sessionCapabilities", "list")),
    "session/delete": Gate("agent", ("sessionCapabilities", "delete")),
    "session/resume": Gate("agent", ("sessionCapabilities", "resume")),
    "session/close": Gate("agent", ("sessionCapabilities", "close")),
    "logout": Gate("agent", ("auth", "logout")),
}
"""Methods the schema says are "only available if" a capability is advertised (ACP v1 schema, each
request's description; capabilities default to false when absent)."""
PROMPT_CONTENT_GATES = {"image": "image", "audio": "audio", "resource": "embeddedContext"}
"""A ``session/prompt`` content block type -> the ``promptCapabilities`` flag it needs."""


@dataclass(slots=True)
class Negotiated:
    """The capabilities both sides advertised in ``initialize`` (None: not seen yet)."""

    client: dict[str, Any] | None = None
    agent: dict[str, Any] | None = None
    protocol_version: Any = None
    extra: dict[str, Any] = field(default_factory=dict)

    def initialize_sent(self, params: Any) -> None:
        caps = params.get("clientCapabilities") if isinstance(params, dict) else None
        self.client = caps if isinstance(caps, dict) else {}

    def initialize_answered(self, result: Any) -> None:
        caps = result.get("agentCapabilities") if isinstance(result, dict) else None
        self.agent = caps if isinstance(caps, dict) else {}
        if isinstance(result, dict):
            self.protocol_version = result.get("protocolVersion")

    def refused(self, method: str) -> Gate | None:
        """The gate ``method`` fails (a capability not advertised); None when legal or not yet known."""
        gate = GATES.get(method)
        if gate is None:
            return None
        caps = self.client if gate.by == "client" else self.agent
        if caps is None:
            return None
        value: Any = caps
        for key in gate.path:
            value = value.get(key) if isinstance(value, dict) else None
        return None if value is True or isinstance(value, dict) else gate

    def refused_content(self, params: Any) -> list[tuple[int, str]]:
        """(index, flag) of ``session/prompt`` content blocks the agent's ``promptCapabilities`` refuse."""
        if self.agent is None or not isinstance(params, dict) or not isinstance(params.get("prompt"), list):
            return []
        caps = self.agent.get("promptCapabilities")
        caps = caps if isinstance(caps, dict) else {}
        out = []
        for i, block in enumerate(params["prompt"]):
            btype = block.get("type") if isinstance(block, dict) else None
            flag = PROMPT_CONTENT_GATES.get(btype) if isinstance(btype, str) else None
            if flag is not None and caps.get(flag) is not True:
                out.append((i, flag))
        return out


# ---- validation ----------------------------------------------------------------------------------
_checkers: dict[Any, Any] = {}


def _check(value: Any, tp: Any, path: str, name: str) -> list[SchemaIssue]:
    from rpcspy.protocol.validation import type_checker

    check = _checkers.get(tp)
    if check is None:
        check = _checkers[tp] = type_checker(tp)
    issues: list[SchemaIssue] = check(value, path, name)
    return issues


def validate_message(obj: Any, direction: str) -> list[SchemaIssue]:
    """A JSON-RPC message's envelope, and a request's or notification's ``params`` against its method's type.

    A response's ``result`` needs the method of the request it answers: :func:`validate_result`."""
    if type(obj) is not dict:
        return [SchemaIssue("invalid", "$", f"message is a JSON {json_type(obj)}, not an object")]
    issues = []
    if obj.get("jsonrpc", UNSET) != JSONRPC:
        got = "absent" if "jsonrpc" not in obj else msgspec.json.encode(obj["jsonrpc"]).decode()
        issues.append(SchemaIssue("missing_field" if got == "absent" else "bad_enum", "$.jsonrpc",
                                  f"`jsonrpc` must be \"2.0\" ({got})"))
    if "id" in obj and not isinstance(obj["id"], (str, int, type(None))) or isinstance(obj.get("id"), bool):
        issues.append(SchemaIssue("wrong_type", "$.id", f"an id is a string, a number or null, not a JSON "
                                                        f"{json_type(obj['id'])}"))
    kind = kind_of(obj)
    if kind == "invalid":
        issues.append(SchemaIssue("invalid", "$", "neither a request (`id` + `method`), a notification (`method`) "
                                                  "nor a response (`id` + `result` or `error`)"))
        return issues
    if kind == "response":
        return issues  # the error object's shape is a rule of its own (acp.bad_error)
    method = obj["method"]
    if type(method) is not str:
        return issues + [SchemaIssue("wrong_type", "$.method", f"expected string, got {json_type(method)}")]
    from rpcspy.protocol.acp_types import METHODS

    types = METHODS.get(method)
    if types is None:
        if not method.startswith("_"):
            issues.append(SchemaIssue("unknown_type", "$.method", f"unknown method {method!r} in ACP v1 "
                                                                  "(extension methods start with `_`)"))
        return issues
    expected = "agent" if direction == "c2a" else "client"
    if types.side not in (expected, "protocol"):
        sender = "agent" if direction == "a2c" else "client"
        issues.append(SchemaIssue("unknown_type", "$.method", f"`{method}` is handled by the {types.side}, "
                                                              f"but the {sender} sent it"))
        return issues
    if "params" in obj:
        issues += _check(obj["params"], types.params, "$.params", method)
    elif types.params is not None:
        issues.append(SchemaIssue("missing_field", "$.params", f"`{method}` has no params"))
    return issues


def validate_result(method: str, result: Any) -> list[SchemaIssue]:
    """A success response's ``result`` against the type of its request's ``method``."""
    from rpcspy.protocol.acp_types import METHODS

    types = METHODS.get(method)
    if types is None or types.result is None:
        return []
    return _check(result, types.result, "$.result", method)


def error_shape(error: Any) -> str | None:
    """What is wrong with a response's ``error`` object (JSON-RPC 2.0, section 5.1); None when nothing is."""
    if type(error) is not dict:
        return f"`error` is a JSON {json_type(error)}, not an object with `code` and `message`"
    code, message = error.get("code", UNSET), error.get("message", UNSET)
    if code is UNSET:
        return "`error` has no `code`"
    if type(code) is not int:
        return f"`error.code` is a JSON {json_type(code)}, not an integer"
    if message is UNSET:
        return "`error` has no `message`"
    if type(message) is not str:
        return f"`error.message` is a JSON {json_type(message)}, not a string"
    extra = sorted(set(error) - {"code", "message", "data"})
    if extra:
        return f"`error` has members JSON-RPC does not define: {', '.join(extra)}"
    return None
