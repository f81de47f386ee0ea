"""The Python walker mirrors msgspec: it finds issues exactly when msgspec.convert fails."""

from __future__ import annotations

import copy
from typing import Any, Literal, Union

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rpcspy.protocol import get_protocol, validate
from rpcspy.protocol.walk import describe, walk
from tests.protocol.corpus import CORPORA, NOT_JSON, dialect_of, frames


def _clean_frames() -> list[tuple[str, str, Any]]:
    out = []
    for corpus in CORPORA:
        dialect = dialect_of(corpus)
        for f in frames(corpus):
            small = len(f.data) <= 8192  # keeps mutation cheap; big frames are covered by test_corpus
            if small and f.obj is not NOT_JSON and isinstance(f.obj, dict) and not validate(f.obj, f.dir, dialect):
                out.append((dialect, f.dir, f.obj))
    return out


CLEAN = _clean_frames()
JUNK = [None, 0, -3, 1.5, "x", "", True, False, [], [1], {}, {"k": "v"}]


def _locations(obj: Any, here: tuple = ()) -> list[tuple]:
    """Paths (tuples of keys/indices) of every value inside ``obj``, ``obj`` itself excluded."""
    out = []
    items = obj.items() if isinstance(obj, dict) else enumerate(obj) if isinstance(obj, list) else ()
    for k, v in items:
        out.append(here + (k,))
        out.extend(_locations(v, here + (k,)))
    return out


@st.composite
def mutated(draw: st.DrawFn) -> tuple[str, str, Any, Any]:
    dialect, direction, obj = draw(st.sampled_from(CLEAN))
    obj = copy.deepcopy(obj)
    type_ = obj["type"]
    for _ in range(draw(st.integers(1, 3))):
        locations = _locations(obj)
        if not locations:
            break
        loc = draw(st.sampled_from(locations))
        parent = obj
        for k in loc[:-1]:
            parent = parent[k]
        op = draw(st.sampled_from(["delete", "replace", "add"]))
        if op == "delete" and isinstance(parent, dict):
            del parent[loc[-1]]
        elif op == "add" and isinstance(parent, dict):
            parent["zzExtra"] = copy.deepcopy(draw(st.sampled_from(JUNK)))
        else:
            parent[loc[-1]] = copy.deepcopy(draw(st.sampled_from(JUNK)))
    return dialect, direction, type_, obj


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated())
def test_walker_finds_issues_exactly_when_msgspec_fails(case: tuple[str, str, Any, Any]) -> None:
    dialect, direction, type_, obj = case
    tp = get_protocol(dialect).frames(direction)[type_]
    try:
        msgspec.convert(obj, tp)
        ok = True
    except msgspec.ValidationError:
        ok = False
    issues = walk(obj, tp)
    assert (issues == []) == ok, issues
    for issue in issues:
        assert issue.path.startswith("$") and issue.message


@settings(max_examples=100, deadline=None)
@given(st.sampled_from(CLEAN), st.sampled_from(JUNK))
def test_an_added_unknown_field_is_reported_where_it_was_added(case: tuple[str, str, Any], junk: Any) -> None:
    dialect, direction, obj = case
    obj = {**obj, "zzExtra": junk}
    issues = validate(obj, direction, dialect)
    assert ("unknown_field", "$.zzExtra") in {(i.kind, i.path) for i in issues}
    assert not any(i.hard for i in issues)


class Inner(msgspec.Struct, tag="a", forbid_unknown_fields=True):
    n: int


class Other(msgspec.Struct, tag="b", forbid_unknown_fields=True):
    s: str


class Outer(msgspec.Struct, forbid_unknown_fields=True):
    items: list[Union[Inner, Other]]
    table: dict[str, int]
    mode: Literal["x", "y"] | None = None


def test_paths_of_list_items_and_dict_values() -> None:
    value = {"items": [{"type": "a", "n": 1}, {"type": "b", "s": 2}, {"type": "c"}, {"n": 1}],
             "table": {"ok": 1, "bad key": "x"}, "mode": "z"}
    got = {(i.kind, i.path) for i in walk(value, Outer)}
    assert got == {
        ("wrong_type", "$.items[1].s"),
        ("bad_enum", "$.items[2].type"),
        ("missing_field", "$.items[3].type"),
        ("wrong_type", "$['bad key']".replace("$", "$.table", 1)),
        ("bad_enum", "$.mode"),
    }


def test_bool_is_not_an_integer_but_an_integer_is_a_number() -> None:
    class S(msgspec.Struct):
        i: int
        f: float

    assert [i.kind for i in walk({"i": True, "f": 1}, S)] == ["wrong_type"]
    assert walk({"i": 1, "f": 2}, S) == []


@pytest.mark.parametrize("tp, text", [
    (str, "string"), (int, "integer"), (float, "number"), (bool, "boolean"), (type(None), "null"),
    (list[int], "array"), (dict[str, int], "object"), (Outer, "object"), (Any, "any"),
    (Literal["a", "b"], "'a' | 'b'"), (Union[str, None], "string | null"),
])
def test_describe(tp: Any, text: str) -> None:
    assert describe(tp) == text
