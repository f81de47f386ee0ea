"""Mapping msgspec ValidationError messages to SchemaIssue kinds and paths."""

from __future__ import annotations

from typing import Literal

import msgspec
import pytest

from rpcspy.protocol.issues import SchemaIssue, fmt_value, from_msgspec_error, json_type


class Mode(msgspec.Struct, forbid_unknown_fields=True):
    mode: Literal["all", "one-at-a-time"]
    n: int = 0


class Frame(msgspec.Struct, forbid_unknown_fields=True):
    data: Mode


def _error(obj: object) -> str:
    with pytest.raises(msgspec.ValidationError) as info:
        msgspec.convert(obj, Frame)
    return str(info.value)


@pytest.mark.parametrize("obj, kind, path", [
    ({"data": {"mode": "bogus"}}, "bad_enum", "$.data.mode"),
    ({"data": {"mode": "all", "n": "x"}}, "wrong_type", "$.data.n"),
    ({"data": {}}, "missing_field", "$.data.mode"),
    ({"data": {"mode": "all", "extra": 1}}, "unknown_field", "$.data.extra"),
    ({}, "missing_field", "$.data"),
])
def test_real_msgspec_errors_map_to_kinds_and_paths(obj: object, kind: str, path: str) -> None:
    issue = from_msgspec_error(_error(obj))
    assert (issue.kind, issue.path) == (kind, path)


def test_wrong_type_message_uses_json_type_names() -> None:
    issue = from_msgspec_error("Expected `str | null`, got `int` - at `$.x`")
    assert issue == SchemaIssue("wrong_type", "$.x", "expected string | null for x, got integer")


def test_prefix_moves_the_path() -> None:
    assert from_msgspec_error("Expected `int`, got `str` - at `$.n`", "$.data").path == "$.data.n"
    assert from_msgspec_error("something odd").kind == "invalid"


def test_under_and_hard() -> None:
    issue = SchemaIssue("unknown_field", "$.x", "m")
    assert issue.under("$.data") == SchemaIssue("unknown_field", "$.data.x", "m")
    assert not issue.hard and SchemaIssue("bad_enum", "$", "m").hard


def test_fmt_value_and_json_type() -> None:
    assert fmt_value("bogus") == "'bogus'"
    assert fmt_value("it's") == '"it\'s"'
    assert fmt_value(42) == "42" and fmt_value(None) == "null"
    assert fmt_value("x" * 100).endswith("...")
    assert [json_type(v) for v in (None, True, 1, 1.5, "s", [], {})] == [
        "null", "boolean", "integer", "number", "string", "array", "object"]
