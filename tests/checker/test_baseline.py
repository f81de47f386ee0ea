"""Baselines: findings accepted by rule and location, new ones told apart, fixed ones stale."""

from __future__ import annotations

import pytest

from rpcspy.checker.baseline import BaselineError, compare, dump, key, load
from rpcspy.events import Finding


def finding(rule: str = "framing.crlf", message: str = "client frame 12 ends in CR LF", frame: int = 12) -> Finding:
    return Finding(seq=1, t=0.0, rule=rule, severity="warning", group=rule.split(".")[0], message=message,
                   frame=frame, dir="c2a")


def test_the_frame_number_is_not_part_of_the_location() -> None:
    assert key("a.jsonl", finding(frame=3, message="frame 3")) == key("a.jsonl", finding(frame=9, message="frame 9"))
    assert key("a.jsonl", finding()) != key("b.jsonl", finding())
    assert key("a.jsonl", finding()) != key("a.jsonl", finding(rule="framing.bom"))


def test_round_trip_accepts_exactly_what_was_written() -> None:
    found = {"a.jsonl": [finding(), finding(frame=40, message="client frame 40 ends in CR LF")], "b.jsonl": []}
    accepted = load(dump(found))
    result = compare(found, accepted)
    assert result.accepted == 2 and result.new == {"a.jsonl": [], "b.jsonl": []} and result.stale == []


def test_one_more_is_new_one_less_is_stale() -> None:
    accepted = load(dump({"a.jsonl": [finding(), finding()]}))
    more = compare({"a.jsonl": [finding(), finding(), finding()]}, accepted)
    assert more.accepted == 2 and len(more.new["a.jsonl"]) == 1 and more.stale == []
    fewer = compare({"a.jsonl": [finding()]}, accepted)
    assert fewer.new["a.jsonl"] == [] and [e["count"] for e in fewer.stale] == [1]


def test_entries_of_files_not_checked_are_not_stale() -> None:
    accepted = load(dump({"a.jsonl": [finding()], "other.jsonl": [finding()]}))
    assert compare({"a.jsonl": [finding()]}, accepted).stale == []


@pytest.mark.parametrize("text", ["", "[]", '{"format": "x"}', '{"format": "rpcspy-baseline", "version": 99}',
                                  '{"format": "rpcspy-baseline", "version": 1, "entries": [{"rule": "x"}]}',
                                  '{"format": "rpcspy-baseline", "version": 1, "entries": {}}'])
def test_a_broken_baseline_is_refused_with_a_reason(text: str) -> None:
    with pytest.raises(BaselineError):
        load(text)
