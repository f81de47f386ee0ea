"""Alignment: difflib's answer on small inputs, valid and near-linear on big repetitive ones."""

from __future__ import annotations

import difflib
from array import array

from hypothesis import given, settings
from hypothesis import strategies as st

from rpcspy.diff import align
from rpcspy.diff.align import opcodes

small = st.lists(st.integers(0, 4), max_size=40)


@given(small, small)
@settings(max_examples=300, deadline=None)
def test_small_inputs_get_difflibs_answer(a, b):
    assert opcodes(a, b) == difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes()


def _check_valid(a, b, ops) -> int:
    """The opcodes cover both sequences in order and their equal blocks are equal; return matched count."""
    i = j = matched = 0
    for tag, i1, i2, j1, j2 in ops:
        assert (i1, j1) == (i, j)
        if tag == "equal":
            assert list(a[i1:i2]) == list(b[j1:j2])
            matched += i2 - i1
        i, j = i2, j2
    assert (i, j) == (len(a), len(b))
    return matched


@given(st.lists(st.integers(0, 30), max_size=3000), st.data())
@settings(max_examples=40, deadline=None)
def test_big_inputs_valid_with_a_small_budget(a, data):
    b = list(a)
    for _ in range(data.draw(st.integers(0, 6))):  # a few edits
        k = data.draw(st.integers(0, len(b)))
        if data.draw(st.booleans()) and k < len(b):
            del b[k]
        else:
            b.insert(k, data.draw(st.integers(0, 40)))
    ops = opcodes(a, b, budget=50)
    matched = _check_valid(a, b, ops)
    assert ops == align._merge(ops)  # no two neighbours that should be one
    if len(a) > 200:  # no unique keys: the Myers search finds a shortest script
        assert matched >= len(a) - 6


def test_repeated_frames_never_reach_difflib_whole(monkeypatch):
    """100k frames cycling through 13 values, a few edits: difflib only ever sees small ranges."""
    seen: list[int] = []
    real = difflib.SequenceMatcher

    def spy(isjunk, x, y, autojunk=True):
        seen.append(len(x) * len(y))
        return real(isjunk, x, y, autojunk=autojunk)

    monkeypatch.setattr(align.difflib, "SequenceMatcher", spy)
    a = array("q", (k % 13 for k in range(100_000)))
    b = array("q", a)
    b[50_000] = 99
    del b[70_000]
    b.insert(90_000, 5)
    ops = opcodes(a, b)
    assert _check_valid(a, b, ops) == 100_000 - 2
    assert [op[0] for op in ops if op[0] != "equal"] == ["replace", "delete", "insert"]
    assert max(seen, default=0) <= align.SMALL


def test_unique_anchors_split_a_big_changed_range():
    a = list(range(0, 3000)) + [7] * 3000
    b = [-1] + list(range(0, 3000)) + [8] * 3000
    ops = opcodes(a, b, budget=10)
    assert ops[0] == ("insert", 0, 0, 0, 1)
    assert ops[1] == ("equal", 0, 3000, 1, 3001)
    assert ops[2] == ("replace", 3000, 6000, 3001, 6001)
