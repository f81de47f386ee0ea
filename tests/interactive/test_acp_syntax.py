"""The REPL's ACP short syntax and completion (pure): the session and open requests come from the frames."""

from __future__ import annotations

import json

from rpcspy.interactive.acp import AcpContext, client_methods, completions, parse_line
from rpcspy.interactive.complete import repl_completions
from rpcspy.interactive.schema import CommandSchema
from rpcspy.protocol.acp_types import METHODS

PERMISSION = {"jsonrpc": "2.0", "id": 0, "method": "session/request_permission",
              "params": {"sessionId": "S1", "toolCall": {"toolCallId": "c"},
                         "options": [{"optionId": "yes", "name": "Yes", "kind": "allow_once"},
                                     {"optionId": "no", "name": "No", "kind": "reject_once"}]}}


def context(*frames: tuple[str, dict]) -> AcpContext:
    ctx = AcpContext("/work")
    for seq, (direction, obj) in enumerate(frames, 1):
        ctx.feed(direction, seq, 0.0, json.dumps(obj).encode())
    return ctx


def opened() -> AcpContext:
    return context(("c2a", {"jsonrpc": "2.0", "id": "r1", "method": "session/new",
                            "params": {"cwd": "/work", "mcpServers": []}}),
                   ("a2c", {"jsonrpc": "2.0", "id": "r1", "result": {"sessionId": "S1"}}))


def test_the_shorthands() -> None:
    ctx = opened()
    assert ctx.session == "S1"
    assert parse_line("new", ctx, sure=True).obj == {"method": "session/new",  # type: ignore[union-attr]
                                                      "params": {"cwd": "/work", "mcpServers": []}}
    assert parse_line("new '/a b'", ctx, sure=True).obj["params"]["cwd"] == "/a b"  # type: ignore[index,union-attr]
    assert parse_line("prompt  two  spaces", ctx, sure=True).obj == {  # type: ignore[union-attr]
        "method": "session/prompt", "params": {"sessionId": "S1", "prompt": [{"type": "text", "text": "two  spaces"}]}}
    assert parse_line("cancel", ctx, sure=True).obj == {"method": "session/cancel",  # type: ignore[union-attr]
                                                         "params": {"sessionId": "S1"}}
    init = parse_line("initialize", ctx, sure=True).obj  # type: ignore[union-attr]
    assert init["params"]["protocolVersion"] == 1  # type: ignore[index]


def test_no_session_yet_and_nothing_to_answer_are_said_plainly() -> None:
    ctx = AcpContext("/w")
    assert "no session yet" in parse_line("prompt hi", ctx, sure=True).error  # type: ignore[union-attr]
    assert "no permission request" in parse_line("answer yes", ctx, sure=True).error  # type: ignore[union-attr]
    assert "unknown ACP method" in parse_line("session/nope", ctx, sure=True).error  # type: ignore[union-attr]


def test_answer_by_option_id_or_kind_then_it_is_gone() -> None:
    ctx = opened()
    ctx.feed("a2c", 3, 0.0, json.dumps(PERMISSION).encode())
    assert parse_line("answer no", ctx, sure=True).obj == {  # type: ignore[union-attr]
        "jsonrpc": "2.0", "id": 0, "result": {"outcome": {"outcome": "selected", "optionId": "no"}}}
    assert parse_line("answer allow_once", ctx, sure=True).obj["result"]["outcome"]["optionId"] == "yes"  # type: ignore[index,union-attr]
    assert parse_line("answer cancelled", ctx, sure=True).obj["result"] == {  # type: ignore[index,union-attr]
        "outcome": {"outcome": "cancelled"}}
    assert "not an option" in parse_line("answer maybe", ctx, sure=True).error  # type: ignore[union-attr]
    assert [c[0] for c in completions("answer ", ctx)] == ["yes", "no", "cancelled"]
    ctx.feed("c2a", 4, 0.0, json.dumps({"jsonrpc": "2.0", "id": 0, "result": {"outcome": {"outcome": "cancelled"}}})
             .encode())
    assert parse_line("answer yes", ctx, sure=True).kind == "error"


def test_any_client_method_of_the_spec_with_its_params() -> None:
    assert client_methods() == sorted(m for m, t in METHODS.items() if t.side == "agent")
    ctx = opened()
    assert parse_line("session/set_mode modeId=code", ctx, sure=True).obj == {  # type: ignore[union-attr]
        "method": "session/set_mode", "params": {"modeId": "code", "sessionId": "S1"}}
    assert [c[0] for c in completions("session/set_mode ", ctx)] == ["modeId="]
    assert sorted(c[0] for c in completions("session/load ", AcpContext())) == [
        "additionalDirectories=", "cwd=", "mcpServers=", "sessionId="]


def test_json_and_meta_are_left_to_the_repl_s_parser() -> None:
    ctx = opened()
    for text in ("", "/help", '{"method": "initialize"}', "!{}"):
        assert parse_line(text, ctx, sure=True) is None
    assert parse_line("prompt hi", ctx, sure=False) is None  # pi's prompt while the dialect is unknown
    assert parse_line("new", ctx, sure=False) is not None  # pi has no `new`
    assert parse_line("get_state", ctx, sure=False) is None
    assert "unknown ACP method" in parse_line("get_state", ctx, sure=True).error  # type: ignore[union-attr]


def test_completion_beside_pi_s_while_the_dialect_is_unknown() -> None:
    ctx = AcpContext()
    unknown = [c.text for c in repl_completions("ne", CommandSchema(None), ctx)]
    assert "new" in unknown and "new_session" in unknown
    assert [c.text for c in repl_completions("ne", CommandSchema("acp-v1"), ctx)] == ["new"]
    assert "new" not in [c.text for c in repl_completions("ne", CommandSchema("pi-0.87"), None)]
