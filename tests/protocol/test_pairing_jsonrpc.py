"""JSON-RPC 2.0 pairing (ACP) in the one pairing model: ids both ways, independent id spaces."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from rpcspy.protocol.pairing import Conversation


def req(id: object, method: str) -> dict[str, object]:
    return {"jsonrpc": "2.0", "id": id, "method": method, "params": {}}


def ok(id: object) -> dict[str, object]:
    return {"jsonrpc": "2.0", "id": id, "result": {}}


def test_the_same_id_both_ways_pairs_with_each_side_s_request() -> None:
    c = Conversation()
    prompt, _ = c.request("c2a", 1, 0.0, req(0, "session/prompt"))
    perm, _ = c.request("a2c", 2, 0.1, req(0, "session/request_permission"))
    answer = c.response("c2a", 3, ok(0))  # the client answers the agent's request 0
    assert answer.kind == "id" and answer.command is perm
    assert [p for _, p in c.waiting()] == [prompt]
    answer = c.response("a2c", 4, ok(0))
    assert answer.kind == "id" and answer.command is prompt and c.waiting() == []


def test_numbers_and_strings_are_different_ids() -> None:
    c = Conversation()
    c.request("c2a", 1, 0.0, req("5", "session/new"))
    assert c.response("a2c", 2, ok(5)).kind == "unknown_id"
    assert c.response("a2c", 3, ok("5")).kind == "id"
    dup = c.response("a2c", 4, {"jsonrpc": "2.0", "id": "5", "error": {"code": 1, "message": "x"}})
    assert dup.kind == "duplicate" and dup.first == 3


def test_a_null_id_answers_an_unreadable_line() -> None:
    c = Conversation()
    line = c.unreadable("c2a", 1, 0.0)
    answer = c.response("a2c", 2, {"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "Parse error"}})
    assert answer.kind == "idless" and answer.command is line
    assert c.response("a2c", 3, {"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "x"}}).kind \
        == "unexpected"


def test_a_notification_waits_for_nothing() -> None:
    c = Conversation()
    assert c.waiting() == []


ids = st.one_of(st.integers(-2**53, 2**53), st.text(max_size=8))


@given(st.lists(st.tuples(st.sampled_from(["c2a", "a2c"]), ids), unique=True, max_size=30))
def test_every_request_is_answered_by_the_response_with_its_id(requests: list[tuple[str, object]]) -> None:
    c = Conversation()
    sent = {}
    for seq, (direction, rid) in enumerate(requests):
        sent[direction, repr(rid)] = c.request(direction, seq, 0.0, req(rid, "m"))[0]
    for seq, (direction, rid) in enumerate(reversed(requests), start=len(requests)):
        back = "a2c" if direction == "c2a" else "c2a"
        answer = c.response(back, seq, ok(rid))
        assert answer.kind == "id" and answer.command is sent[direction, repr(rid)]
    assert c.waiting() == []
