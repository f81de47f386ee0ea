"""The detection rules' cheap hints (rpcspy.normalise.volatile): a hint never misses what a pattern matches."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from rpcspy.normalise import volatile


@given(st.text(alphabet="sk-AIzaghpousr_ithbxcKBeEARTZ0123456789abcdefF:. ", max_size=60))
@settings(max_examples=400, deadline=None)
def test_cheap_hints_never_miss_a_match(s):
    import re

    old_hint = re.compile(r"sk-|AIza|gh[pousr]_|github_pat_|xox[abprs]-|AKIA|[Bb]earer|BEARER")
    assert bool(old_hint.search(s)) == any(h in s for h in volatile.SECRET_HINTS)
    if volatile.UUID_RX.search(s) or volatile.ISO_RX.search(s):
        assert volatile.dash_after_hex4(s)


def test_hints_on_real_shapes():
    assert volatile.dash_after_hex4("id 01a20213-d398-77e8-928f-7e42015cc8a7")
    assert volatile.dash_after_hex4("at 2026-11-23T10:00:00Z")
    assert not volatile.dash_after_hex4("a well-known co-op, 12-3")


@given(st.text(alphabet="ab0-T9 :", max_size=12),
       st.one_of(st.from_regex(volatile.UUID, fullmatch=True), st.from_regex(volatile.ISO, fullmatch=True)),
       st.text(alphabet="ab0-T9 :", max_size=12))
@settings(max_examples=100, deadline=None)
def test_dash_hint_sees_every_uuid_and_time(before, match, after):
    s = before + match + after
    if volatile.UUID_RX.search(s) or volatile.ISO_RX.search(s):
        assert volatile.dash_after_hex4(s)


def test_volatile_key_sets_are_disjoint():
    """The normaliser classifies each key once into one kind (secret, id, time, duration): a key in two sets
    would lose one of its treatments."""
    from rpcspy.normalise.secrets import secret_name
    from rpcspy.normalise.volatile import DURATION_KEYS, ID_KEYS, SECRET_KEYS, TIME_KEYS

    named = [set(ID_KEYS) | {"id"}, set(TIME_KEYS), set(DURATION_KEYS)]
    for i, a in enumerate(named):
        assert not {k for k in a if k.lower() in SECRET_KEYS or secret_name(k)}
        for b in named[i + 1:]:
            assert not a & b
