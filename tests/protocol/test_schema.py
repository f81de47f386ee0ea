"""JSON Schema output, checked with an independent validator, and completion helpers."""

from __future__ import annotations

import json

import pytest

from rpcspy.protocol import command_fields, command_types, json_schema, validate
from rpcspy.protocol.spec import JSONL_DIALECTS
from tests.protocol.corpus import CORPORA, NOT_JSON, dialect_of, frames

jsonschema = pytest.importorskip("jsonschema")


@pytest.mark.parametrize("dialect", JSONL_DIALECTS)
@pytest.mark.parametrize("direction", [None, "c2a", "a2c"])
def test_schema_is_valid_json_schema(dialect: str, direction: str | None) -> None:
    doc = json_schema(dialect, direction)
    jsonschema.Draft202012Validator.check_schema(doc)
    json.dumps(doc)
    text = json.dumps(doc)
    for ref in {part.split('"')[0] for part in text.split('"$ref": "#/$defs/')[1:]}:
        assert ref in doc["$defs"], ref


def test_top_level_names_both_directions() -> None:
    doc = json_schema("pi-0.73")
    assert doc["oneOf"] == [{"$ref": "#/$defs/ClientFrame"}, {"$ref": "#/$defs/AgentFrame"}]
    assert {"Prompt", "GetStateResponse", "ErrorResponse", "MessageUpdate", "Confirm"} <= set(doc["$defs"])
    assert doc["$defs"]["Prompt"]["additionalProperties"] is False          # strict for what you send
    assert "additionalProperties" not in doc["$defs"]["AssistantMessage"]   # tolerant for what you read
    assert "SessionTreeNode" in json_schema("pi-0.84")["$defs"]


@pytest.mark.parametrize("corpus", list(CORPORA))
def test_a_json_schema_validator_agrees_with_validate(corpus: str) -> None:
    """A client author's validator accepts exactly what rpcspy accepts (unknown command fields aside)."""
    dialect = dialect_of(corpus)
    validators = {d: jsonschema.Draft202012Validator(json_schema(dialect, d)) for d in ("c2a", "a2c")}
    disagree, seen = [], {}
    for f in frames(corpus):
        if f.obj is NOT_JSON:
            continue
        issues = validate(f.obj, f.dir, dialect)
        if isinstance(f.obj, dict) and not issues:  # jsonschema is slow: a few clean frames per shape
            event = f.obj.get("assistantMessageEvent")
            shape = (f.dir, str(f.obj.get("type")), str(f.obj.get("command")), tuple(sorted(f.obj)),
                     event.get("type") if isinstance(event, dict) else None)
            seen[shape] = seen.get(shape, 0) + 1
            if seen[shape] > 3:
                continue
        ours = any(i.hard for i in issues) or (f.dir == "c2a" and bool(issues))
        theirs = not validators[f.dir].is_valid(f.obj)
        if ours != theirs:
            disagree.append((f.file, f.seq, f.dir, [i.message for i in issues]))
    assert disagree == []


def test_command_types_and_fields() -> None:
    types = command_types("pi-0.73")
    assert types[:3] == ["abort", "abort_bash", "abort_retry"] and types[-1] == "extension_ui_response"
    assert "branch" in command_types("omp") and "branch" not in types
    assert command_fields("pi-0.73", "set_steering_mode") == {
        "mode": {"required": True, "type": "'all' | 'one-at-a-time'", "enum": ["all", "one-at-a-time"]},
        "id": {"required": False, "type": "string"}}
    assert command_fields("pi-0.73", "prompt")["message"] == {"required": True, "type": "string"}
    assert command_fields("pi-0.73", "nope") == {}


def test_bad_direction() -> None:
    with pytest.raises(ValueError):
        json_schema("pi-0.73", "err")
