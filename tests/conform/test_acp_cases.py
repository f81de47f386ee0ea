"""The ACP cases' pure parts: judges on hand-made transcripts, the battery's choice of dialect."""

from __future__ import annotations

import json

import pytest

from rpcspy.conform.acp import ACP_CASES, cancel, error_code, ids, parse_error
from rpcspy.conform.cases import BY_ID, select
from rpcspy.conform.script import Transcript, same_id
from rpcspy.events import Frame
from rpcspy.pump.commands.conform_acp import names_acp


def transcript(*objs: dict | bytes, exit_code: int | None = None) -> Transcript:
    frames = []
    for i, o in enumerate(objs):
        data = o if isinstance(o, bytes) else json.dumps(o).encode()
        frames.append(Frame(i + 1, i * 0.1, "c2a" if isinstance(o, dict) and "method" in o and "id" in o
                            and o.get("method") != "session/request_permission" else "a2c", data, True, False))
    return Transcript(frames=frames, exit_code=exit_code)


def test_ids_are_equal_only_with_their_type() -> None:
    assert same_id(1, 1) and same_id("a", "a")
    assert not same_id(1, "1") and not same_id(1, True) and not same_id(1, 1.0)


def test_a_number_id_answered_as_a_string_is_a_deviation() -> None:
    t = transcript({"jsonrpc": "2.0", "id": "conform-id", "result": {"sessionId": "s"}},
                   {"jsonrpc": "2.0", "id": "4242", "result": {"sessionId": "s2"}})
    v = ids(t)
    assert v.status == "deviation" and "'4242'" in v.detail


@pytest.mark.parametrize(("error", "status"), [
    ({"code": -32601, "message": "Method not found"}, "passed"),
    ({"code": -32603, "message": "Internal error"}, "deviation"),
    ({"code": "-32601", "message": "x"}, "deviation"),  # the shape JSON-RPC requires
])
def test_unknown_method_judge(error: dict, status: str) -> None:
    t = transcript({"jsonrpc": "2.0", "id": 30, "error": error})
    assert error_code(30, -32601, "an unknown method")(t).status == status


def test_no_answer_to_an_unknown_method_is_a_failure() -> None:
    assert error_code(30, -32601, "x")(transcript()).status == "failed"


def test_parse_error_wants_minus_32700_with_id_null() -> None:
    ok = transcript({"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "Parse error"}})
    assert parse_error(ok).status == "passed"
    assert parse_error(transcript()).status == "deviation"
    assert parse_error(transcript(exit_code=0)).status == "failed"


def test_a_cancel_answered_end_turn_is_a_deviation() -> None:
    chunk = {"jsonrpc": "2.0", "method": "session/update",
             "params": {"sessionId": "s", "update": {"sessionUpdate": "agent_message_chunk",
                                                     "content": {"type": "text", "text": "t"}}}}
    assert cancel(transcript(chunk, {"jsonrpc": "2.0", "id": 50, "result": {"stopReason": "end_turn"}})).status \
        == "deviation"
    assert cancel(transcript(chunk, {"jsonrpc": "2.0", "id": 50, "result": {"stopReason": "cancelled"}})).status \
        == "passed"
    assert cancel(transcript(chunk)).status == "failed"


def test_each_battery_is_its_own() -> None:
    assert {c.dialect for c in ACP_CASES} == {"acp-v1"} and all(c.id.startswith("acp.") for c in ACP_CASES)
    assert not any(c.id.startswith("acp.") for c in BY_ID.values())
    assert select(("acp.*",)) == [] and len(select(("acp.*",), dialect="acp-v1")) == len(ACP_CASES)
    assert [c.id for c in select((), model=False, dialect="acp-v1")] == [
        c.id for c in ACP_CASES if not c.needs_model]


@pytest.mark.parametrize(("argv", "acp"), [
    (["omp", "acp"], True), (["pi-acp"], True), (["node", "/x/node_modules/pi-acp/dist/index.js"], True),
    (["python3", "-m", "tests.support.acp_agent"], True), (["pi", "--mode", "rpc"], False),
    (["/opt/acpx/bin/pi"], False), (["omp", "--mode", "rpc"], False),
])
def test_a_command_that_names_acp(argv: list[str], acp: bool) -> None:
    assert names_acp(argv) is acp
