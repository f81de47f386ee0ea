"""Injection into a JSON-RPC 2.0 (ACP) session: ids, refusals and which agent lines are kept from the client."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from rpcspy.injection.divert import DIVERT, PASS, Diverter, InjectedIds, classify
from rpcspy.injection.ledger import PREFIX, Injection, Ledger, refusal

IDS = InjectedIds((PREFIX.encode(),))


def line(obj: dict) -> bytes:
    return json.dumps(obj).encode() + b"\n"


def test_a_request_gets_a_string_id_the_client_never_uses_and_its_answer_goes_back_with_the_injector_s() -> None:
    ledger: Ledger[str] = Ledger()
    inj = ledger.register("a", 1, {"id": 0, "method": "session/new", "params": {"cwd": "/", "mcpServers": []}})
    assert inj.command == {"jsonrpc": "2.0", "id": "rpcspy-inject-1", "method": "session/new",
                           "params": {"cwd": "/", "mcpServers": []}}
    assert list(inj.command)[:2] == ["jsonrpc", "id"]
    ledger.acknowledge("a", 1, inj)
    [push] = ledger.answer(line({"jsonrpc": "2.0", "id": "rpcspy-inject-1", "result": {"sessionId": "s"}}))
    assert push.message["response"] == {"jsonrpc": "2.0", "id": 0, "result": {"sessionId": "s"}}


def test_notifications_and_answers_to_the_agent_go_as_they_are() -> None:
    ledger: Ledger[str] = Ledger()
    cancel = {"jsonrpc": "2.0", "method": "session/cancel", "params": {"sessionId": "s"}}
    assert ledger.register("a", 1, cancel) == Injection(cancel, None, None)
    allow = {"jsonrpc": "2.0", "id": 0, "result": {"outcome": {"outcome": "cancelled"}}}
    assert ledger.register("a", 2, allow) == Injection(allow, None, None)


def test_refusals() -> None:
    ok = {"jsonrpc": "2.0", "id": 1, "method": "session/list", "params": {}}
    assert refusal(ok, exited=False, input_closed=False) is None
    assert "jsonrpc" in (refusal({**ok, "jsonrpc": "1.0"}, exited=False, input_closed=False) or "")
    both = {"jsonrpc": "2.0", "id": 1, "result": {}, "error": {"code": 1, "message": "x"}}
    assert refusal(both, exited=False, input_closed=False) is not None
    assert refusal({"jsonrpc": "2.0", "params": {}}, exited=False, input_closed=False) is not None


def test_only_responses_to_injected_ids_are_diverted() -> None:
    assert classify(line({"jsonrpc": "2.0", "id": "rpcspy-inject-3", "result": {}}), IDS) == DIVERT
    assert classify(line({"jsonrpc": "2.0", "id": "rpcspy-inject-3", "error": {"code": -1, "message": "m"}}),
                    IDS) == DIVERT
    assert classify(line({"jsonrpc": "2.0", "id": 3, "result": {}}), IDS) == PASS  # the client's
    # the agent's own request that happens to use such an id is the client's to answer
    assert classify(line({"jsonrpc": "2.0", "id": "rpcspy-inject-3", "method": "fs/read_text_file",
                          "params": {}}), IDS) == PASS
    nested = {"jsonrpc": "2.0", "method": "session/update", "params": {"x": {"id": "rpcspy-inject-3", "result": 1}}}
    assert classify(line(nested), IDS) == PASS
    big = {"jsonrpc": "2.0", "id": "rpcspy-inject-4", "result": {"text": "x" * 10000}}
    assert classify(line(big)[:5000], IDS) == DIVERT  # longer than the window: the markers decide
    nested = {"jsonrpc": "2.0", "id": "rpcspy-inject-5", "result": {"modes": [{"method": "m"}], "text": "x" * 10000}}
    assert classify(line(nested)[:5000], IDS) == DIVERT  # a `method` inside the result is no request
    request = {"jsonrpc": "2.0", "id": "rpcspy-inject-6", "method": "fs/write_text_file",
               "params": {"content": "x" * 10000, "result": 1}}
    assert classify(line(request)[:5000], IDS) == PASS


@given(st.lists(st.integers(min_value=1, max_value=60), min_size=1, max_size=20))
def test_diverting_json_rpc_does_not_depend_on_how_the_stream_is_cut(cuts: list[int]) -> None:
    stream = (line({"jsonrpc": "2.0", "method": "session/update", "params": {"u": 1}})
              + line({"jsonrpc": "2.0", "id": "rpcspy-inject-1", "result": {"sessionId": "s"}})
              + line({"jsonrpc": "2.0", "id": 1, "result": {"stopReason": "end_turn"}}))
    d = Diverter()
    d.divert(PREFIX.encode())
    routed: dict[str, bytes] = {PASS: b"", DIVERT: b""}
    pos = 0
    for n in [*cuts, len(stream)]:
        for route, piece in d.feed(stream[pos:pos + n]):
            routed[route] += piece
        pos += n
        if pos >= len(stream):
            break
    routed[PASS] += d.finish()
    assert routed[DIVERT] == line({"jsonrpc": "2.0", "id": "rpcspy-inject-1", "result": {"sessionId": "s"}})
    assert b"rpcspy-inject" not in routed[PASS] and routed[PASS].count(b"\n") == 2
