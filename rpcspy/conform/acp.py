"""The ACP (``acp-v1``) cases of the conformance battery: steps as data, pure judges.

Unlike pi's cases (a fresh agent each), the ACP cases share one agent process in battery
order, as an editor would: the runner sends ``initialize`` and ``session/new`` first when a
case needs them (``needs``), and a case's transcript holds the frames from its first step.
Placeholders in a sent line: ``$SESSION`` (the session the runner opened), ``$CWD`` (the
agent's working directory). What each case expects is what the ACP schema
(``@agentclientprotocol/sdk`` ``schema/v1/schema.json``) and JSON-RPC 2.0 say.
"""

from __future__ import annotations

from typing import Any

from rpcspy.conform.cases import Case
from rpcspy.conform.judges import Judge, eof_idle
from rpcspy.conform.script import (
    Await,
    Close,
    Grant,
    Transcript,
    Trigger,
    Verdict,
    deviation,
    failed,
    passed,
    send,
    short,
    skipped,
)
from rpcspy.protocol.acp import CANCEL, CANCELLED, ERROR_CODES, INITIALIZE, JSONRPC, PERMISSION, PROMPT, error_shape
from rpcspy.protocol.acp_types import PROTOCOL_VERSION
from rpcspy.protocol.spec import ACP_V1

DIALECT = ACP_V1
SESSION = "$SESSION"
CWD = "$CWD"
INIT_ID, NEW_ID = 0, 1
SLOW = 90.0
"""A real agent's first answer can take long (omp's ``initialize``: 8 s on a loaded machine)."""

CLIENT_CAPABILITIES = {"fs": {"readTextFile": False, "writeTextFile": False}, "terminal": False}
"""What the battery's client offers: no fs, no terminal, so the agent may not ask for them."""


def rpc(id_: Any, method: str, params: dict[str, Any]) -> dict[str, Any]:
    return {"jsonrpc": JSONRPC, "id": id_, "method": method, "params": params}


def prompt(id_: Any, text: str) -> dict[str, Any]:
    return rpc(id_, PROMPT, {"sessionId": SESSION, "prompt": [{"type": "text", "text": text}]})


INITIALIZE_MSG = rpc(INIT_ID, INITIALIZE, {"protocolVersion": PROTOCOL_VERSION, "clientCapabilities": CLIENT_CAPABILITIES,
                                           "clientInfo": {"name": "rpcspy-conform", "version": "1"}})
NEW_MSG = rpc(NEW_ID, "session/new", {"cwd": CWD, "mcpServers": []})
SETUP = {"initialize": (send(INITIALIZE_MSG), Await("rpc", INIT_ID, timeout=SLOW)),
         "session": (send(NEW_MSG), Await("rpc", NEW_ID, timeout=SLOW))}
"""The steps the runner performs (unjudged) before a case that ``needs`` them."""


# -- judgements ----------------------------------------------------------------------------
def _problems(t: Transcript) -> list[str]:
    """The checker's ACP/JSON-RPC errors and warnings about the agent's side of the case (not
    about the client's lines, which some cases get wrong on purpose)."""
    return sorted({f.rule for f in t.findings if f.severity != "info" and f.dir != "c2a"
                   and f.rule.startswith(("acp.", "schema."))})


def _answer(t: Transcript, id_: Any, what: str) -> tuple[dict[str, Any] | None, Verdict | None]:
    """The response to ``id_``, or the verdict when there is none (the agent died or hung)."""
    rs = t.rpc(id_)
    if rs:
        return rs[0], None
    if t.died:
        return None, failed(f"{what}: the agent exited with status {t.exit_code}, no response")
    return None, failed(f"{what}: no response to id {id_!r}" + (f" ({t.timeouts[0]})" if t.timeouts else ""))


def _result(t: Transcript, id_: Any, what: str) -> tuple[dict[str, Any] | None, Verdict | None]:
    r, v = _answer(t, id_, what)
    if r is None:
        return None, v
    if "error" in r:
        return None, deviation(f"{what}: answered with an error: {short(r['error'], 120)}")
    result = r.get("result")
    return (result, None) if isinstance(result, dict) else (None, deviation(f"{what}: result is {short(result)}"))


def _clean(t: Transcript, ok: str) -> Verdict:
    bad = _problems(t)
    return deviation(f"{ok}, but the checker reports {', '.join(bad)}") if bad else passed(ok)


def initialize(t: Transcript) -> Verdict:
    result, v = _result(t, INIT_ID, "initialize")
    if result is None:
        return v  # type: ignore[return-value]
    version = result.get("protocolVersion")
    if version != PROTOCOL_VERSION:
        return deviation(f"initialize settled on protocolVersion {short(version)}, not {PROTOCOL_VERSION}")
    caps = result.get("agentCapabilities", {})
    if not isinstance(caps, dict):
        return deviation(f"agentCapabilities is not an object: {short(caps)}")
    offered = ", ".join(sorted(k for k, val in caps.items() if val)) or "none"
    return _clean(t, f"protocolVersion {version}; agent capabilities: {offered}")


def session_new(t: Transcript) -> Verdict:
    result, v = _result(t, NEW_ID, "session/new")
    if result is None:
        return v  # type: ignore[return-value]
    sid = result.get("sessionId")
    if not isinstance(sid, str) or not sid:
        return deviation(f"session/new answered without a sessionId: {short(result)}")
    return _clean(t, f"a session {short(sid, 50)}")


def _stop_reason(t: Transcript, id_: Any, what: str) -> tuple[str | None, Verdict | None]:
    result, v = _result(t, id_, what)
    if result is None:
        return None, v
    return str(result.get("stopReason")), None


def end_turn(t: Transcript) -> Verdict:
    reason, v = _stop_reason(t, 2, "session/prompt")
    if reason is None:
        return v  # type: ignore[return-value]
    if reason != "end_turn":
        return deviation(f"the turn ended with stopReason {reason!r}, not end_turn")
    chunks = len(t.updates("agent_message_chunk"))
    if not chunks:
        return deviation("end_turn, but no agent_message_chunk streamed before it")
    return _clean(t, f"{chunks} agent_message_chunk update(s), then stopReason end_turn")


def ids(t: Transcript) -> Verdict:
    wanted: tuple[Any, ...] = ("conform-id", 4242)
    missing = [i for i in wanted if not t.rpc(i)]
    if missing:
        loose = [o.get("id") for o in t.objs() if "method" not in o and str(o.get("id")) in map(str, missing)]
        if loose:
            return deviation(f"id(s) {', '.join(map(repr, missing))} came back as {', '.join(map(repr, loose))} "
                             "(JSON-RPC: the response's id is the request's, of the same type)")
        return failed(f"no response to id(s) {', '.join(map(repr, missing))}")
    errors = [r for i in wanted for r in t.rpc(i) if "error" in r]
    if errors:
        return deviation(f"a request answered with an error: {short(errors[0])}")
    return _clean(t, "a string id and a number id each came back as sent")


def error_code(id_: Any, code: int, what: str) -> Judge:
    """The request is wrong: JSON-RPC says an error with ``code`` and the request's id."""
    def judge(t: Transcript) -> Verdict:
        r, v = _answer(t, id_, what)
        if r is None:
            return v  # type: ignore[return-value]
        if "error" not in r:
            return deviation(f"{what}: accepted as success: {short(r)}")
        bad = error_shape(r["error"])
        if bad is not None:
            return deviation(f"{what}: the error breaks JSON-RPC's shape ({bad}): {short(r['error'])}")
        got = r["error"].get("code")
        if got != code:
            name = ERROR_CODES.get(got, "an implementation-defined code")
            return deviation(f"{what}: error {got} ({name}), not {code} ({ERROR_CODES[code]}): "
                             f"{short(r['error'].get('message'), 80)}")
        return _clean(t, f"{what}: error {code} with the request's id")
    return judge


def parse_error(t: Transcript) -> Verdict:
    nulls = [o for o in t.objs() if "method" not in o and "error" in o and o.get("id", 0) is None]
    if t.died:
        return failed(f"invalid JSON made the agent exit with status {t.exit_code}")
    if not nulls:
        other = [o for o in t.objs() if "error" in o and "method" not in o]
        if other:
            return deviation(f"invalid JSON: an error, but not with id null: {short(other[0])}")
        return deviation("invalid JSON got no error response (JSON-RPC: -32700 with id null)")
    err = nulls[0]["error"]
    bad = error_shape(err)
    if bad is not None:
        return deviation(f"invalid JSON: the error breaks JSON-RPC's shape ({bad}): {short(err)}")
    if err.get("code") != -32700:
        return deviation(f"invalid JSON: error {err.get('code')}, not -32700 (parse error)")
    return _clean(t, "invalid JSON: error -32700 with id null")


def _permission(t: Transcript, kind: str) -> Verdict:
    asked = t.requests(PERMISSION)
    if not asked:
        return skipped("the agent asked no permission to run a shell command")
    params = asked[0].get("params") or {}
    options = params.get("options") or []
    if not any(str(o.get("kind", "")).startswith(kind) for o in options if isinstance(o, dict)):
        return deviation(f"the permission request offers no {kind}_* option: {short(options)}")
    prompts = [o for o in t.sent() if o.get("method") == PROMPT]
    last = prompts[-1].get("id") if prompts else None
    reason, v = _stop_reason(t, last, "the prompt that asked")
    if reason is None:
        return v  # type: ignore[return-value]
    if reason == CANCELLED:
        return deviation(f"the permission was answered ({kind}), but the turn ended 'cancelled'")
    tools = [u for u in t.updates("tool_call_update") if u.get("status") in ("completed", "failed")]
    ran = f"; the tool call {tools[-1].get('status')}" if tools else ""
    title = short((params.get("toolCall") or {}).get("title"), 50)
    return _clean(t, f"permission for {title} answered {kind}; the turn ended {reason!r}{ran}")


def permission(kind: str) -> Judge:
    return lambda t: _permission(t, kind)


def cancel(t: Transcript) -> Verdict:
    if not t.updates("agent_message_chunk"):
        return failed("the slow turn streamed nothing to cancel")
    r, v = _answer(t, 50, "the cancelled session/prompt")
    if r is None:
        return failed("session/cancel mid-turn: the prompt was never answered (the turn hangs)")
    if "error" in r:
        return deviation(f"the cancelled prompt was answered with an error, not stopReason cancelled: "
                         f"{short(r['error'], 100)}")
    reason = (r.get("result") or {}).get("stopReason")
    if reason != CANCELLED:
        return deviation(f"session/cancel mid-turn: stopReason {reason!r}, not 'cancelled'")
    return _clean(t, "session/cancel mid-turn: stopReason cancelled")


# -- the battery ---------------------------------------------------------------------------
GATE_FILE = "rpcspy-conform-gate.js"
GATE_JS = """\
// rpcspy conform (ACP): confirm before a bash command that mentions conform-, like pi's permission-gate example.
export default function (pi) {
  pi.on("tool_call", async (event, ctx) => {
    if (event.toolName !== "bash" || !String(event.input.command).includes("conform-")) return undefined;
    const ok = await ctx.ui.confirm("rpcspy conform", "run " + event.input.command + "?");
    return ok ? undefined : { block: true, reason: "denied by the client" };
  });
}
"""
"""Written to pi's ``~/.pi/agent/extensions/`` of the ACP battery: pi asks no permission itself, so
behind pi-acp (which turns a confirm dialog into ``session/request_permission``) this extension
asks. omp asks for shell commands on its own and gets no gate."""


def _permission_case(kind: str, ids: tuple[int, ...]) -> Case:
    verb = {"allow": "allowed", "reject": "denied"}[kind]
    texts = (f"tool: echo conform-{verb}",)
    return Case(f"acp.permission_{verb}", f"a permission request {verb} by the client, the turn goes on",
                "ACP schema, RequestPermissionRequest / RequestPermissionOutcome",
                (Trigger(texts, ids), Grant(kind), Await("turn", timeout=30)), permission(kind),
                rule="acp.unanswered", needs_model=True, extension=True, dialect=DIALECT,
                needs=("initialize", "session", "own_session"))


def _acp(id_: str, title: str, doc: str, steps: tuple[Any, ...], judge: Judge, rule: str | None = None,
         needs: tuple[str, ...] = ("initialize", "session"), model: bool = False) -> Case:
    return Case(id_, title, doc, steps, judge, rule=rule, needs_model=model, dialect=DIALECT, needs=needs)


ACP_CASES: tuple[Case, ...] = (
    _acp("acp.initialize", "initialize negotiates protocol version 1 and capabilities",
         "ACP schema, InitializeRequest / InitializeResponse", SETUP["initialize"], initialize,
         rule="acp.protocol_version", needs=()),
    _acp("acp.session_new", "session/new with a cwd gives a sessionId", "ACP schema, NewSessionResponse",
         SETUP["session"], session_new, rule="schema.missing_field", needs=("initialize",)),
    _acp("acp.prompt_end_turn", "a prompt turn streams its reply and ends end_turn",
         "ACP schema, PromptResponse / SessionNotification",
         (send(prompt(2, "hello")), Await("rpc", 2, timeout=SLOW)), end_turn, rule="acp.unknown_session", model=True),
    _acp("acp.ids", "ids as strings and numbers come back as sent", "JSON-RPC 2.0, 5: the same id as the request",
         (send(rpc("conform-id", "session/new", {"cwd": CWD, "mcpServers": []})),
          send(rpc(4242, "session/new", {"cwd": CWD, "mcpServers": []})),
          Await("rpc", "conform-id", timeout=SLOW), Await("rpc", 4242, timeout=SLOW)), ids, rule="acp.unknown_id"),
    _acp("acp.unknown_method", "an unknown method gets error -32601", "JSON-RPC 2.0, 5.1: -32601 Method not found",
         (send(rpc(30, "conform/no_such_method", {})), Await("rpc", 30, timeout=15)),
         error_code(30, -32601, "an unknown method")),
    _acp("acp.invalid_params", "a session/prompt without its prompt gets error -32602",
         "JSON-RPC 2.0, 5.1: -32602 Invalid params; ACP schema, PromptRequest: prompt is required",
         (send(rpc(31, PROMPT, {"sessionId": SESSION})), Await("rpc", 31, timeout=15)),
         error_code(31, -32602, "a prompt without its prompt")),
    _acp("acp.parse_error", "invalid JSON gets error -32700 with id null", "JSON-RPC 2.0, 5.1: -32700 Parse error",
         (send(b'{"jsonrpc":"2.0","id":32,"method":\n'), Await("quiet", 1.0)), parse_error),
    _permission_case("allow", (40,)),
    _permission_case("reject", (42,)),
    _acp("acp.cancel", "session/cancel mid-turn ends the turn with stopReason cancelled",
         "ACP schema, CancelNotification: the agent MUST respond with the cancelled stop reason",
         (send(prompt(50, "slow:400")), Await("update", "agent_message_chunk", timeout=SLOW),
          send({"jsonrpc": JSONRPC, "method": CANCEL, "params": {"sessionId": SESSION}}),
          Await("rpc", 50, timeout=20)), cancel, rule="acp.cancel_not_honoured", model=True),
    _acp("acp.eof", "EOF on stdin: a clean exit", "process conventions: the agent exits when stdin closes",
         (Close(), Await("exit", timeout=15)), eof_idle, needs=("initialize",)),
)
