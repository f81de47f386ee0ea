"""The REPL's short syntax and completion for ACP sessions (pure).

Accepted input, once the session speaks ACP (``acp-v1``)::

    initialize                          protocol version 1, no fs or terminal offered
    new [CWD]                           session/new in CWD (default: the REPL's directory)
    prompt Hello there                  session/prompt on the current session
    cancel                              session/cancel of the current session (a notification)
    answer allow_once                   answer the agent's oldest open permission request: an
                                        optionId, an option kind, or ``cancelled``
    session/set_mode modeId=code        any method the client sends, its params as name=value;
                                        a ``sessionId`` it takes is the current session's

The method names and their params come from the one ACP spec (``rpcspy.protocol.acp_types``,
generated from the official schema); the five words above are shorthands for its methods.
The session and the open requests come from :class:`AcpContext`, fed every frame: the one
pairing model (:class:`~rpcspy.protocol.acp_state.AcpState`) says what is still waiting.
"""

from __future__ import annotations

import json
import os
from typing import Any

from rpcspy.interactive.syntax import Parsed, coerce, tokens, unquote
from rpcspy.protocol.acp import CANCEL, INITIALIZE, PERMISSION, PROMPT
from rpcspy.protocol.acp_state import AcpState
from rpcspy.protocol.acp_types import METHODS, PROTOCOL_VERSION

NEW = "session/new"
SHORT = {"initialize": INITIALIZE, "new": NEW, "prompt": PROMPT, "cancel": CANCEL, "answer": PERMISSION}
"""The shorthands and the method each stands for (``answer``: the answer to the agent's request)."""
SHORT_HELP = {"initialize": "initialize (protocol version 1)", "new": "session/new [CWD]",
              "prompt": "session/prompt TEXT on the current session", "cancel": "session/cancel (notification)",
              "answer": "answer the open permission request: OPTION"}
HELP = """\
ACP: a shorthand or a method of the spec, then its params (name=value; sessionId is filled in).
  initialize                   new [CWD]                      prompt Hello there
  cancel                       answer allow_once              session/set_mode modeId=code
  {"method": "session/new", "params": {...}}                  raw JSON-RPC, numbered for you
Requests get ids r1, r2, ...; notifications (session/cancel) none; Tab completes methods, params and options.
"""


def client_methods() -> list[str]:
    """The methods a client sends (requests and notifications the agent handles), from the spec."""
    return sorted(m for m, t in METHODS.items() if t.side == "agent")


def param_fields(method: str) -> list[tuple[str, bool]]:
    """(name, required) of ``method``'s params, from its generated type ([] when untyped)."""
    import msgspec

    found = METHODS.get(method)
    if found is None or not isinstance(found.params, type) or not issubclass(found.params, msgspec.Struct):
        return []
    return [(f.encode_name, f.required) for f in msgspec.structs.fields(found.params) if f.encode_name != "_meta"]


class AcpContext:
    """What the short syntax needs from the session so far: the current session, the open requests."""

    def __init__(self, cwd: str | None = None) -> None:
        self.state = AcpState(bounded=True)
        self.cwd = cwd or os.getcwd()
        self.session: str | None = None
        self._asked: dict[int, dict[str, Any]] = {}

    def feed(self, direction: str, seq: int, t: float, data: bytes) -> None:
        try:
            obj = json.loads(data)
        except ValueError:
            return
        if not isinstance(obj, dict) or direction not in ("c2a", "a2c"):
            return
        step = self.state.message(direction, seq, t, obj)
        if step.kind == "request" and direction == "a2c":
            self._asked[seq] = obj
        elif direction == "c2a" and isinstance(step.session_id, str) and step.kind != "response":
            self.session = step.session_id  # the client's own (inject: attached after session/new)
        elif step.kind == "response" and direction == "a2c" and step.session is not None and "result" in obj:
            self.session = step.session.id  # session/new answered (or a session loaded, resumed)

    def open_requests(self) -> list[dict[str, Any]]:
        """The agent's requests the client has not answered, oldest first."""
        waiting = [p for d, p in self.state.waiting() if d == "a2c"]
        return [self._asked[p.seq] for p in waiting if p.seq in self._asked]

    def permission(self) -> dict[str, Any] | None:
        return next((o for o in self.open_requests() if o.get("method") == PERMISSION), None)


def _options(request: dict[str, Any] | None) -> list[dict[str, Any]]:
    params = (request or {}).get("params")
    options = params.get("options") if isinstance(params, dict) else None
    return [o for o in options or [] if isinstance(o, dict)]


def knows(word: str) -> bool:
    """``word`` starts ACP short syntax (a shorthand or a client method of the spec)."""
    return word in SHORT or word in client_methods()


def parse_line(text: str, ctx: AcpContext, *, sure: bool) -> Parsed | None:
    """``text`` as ACP short syntax, or None when it is not (empty, ``/meta``, JSON: the REPL's own
    parser takes it). ``sure``: the session speaks ACP; else only words pi does not have count."""
    body = text.strip()
    force = body.startswith("!")
    body = body[1:].strip() if force else body
    if not body or body[:1] in ("/", "{", "["):
        return None
    word = tokens(body)[0].text
    if not knows(word) and (force or not sure):
        return None  # pi's, perhaps, or text to send as it is (``!``)
    if not sure and word in ("prompt", "cancel"):
        return None
    return parse(body.replace("\\\n", "\n"), ctx, force)


def parse(body: str, ctx: AcpContext, force: bool = False) -> Parsed:
    """One line of ACP short syntax as a JSON-RPC message (without ``jsonrpc`` and id: the REPL numbers it)."""
    toks = tokens(body)
    word = toks[0].text
    rest = body[toks[1].start:] if len(toks) > 1 else ""
    if word == "initialize" and not rest:
        return Parsed("command", obj={"method": INITIALIZE, "params": {
            "protocolVersion": PROTOCOL_VERSION,
            "clientCapabilities": {"fs": {"readTextFile": False, "writeTextFile": False}, "terminal": False},
            "clientInfo": {"name": "rpcspy-repl", "version": "1"}}}, force=force)
    if word == "new":
        cwd = unquote(rest.strip()) or ctx.cwd
        return Parsed("command", obj={"method": NEW, "params": {"cwd": cwd, "mcpServers": []}}, force=force)
    if word == "prompt":
        if ctx.session is None:
            return Parsed("error", error="no session yet: open one with `new` (after `initialize`)")
        return Parsed("command", obj={"method": PROMPT, "params": {
            "sessionId": ctx.session, "prompt": [{"type": "text", "text": rest}]}}, force=force)
    if word == "cancel" and not rest:
        if ctx.session is None:
            return Parsed("error", error="no session to cancel")
        return Parsed("command", obj={"method": CANCEL, "params": {"sessionId": ctx.session}}, force=force)
    if word == "answer":
        return _answer(rest.strip(), ctx, force)
    if word not in client_methods():
        return Parsed("error", error=f"unknown ACP method {word!r} (Tab lists them)")
    return _method(word, toks[1:], ctx, force)


def _answer(choice: str, ctx: AcpContext, force: bool) -> Parsed:
    request = ctx.permission()
    if request is None:
        return Parsed("error", error="no permission request is waiting for an answer")
    options = _options(request)
    listed = ", ".join(str(o.get("optionId")) for o in options) + ", cancelled"
    if not choice:
        return Parsed("error", error=f"answer with one of: {listed}")
    if choice == "cancelled":
        outcome: dict[str, Any] = {"outcome": "cancelled"}
    else:
        chosen = next((o for o in options if o.get("optionId") == choice), None) \
            or next((o for o in options if o.get("kind") == choice), None)
        if chosen is None:
            return Parsed("error", error=f"{choice!r} is not an option of the request: {listed}")
        outcome = {"outcome": "selected", "optionId": chosen.get("optionId")}
    return Parsed("command", obj={"jsonrpc": "2.0", "id": request.get("id"), "result": {"outcome": outcome}},
                  force=force)


def _method(method: str, args: list[Any], ctx: AcpContext, force: bool) -> Parsed:
    fields = dict(param_fields(method))
    params: dict[str, Any] = {}
    for tok in args:
        name, eq, value = tok.text.partition("=")
        if not eq:
            return Parsed("error", error=f"{tok.text!r}: give params as name=value"
                          + (f" ({', '.join(fields)})" if fields else ""))
        params[name] = coerce(value if value[:1] in ("{", "[") else unquote(value), None)
    if "sessionId" in fields and "sessionId" not in params and ctx.session is not None:
        params["sessionId"] = ctx.session
    return Parsed("command", obj={"method": method, "params": params}, force=force)


def completions(text: str, ctx: AcpContext) -> list[tuple[str, int, str]]:
    """(text, start offset from the cursor, meta) candidates for ACP short syntax."""
    toks = tokens(text)
    ends_with_space = text[-1:].isspace() if text else False
    if not toks or (len(toks) == 1 and not ends_with_space):
        word = toks[0].text if toks else ""
        out = [(w, -len(word), SHORT_HELP[w]) for w in SHORT if w.startswith(word)]
        return out + [(m, -len(word), "method") for m in client_methods() if m.startswith(word) and m not in SHORT]
    word, current = toks[0].text, "" if ends_with_space else toks[-1].text
    if word == "answer":
        if len(toks) > 2 or (len(toks) == 2 and ends_with_space):
            return []
        options = [(str(o.get("optionId")), str(o.get("name", ""))) for o in _options(ctx.permission())]
        return [(o, -len(current), name) for o, name in [*options, ("cancelled", "no choice")] if o.startswith(current)]
    if word in SHORT or word not in client_methods():
        return []
    given = {t.text.partition("=")[0] for t in toks[1:] if "=" in t.text}
    return [(f"{name}=", -len(current), "required" if required else "optional")
            for name, required in param_fields(word)
            if name not in given and name.startswith(current) and not (name == "sessionId" and ctx.session)]
