"""ACP v1: the generated types, detection from `initialize`, message validation, capability gates."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from rpcspy.protocol import DialectDetector, validate
from rpcspy.protocol.acp import Negotiated, error_shape, kind_of, validate_result
from rpcspy.protocol.acp_types import METHODS, PROTOCOL_VERSION, SDK_VERSION
from rpcspy.protocol.spec import ACP_V1, JSONL_DIALECTS, SPECS
from tests.paths import DATA

ROOT = Path(__file__).resolve().parents[2]
INIT = {"jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {"protocolVersion": 1, "clientCapabilities": {"fs": {"readTextFile": True, "writeTextFile": False},
                                                                "terminal": False}}}


def test_the_committed_module_is_what_the_script_makes_of_the_schema(tmp_path: Path) -> None:
    out = tmp_path / "acp_types.py"
    subprocess.run([sys.executable, str(ROOT / "scripts/gen_acp_schema.py"), "--schema",
                    str(DATA / "acp/schema-v1.json"), "-o", str(out)], check=True, capture_output=True)
    assert out.read_text() == (ROOT / "rpcspy/protocol/acp_types.py").read_text()
    assert SDK_VERSION == "2.4.0" and PROTOCOL_VERSION == 1


def test_acp_is_a_jsonrpc_dialect_apart_from_pi_s() -> None:
    assert SPECS[ACP_V1].jsonrpc and ACP_V1 not in JSONL_DIALECTS
    assert METHODS["session/prompt"].side == "agent" and METHODS["fs/read_text_file"].side == "client"
    assert METHODS["session/update"].result is None


@pytest.mark.parametrize("direction", ["c2a", "a2c"])
def test_detected_from_a_jsonrpc_message(direction: str) -> None:
    d = DialectDetector()
    frame = INIT if direction == "c2a" else {"jsonrpc": "2.0", "id": 0, "result": {"protocolVersion": 1}}
    assert d.feed(frame, direction) == ACP_V1 and d.sure
    assert "protocolVersion 1" in d.reason


def test_pi_frames_on_stdin_do_not_decide() -> None:
    assert DialectDetector().feed({"type": "prompt", "message": "hi"}, "c2a") is None


def test_kinds() -> None:
    assert kind_of(INIT) == "request"
    assert kind_of({"jsonrpc": "2.0", "method": "session/cancel", "params": {}}) == "notification"
    assert kind_of({"jsonrpc": "2.0", "id": 1, "result": None}) == "response"
    assert kind_of({"jsonrpc": "2.0", "id": 1}) == "invalid"


def test_clean_messages_validate() -> None:
    assert validate(INIT, "c2a", ACP_V1) == []
    update = {"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": "s", "update": {
        "sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "hi"}}}}
    assert validate(update, "a2c", ACP_V1) == []
    perm = {"jsonrpc": "2.0", "id": 3, "method": "session/request_permission", "params": {
        "sessionId": "s", "toolCall": {"toolCallId": "t1", "status": "pending"},
        "options": [{"optionId": "a", "name": "Allow", "kind": "allow_once"}]}}
    assert validate(perm, "a2c", ACP_V1) == []
    assert validate_result("session/prompt", {"stopReason": "end_turn"}) == []


def test_wrong_messages_are_reported_with_paths() -> None:
    bad = {"jsonrpc": "1.0", "id": 1, "method": "session/prompt", "params": {"sessionId": 5, "prompt": []}}
    issues = {(i.kind, i.path) for i in validate(bad, "c2a", ACP_V1)}
    assert ("bad_enum", "$.jsonrpc") in issues and ("wrong_type", "$.params.sessionId") in issues
    wrong_side = {"jsonrpc": "2.0", "id": 1, "method": "session/prompt", "params": {"sessionId": "s", "prompt": []}}
    assert [i.kind for i in validate(wrong_side, "a2c", ACP_V1)] == ["unknown_type"]
    assert [i.path for i in validate_result("session/prompt", {"stopReason": "done"})] == ["$.result.stopReason"]
    assert validate({"jsonrpc": "2.0", "id": 1, "method": "_zed/custom"}, "c2a", ACP_V1) == []


def test_capabilities_gate_methods() -> None:
    n = Negotiated()
    assert n.refused("fs/read_text_file") is None  # not negotiated yet: nothing to say
    n.initialize_sent(INIT["params"])
    n.initialize_answered({"protocolVersion": 1, "agentCapabilities": {"loadSession": True,
                                                                       "promptCapabilities": {"image": True}}})
    assert n.refused("fs/read_text_file") is None
    gate = n.refused("fs/write_text_file")
    assert gate is not None and gate.spelled == "clientCapabilities.fs.writeTextFile"
    assert n.refused("terminal/create") is not None and n.refused("session/load") is None
    assert n.refused("session/list") is not None and n.refused("session/request_permission") is None
    prompt = {"sessionId": "s", "prompt": [{"type": "image"}, {"type": "audio"}, {"type": "text"}]}
    assert n.refused_content(prompt) == [(1, "audio")]


@pytest.mark.parametrize(("error", "wrong"), [
    ({"code": -32601, "message": "nope"}, False), ({"code": -1, "message": "x", "data": [1]}, False),
    ("boom", True), ({"message": "x"}, True), ({"code": "E1", "message": "x"}, True),
    ({"code": 1}, True), ({"code": 1, "message": 2}, True), ({"code": 1, "message": "x", "stack": ""}, True),
])
def test_error_shape(error: object, wrong: bool) -> None:
    assert (error_shape(error) is not None) == wrong


def test_the_schema_copy_is_the_sdk_s() -> None:
    schema = json.loads((DATA / "acp/schema-v1.json").read_text())
    assert "SessionNotification" in schema["$defs"]
