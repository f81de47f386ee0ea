"""The REPL's input language: short syntax, raw JSON, ``!``, ids, validation."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rpcspy.interactive.schema import CommandSchema, FieldInfo
from rpcspy.interactive.syntax import (
    IdAllocator,
    coerce,
    encode,
    incomplete,
    parse,
    prepare,
    tokens,
    unquote,
)

PI = CommandSchema("pi-0.73")
ANY = CommandSchema(None)


@pytest.mark.parametrize(("text", "obj"), [
    ("prompt Hello there", {"type": "prompt", "message": "Hello there"}),
    ("set_thinking_level high", {"type": "set_thinking_level", "level": "high"}),
    ("set_model anthropic claude-sonnet-4", {"type": "set_model", "provider": "anthropic", "modelId": "claude-sonnet-4"}),
    ("bash ls -la", {"type": "bash", "command": "ls -la"}),
    ("get_state", {"type": "get_state"}),
    ("compact keep the tests", {"type": "compact", "customInstructions": "keep the tests"}),
    ("set_auto_compaction off", {"type": "set_auto_compaction", "enabled": False}),
    ("set_auto_retry yes", {"type": "set_auto_retry", "enabled": True}),
    ("prompt streamingBehavior=steer  go  on ", {"type": "prompt", "streamingBehavior": "steer", "message": "go  on"}),
    ('prompt "quoted" stays', {"type": "prompt", "message": '"quoted" stays'}),
    ("prompt a=b is text", {"type": "prompt", "message": "a=b is text"}),
    ("prompt id=mine hi", {"type": "prompt", "id": "mine", "message": "hi"}),
    ('extension_ui_response 7cd7 value="B c"', {"type": "extension_ui_response", "id": "7cd7", "value": "B c"}),
    ("extension_ui_response 7cd7 cancelled=true", {"type": "extension_ui_response", "id": "7cd7", "cancelled": True}),
    ("prompt line one\\\nline two", {"type": "prompt", "message": "line one\nline two"}),
    ('prompt images=[{"type":"image","data":"AA==","mimeType":"image/png"}] look',
     {"type": "prompt", "images": [{"type": "image", "data": "AA==", "mimeType": "image/png"}], "message": "look"}),
])
def test_short_syntax(text: str, obj: dict) -> None:
    parsed = parse(text, PI)
    assert parsed.kind == "command" and not parsed.force
    assert parsed.obj == obj


@pytest.mark.parametrize(("text", "error"), [
    ("promt hi", "unknown command 'promt'; did you mean prompt?"),
    ("get_state now", "unexpected 'now' after get_state"),
    ("prompt images=[1, hi", "not valid JSON for images"),
    ('{"type": "prompt"', "invalid JSON"),
    ("[1, 2]", "not a JSON object"),
    ("/launch", "unknown command /launch"),
    ("!", "nothing to send"),
    ("<html>", "is not a command"),
])
def test_errors_say_why(text: str, error: str) -> None:
    parsed = parse(text, PI)
    assert parsed.kind == "error" and error in parsed.error


def test_raw_json_over_several_lines() -> None:
    text = '{\n  "type": "prompt",\n  "message": "a\\nb"\n}'
    assert not incomplete(text)
    parsed = parse(text, PI)
    assert parsed.obj == {"type": "prompt", "message": "a\nb"}
    assert encode(parsed.obj) == b'{"type":"prompt","message":"a\\nb"}\n', "sent as one line"


def test_bang_sends_anyway() -> None:
    assert parse("!prompt", PI).obj == {"type": "prompt"} and parse("!prompt", PI).force
    assert (parse("!not json", PI).kind, parse("!not json", PI).raw) == ("raw", "not json")
    assert (parse("!null", PI).kind, parse("!null", PI).raw) == ("raw", "null")
    assert parse('!{"type": "x"', PI).raw == '{"type": "x"'
    assert parse("!  [1,2]", PI).raw == "[1, 2]"


def test_meta_commands() -> None:
    assert (parse("/dialect omp", PI).meta, parse("/dialect omp", PI).arg) == ("dialect", "omp")
    assert parse("/quit", PI).kind == "meta"
    assert parse("   ", PI).kind == "empty"


def test_without_a_schema_fields_are_name_value_only() -> None:
    class Nothing(CommandSchema):
        def types(self) -> list[str]:
            return []

        def fields(self, command: str) -> list:
            return []

        def problems(self, obj) -> list[str]:
            return []

    assert parse("anything x=1 y=on", Nothing()).obj == {"type": "anything", "x": 1, "y": "on"}
    assert parse("anything positional", Nothing()).kind == "error"


def test_ids_are_assigned_once_valid() -> None:
    ids = IdAllocator()
    refused = prepare(parse("prompt", PI), PI, ids)
    assert refused.refused.startswith("missing required field 'message'") and "prefix with !" in refused.refused
    assert refused.line == b""
    first = prepare(parse("prompt hi", PI), PI, ids)
    assert first.line == b'{"id":"r1","type":"prompt","message":"hi"}\n'
    mine = prepare(parse("get_state id=x", PI), PI, ids)
    assert mine.obj == {"type": "get_state", "id": "x"}
    answer = prepare(parse("extension_ui_response d1 value=A", PI), PI, ids)
    assert answer.obj == {"type": "extension_ui_response", "id": "d1", "value": "A"}
    forced = prepare(parse("!set_thinking_level ultra", PI), PI, ids)
    assert json.loads(forced.line) == {"id": "r2", "type": "set_thinking_level", "level": "ultra"}
    assert forced.remarks and "invalid value 'ultra'" in forced.remarks[0]
    unknown_field = prepare(parse('{"type":"get_state","extra":1}', PI), PI, ids)
    assert unknown_field.line and unknown_field.remarks == ["unknown field 'extra' in get_state"]
    raw = prepare(parse("!hello", PI), PI, ids)
    assert raw.line == b"hello\n" and raw.obj is None


def test_undecided_dialect_refuses_only_what_no_dialect_accepts() -> None:
    ids = IdAllocator()
    assert prepare(parse("get_available_thinking_levels", ANY), ANY, ids).line  # pi >= 0.84 and omp know it
    assert "unknown command" in parse("get_available_thinking_levels", PI).error
    assert prepare(parse("set_steering_mode bogus", ANY), ANY, ids).refused


def test_coerce_by_type() -> None:
    boolean = FieldInfo("enabled", True, "boolean")
    assert [coerce(v, boolean) for v in ("on", "No", "maybe")] == [True, False, "maybe"]
    number = FieldInfo("n", True, "integer")
    assert [coerce(v, number) for v in ("3", "2.5", "x")] == [3, 2.5, "x"]
    assert coerce("007", FieldInfo("s", True, "string")) == "007"
    assert coerce('{"a":1}', FieldInfo("o", False, "object")) == {"a": 1}
    assert coerce("true", FieldInfo("c", False, "true", (True,))) is True


def test_tokens_keep_quoted_parts_together() -> None:
    assert [t.text for t in tokens('a "b c" d=\'e f\'')] == ["a", '"b c"', "d='e f'"]
    assert unquote('value="B \\"c\\""') == 'value=B "c"'


@pytest.mark.parametrize(("text", "more"), [
    ("{", True), ('{"a": "}', True), ('{"a": "\\"}"', True), ('{"a": [1, {}]}', False), ("!{", True),
    ("prompt x \\", True), ("prompt x \\\\", False), ("prompt x", False), ("[[]", True),
])
def test_incomplete(text: str, more: bool) -> None:
    assert incomplete(text) is more


json_values = st.recursive(st.none() | st.booleans() | st.integers() | st.text(),
                           lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(), inner, max_size=3),
                           max_leaves=8)


@given(st.dictionaries(st.text(), json_values, max_size=4), st.sampled_from([None, 2]))
def test_every_strict_prefix_of_a_json_object_is_incomplete(obj: dict, indent: int | None) -> None:
    text = json.dumps(obj, indent=indent)
    assert not incomplete(text)
    for cut in range(1, len(text)):
        assert incomplete(text[:cut])


@given(st.text(min_size=1).filter(lambda t: t.strip() == t and "\\\n" not in t and "=" not in t.split(" ")[0]))
def test_prompt_text_comes_through_as_typed(message: str) -> None:
    parsed = parse("prompt " + message, PI)
    assert parsed.kind == "command" and parsed.obj == {"type": "prompt", "message": message}
