"""validate(), validate_response_data(), validate_bytes(): issue kinds, paths and messages."""

from __future__ import annotations

import msgspec
import pytest
from msgspec import UNSET

from rpcspy.protocol import (
    SchemaIssue,
    frame_type,
    validate,
    validate_bytes,
    validate_response_data,
)
from rpcspy.protocol.spec import JSONL_DIALECTS

USAGE = {"input": 1, "output": 2, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 3,
         "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}}
ASSISTANT = {"role": "assistant", "content": [{"type": "text", "text": "hi"}], "api": "openai-completions",
             "provider": "fake", "model": "m", "usage": USAGE, "stopReason": "stop", "timestamp": 1}
MODEL = {"id": "m", "name": "M", "api": "openai-completions", "provider": "fake", "baseUrl": "http://x",
         "reasoning": False, "input": ["text"], "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0},
         "contextWindow": 1000, "maxTokens": 100}
STATE = {"model": MODEL, "thinkingLevel": "off", "isStreaming": False, "isCompacting": False,
         "steeringMode": "one-at-a-time", "followUpMode": "one-at-a-time", "sessionId": "s",
         "autoCompactionEnabled": True, "messageCount": 0, "pendingMessageCount": 0}


def kinds(issues: list[SchemaIssue]) -> set[tuple[str, str]]:
    return {(i.kind, i.path) for i in issues}


# --- commands --------------------------------------------------------------------------------

@pytest.mark.parametrize("dialect", JSONL_DIALECTS)
def test_valid_prompt_is_clean_in_every_dialect(dialect: str) -> None:
    assert validate({"id": "1", "type": "prompt", "message": "hi"}, "c2a", dialect) == []


def test_bad_enum_names_the_field_and_the_allowed_values() -> None:
    [issue] = validate({"type": "set_steering_mode", "mode": "bogus"}, "c2a", "pi-0.73")
    assert issue == SchemaIssue("bad_enum", "$.mode",
                                "invalid value 'bogus' for mode (expected 'all' | 'one-at-a-time')")


def test_a_non_string_enum_value_is_a_bad_enum_too() -> None:
    assert kinds(validate({"type": "set_follow_up_mode", "mode": 42}, "c2a", "pi-0.73")) == {("bad_enum", "$.mode")}


def test_missing_and_mistyped_fields_are_all_reported() -> None:
    issues = validate({"type": "set_model", "provider": 7}, "c2a", "pi-0.73")
    assert kinds(issues) == {("wrong_type", "$.provider"), ("missing_field", "$.modelId")}
    assert "expected string for provider, got integer" in {i.message for i in issues}


def test_unknown_fields_are_reported_but_never_hard() -> None:
    [issue] = validate({"id": "x", "type": "get_state", "bogus": 123}, "c2a", "pi-0.73")
    assert (issue.kind, issue.path, issue.hard) == ("unknown_field", "$.bogus", False)


def test_unknown_command_says_which_dialect_knows_it() -> None:
    [issue] = validate({"type": "branch", "entryId": "e"}, "c2a", "pi-0.73")
    assert issue.kind == "unknown_type" and issue.path == "$.type"
    assert "known in omp" in issue.message
    [issue] = validate({"type": "nope"}, "c2a", "pi-0.73")
    assert issue.message == "unknown command type 'nope' in pi-0.73"


@pytest.mark.parametrize("obj, expected", [
    (None, ("invalid", "$")), (42, ("invalid", "$")), ([], ("invalid", "$")),
    ({"id": "x"}, ("missing_field", "$.type")), ({"type": 5}, ("wrong_type", "$.type")),
    ({"type": ["prompt"]}, ("wrong_type", "$.type")),
])
def test_frames_that_are_not_commands(obj: object, expected: tuple[str, str]) -> None:
    assert kinds(validate(obj, "c2a", "pi-0.73")) == {expected}


def test_a_client_sending_an_agent_frame_type_is_an_unknown_command() -> None:
    assert kinds(validate({"type": "agent_start"}, "c2a", "pi-0.73")) == {("unknown_type", "$.type")}


def test_extension_ui_response_needs_an_answer_field() -> None:
    assert validate({"type": "extension_ui_response", "id": "u", "cancelled": True}, "c2a", "pi-0.73") == []
    assert kinds(validate({"type": "extension_ui_response", "id": "u"}, "c2a", "pi-0.73")) == {
        ("missing_field", "$.value")}
    assert kinds(validate({"type": "extension_ui_response", "id": "u", "cancelled": False}, "c2a", "pi-0.73")) == {
        ("bad_enum", "$.cancelled")}


def test_nested_tagged_union_with_unknown_tag_is_a_bad_enum() -> None:
    frame = {"type": "prompt", "message": "m", "images": [{"type": "video", "data": "x"}]}
    [issue] = validate(frame, "c2a", "pi-0.73")
    assert (issue.kind, issue.path) == ("bad_enum", "$.images[0].type")


# --- dialect differences -----------------------------------------------------------------------

OLD_IMAGE = {"type": "image", "source": {"type": "base64", "mediaType": "image/png", "data": "iVBOR"}}


def test_old_image_source_form_is_valid_only_in_the_feb2026_dialect() -> None:
    frame = {"type": "prompt", "message": "m", "images": [OLD_IMAGE]}
    assert validate(frame, "c2a", "pi-feb2026") == []
    for dialect in ("pi-0.73", "pi-0.84", "omp"):
        assert kinds(validate(frame, "c2a", dialect)) == {
            ("missing_field", "$.images[0].data"), ("missing_field", "$.images[0].mimeType"),
            ("unknown_field", "$.images[0].source")}


def test_feb2026_image_needs_source_or_data_and_mime_type() -> None:
    frame = {"type": "prompt", "message": "m", "images": [{"type": "image", "data": "x"}]}
    assert kinds(validate(frame, "c2a", "pi-feb2026")) == {("missing_field", "$.images[0].mimeType")}


@pytest.mark.parametrize("command, known_in", [
    ("clone", {"pi-0.73", "pi-0.84", "pi-0.99"}),
    ("clear_queue", {"pi-0.84", "pi-0.99"}),
    ("get_entries", {"pi-0.84", "pi-0.99", "omp"}),
    ("branch", {"omp"}),
    ("fork", {"pi-0.73", "pi-0.84", "pi-0.99", "pi-feb2026"}),
    ("set_host_tools", {"omp"}),
])
def test_command_sets_per_dialect(command: str, known_in: set[str]) -> None:
    from rpcspy.protocol import get_protocol

    assert {d for d in JSONL_DIALECTS if command in get_protocol(d).commands} == known_in


def test_message_update_shape_depends_on_the_dialect() -> None:
    delta = {"type": "message_update", "usage": USAGE,
             "assistantMessageEvent": {"type": "text_delta", "contentIndex": 0, "delta": "h"}}
    full = {"type": "message_update", "message": ASSISTANT,
            "assistantMessageEvent": {"type": "text_delta", "contentIndex": 0, "delta": "h", "partial": ASSISTANT}}
    assert validate(delta, "a2c", "pi-0.84") == []
    assert validate(full, "a2c", "pi-0.73") == []
    assert kinds(validate(delta, "a2c", "pi-0.73")) == {
        ("missing_field", "$.message"), ("missing_field", "$.assistantMessageEvent.partial"),
        ("unknown_field", "$.usage")}
    assert ("missing_field", "$.usage") in kinds(validate(full, "a2c", "pi-0.84"))


def test_start_done_error_stream_events_exist_only_in_the_feb2026_doc() -> None:
    frame = {"type": "message_update", "message": ASSISTANT,
             "assistantMessageEvent": {"type": "done", "reason": "stop", "message": ASSISTANT}}
    assert validate(frame, "a2c", "pi-feb2026") == []
    [issue] = validate(frame, "a2c", "pi-0.73")
    assert (issue.kind, issue.path) == ("bad_enum", "$.assistantMessageEvent.type")


def test_system_messages_and_pending_stop_reason_need_pi_084() -> None:
    system = {"type": "message_start", "message": {"role": "system", "content": "", "timestamp": 1}}
    pending = {"type": "message_start", "message": {**ASSISTANT, "stopReason": "pending"}}
    for frame, path in ((system, "$.message.role"), (pending, "$.message.stopReason")):
        assert validate(frame, "a2c", "pi-0.84") == []
        assert kinds(validate(frame, "a2c", "pi-0.73")) == {("bad_enum", path)}


@pytest.mark.parametrize("frame, dialects", [
    ({"type": "agent_settled"}, {"pi-0.84", "pi-0.99"}),
    ({"type": "bash_execution_update", "id": "b1", "delta": "x"}, {"pi-0.84", "pi-0.99"}),
    ({"type": "queue_update", "steering": [], "followUp": ["a"]}, {"pi-0.73", "pi-0.84", "pi-0.99"}),
    ({"type": "compaction_start", "reason": "manual"}, {"pi-0.73", "pi-0.84", "pi-0.99"}),
    ({"type": "auto_compaction_start", "reason": "threshold"}, {"pi-feb2026", "omp"}),
    # omp's event has only optional fields, so pi's `level` is merely unknown there
    ({"type": "thinking_level_changed", "level": "high"}, {"pi-0.73", "pi-0.84", "pi-0.99", "omp"}),
    ({"type": "thinking_level_changed", "thinkingLevel": "high", "configured": "auto"}, {"omp"}),
    ({"type": "ready", "protocolVersion": 1, "supportedProtocolVersions": [1, 2], "maxFrameBytes": 1,
      "maxReassembledFrameBytes": 2}, {"omp"}),
    ({"type": "host_tool_call", "id": "h", "toolCallId": "t", "toolName": "x", "arguments": {}}, {"omp"}),
    ({"type": "prompt_result", "id": "p", "agentInvoked": True, "status": "completed", "sessionSettled": True},
     {"omp"}),
])
def test_events_per_dialect(frame: dict, dialects: set[str]) -> None:
    clean = {d for d in JSONL_DIALECTS if not [i for i in validate(frame, "a2c", d) if i.hard]}
    assert clean == dialects


def test_agent_end_needs_will_retry_in_pi_084() -> None:
    assert kinds(validate({"type": "agent_end", "messages": []}, "a2c", "pi-0.84")) == {
        ("missing_field", "$.willRetry")}
    assert validate({"type": "agent_end", "messages": [], "willRetry": False}, "a2c", "pi-0.84") == []


def test_omp_host_frames_from_the_client() -> None:
    update = {"type": "host_tool_update", "id": "h", "partialResult": {"content": [{"type": "text", "text": "."}]}}
    assert validate(update, "c2a", "omp") == []
    assert kinds(validate({"type": "host_tool_result", "id": "h", "result": {}}, "c2a", "omp")) == {
        ("missing_field", "$.result.content")}


# --- extension UI requests -----------------------------------------------------------------------

def test_ui_requests_are_checked_per_method() -> None:
    ok = {"type": "extension_ui_request", "id": "u", "method": "confirm", "title": "t", "message": "m"}
    assert validate(ok, "a2c", "pi-0.73") == []
    assert kinds(validate({**ok, "method": "select"}, "a2c", "pi-0.73")) == {
        ("missing_field", "$.options"), ("unknown_field", "$.message")}
    assert kinds(validate({**ok, "method": "dance"}, "a2c", "pi-0.73")) == {("bad_enum", "$.method")}
    cancel = {"type": "extension_ui_request", "id": "c", "method": "cancel", "targetId": "u"}
    assert validate(cancel, "a2c", "omp") == []
    assert kinds(validate(cancel, "a2c", "pi-0.84")) == {("bad_enum", "$.method")}


# --- responses ---------------------------------------------------------------------------------

def test_bogus_steering_mode_in_get_state_data() -> None:
    data = {**STATE, "steeringMode": "bogus"}
    [issue] = validate_response_data("get_state", data, "pi-0.73")
    assert issue == SchemaIssue("bad_enum", "$.steeringMode",
                                "invalid value 'bogus' for steeringMode (expected 'all' | 'one-at-a-time')")
    frame = {"id": "g", "type": "response", "command": "get_state", "success": True, "data": data}
    assert kinds(validate(frame, "a2c", "pi-0.73")) == {("bad_enum", "$.data.steeringMode")}


def test_response_data_paths_point_into_the_data() -> None:
    data = {**STATE, "model": {**MODEL, "contextWindow": "big"}}
    assert kinds(validate_response_data("get_state", data, "pi-0.73")) == {("wrong_type", "$.model.contextWindow")}


def test_failed_response_needs_an_error() -> None:
    assert validate({"type": "response", "command": "x", "success": False, "error": "e"}, "a2c", "pi-0.73") == []
    assert validate({"type": "response", "success": False, "error": "Unknown command: undefined"}, "a2c",
                    "pi-0.73") == []
    assert kinds(validate({"type": "response", "command": "x", "success": False}, "a2c", "pi-0.73")) == {
        ("missing_field", "$.error")}


def test_data_presence_rules() -> None:
    assert kinds(validate_response_data("get_state", UNSET, "pi-0.73")) == {("missing_field", "$")}
    assert validate_response_data("abort", UNSET, "pi-0.73") == []
    assert kinds(validate_response_data("abort", {}, "pi-0.73")) == {("unknown_field", "$")}
    assert validate_response_data("prompt", UNSET, "omp") == []                       # data optional in omp
    assert validate_response_data("prompt", {"agentInvoked": True}, "omp") == []
    assert kinds(validate_response_data("nope", {}, "pi-0.73")) == {("unknown_type", "$")}


def test_nullable_and_empty_data() -> None:
    assert validate_response_data("cycle_model", None, "pi-0.73") == []
    assert validate_response_data("cycle_thinking_level", None, "pi-0.73") == []
    assert validate_response_data("get_last_assistant_text", {}, "pi-0.73") == []
    assert kinds(validate_response_data("get_state", None, "pi-0.73")) == {("wrong_type", "$")}


def test_success_response_to_a_command_the_dialect_lacks() -> None:
    frame = {"id": "c", "type": "response", "command": "clear_queue", "success": True,
             "data": {"steering": [], "followUp": []}}
    assert validate(frame, "a2c", "pi-0.84") == []
    [issue] = validate(frame, "a2c", "pi-0.73")
    assert (issue.kind, issue.path) == ("unknown_type", "$.command") and "pi-0.84" in issue.message


def test_response_id_is_an_echo_of_any_json_value() -> None:
    for id_ in (5, None, "", {"a": 1}):
        frame = {"id": id_, "type": "response", "command": "abort", "success": True}
        assert validate(frame, "a2c", "pi-0.73") == []


# --- validate_bytes ----------------------------------------------------------------------------

def test_validate_bytes_returns_structs_for_clean_frames() -> None:
    value, issues = validate_bytes(b'{"id":"1","type":"prompt","message":"hi"}', "c2a", "pi-0.73")
    assert issues == [] and isinstance(value, msgspec.Struct)
    assert frame_type(value) == "prompt" and value.message == "hi" and value.id == "1"
    ui = b'{"type":"extension_ui_request","id":"u","method":"notify","message":"m"}'
    value, issues = validate_bytes(ui, "a2c", "pi-0.73")
    assert issues == [] and frame_type(value) == "extension_ui_request" and value.message == "m"


def test_validate_bytes_returns_the_plain_json_with_issues() -> None:
    value, issues = validate_bytes(b'{"type":"set_steering_mode","mode":"bogus"}', "c2a", "pi-0.73")
    assert value == {"type": "set_steering_mode", "mode": "bogus"}
    assert kinds(issues) == {("bad_enum", "$.mode")}
    value, issues = validate_bytes(b'{"type":"response","command":"get_state","success":true}', "a2c", "pi-0.73")
    assert isinstance(value, dict) and kinds(issues) == {("missing_field", "$.data")}


@pytest.mark.parametrize("data", [b"", b"not json", b'{"a":', b'"x\xff"'])
def test_validate_bytes_on_non_json(data: bytes) -> None:
    value, issues = validate_bytes(data, "c2a", "pi-0.73")
    assert value is None and [i.kind for i in issues] == ["invalid"]


def test_frame_type_of_plain_values() -> None:
    assert frame_type({"type": "x"}) == "x"
    assert frame_type([1]) is None


def test_unknown_dialect_and_direction_are_errors() -> None:
    with pytest.raises(ValueError, match="unknown dialect"):
        validate({"type": "prompt"}, "c2a", "pi-9")
    with pytest.raises(ValueError, match="direction"):
        validate({"type": "prompt"}, "err", "pi-0.73")


# --- robustness ------------------------------------------------------------------------------

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from rpcspy.protocol import get_protocol  # noqa: E402

_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=20,
)
_TYPES = sorted({t for d in JSONL_DIALECTS for dr in ("c2a", "a2c") for t in get_protocol(d).frames(dr)})
_KEYS = ["message", "data", "success", "command", "id", "method", "messages", "role", "content", "images",
         "assistantMessageEvent", "partial", "usage", "entry", "tools", "phases"]


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(JSONL_DIALECTS), st.sampled_from(["c2a", "a2c"]), st.sampled_from(_TYPES),
       st.dictionaries(st.sampled_from(_KEYS), _json, max_size=5))
def test_validate_never_raises(dialect: str, direction: str, type_: str, fields: dict) -> None:
    obj = {"type": type_, **fields}
    issues = validate(obj, direction, dialect)
    assert all(isinstance(i, SchemaIssue) and i.path.startswith("$") for i in issues)
    raw = msgspec.json.encode(obj)
    value, byte_issues = validate_bytes(raw, direction, dialect)
    assert byte_issues == issues


def test_deep_nesting_is_reported_not_raised() -> None:
    deep: object = "x"
    for _ in range(5000):
        deep = [deep]
    issues = validate({"type": "set_todos", "phases": deep}, "c2a", "omp")
    assert issues and issues[0].kind in ("invalid", "wrong_type")


def test_validate_bytes_on_absurdly_deep_json() -> None:
    data = b'{"type":"set_todos","phases":' + b"[" * 100_000 + b"]" * 100_000 + b"}"
    value, issues = validate_bytes(data, "c2a", "omp")
    assert value is None and [i.kind for i in issues] == ["invalid"]


# --- pi >= 0.99 (protocol-notes 11.1, frames as pi 1.5.2 writes them) ------------------------
USAGE_099 = {**USAGE, "cost": {**USAGE["cost"], "totalFromProvider": False}}
ASSISTANT_099 = {**ASSISTANT, "usage": USAGE_099, "thinkingLevel": "off", "durationMs": 12}
PI_099_FRAMES = [
    ({"type": "response", "id": "p", "command": "prompt", "success": True, "data": {"disposition": "handled"}},
     {("unknown_field", "$.data")}),
    ({"type": "response", "id": "s", "command": "steer", "success": True, "data": {"disposition": "queued"}},
     {("unknown_field", "$.data")}),
    ({"type": "agent_settled", "aborted": True}, {("unknown_field", "$.aborted")}),
    ({"type": "tool_execution_end", "toolCallId": "c/1", "toolName": "bash", "isError": False, "durationMs": 3.5,
      "parentToolCallId": "c", "result": {"content": [], "structuredContent": {"stdout": ""}}},
     {("unknown_field", "$.durationMs"), ("unknown_field", "$.parentToolCallId"),
      ("unknown_field", "$.result.structuredContent")}),
    ({"type": "tool_execution_start", "toolCallId": "c/1", "toolName": "bash", "args": {}, "parentToolCallId": "c"},
     {("unknown_field", "$.parentToolCallId")}),
    ({"type": "message_end", "message": ASSISTANT_099},
     {("unknown_field", "$.message.thinkingLevel"), ("unknown_field", "$.message.durationMs"),
      ("unknown_field", "$.message.usage.cost.totalFromProvider")}),
    ({"type": "message_end", "message": {"role": "toolResult", "toolCallId": "c", "toolName": "bash", "content": [],
                                         "isError": False, "timestamp": 1, "durationMs": 4,
                                         "nestedCalls": {"complete": True, "calls": [
                                             {"id": "c/1", "name": "read", "status": "ok", "durationMs": 1}]}}},
     {("unknown_field", "$.message.durationMs"), ("unknown_field", "$.message.nestedCalls")}),
]


@pytest.mark.parametrize("frame, in_084", PI_099_FRAMES)
def test_pi_099_fields_are_known_to_pi_099_only(frame: dict, in_084: set) -> None:
    assert validate(frame, "a2c", "pi-0.99") == []
    assert kinds(validate(frame, "a2c", "pi-0.84")) == in_084


def test_pi_099_dispositions_are_enumerated() -> None:
    bad = {"type": "response", "id": "s", "command": "follow_up", "success": True, "data": {"disposition": "started"}}
    assert kinds(validate(bad, "a2c", "pi-0.99")) == {("bad_enum", "$.data.disposition")}
    none = {"type": "response", "id": "p", "command": "prompt", "success": True}
    assert kinds(validate(none, "a2c", "pi-0.99")) == {("missing_field", "$.data")}
