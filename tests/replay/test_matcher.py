"""Matcher: the three modes, recorded order, reuse, lazy indexing, closest-command messages."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rpcspy.normalise.normaliser import NormaliseOptions, Normaliser
from rpcspy.replay.matcher import NEED_MORE, Match, Matcher, NoMatch
from rpcspy.replay.model import RecordedCommand, classify


def rec(*lines: bytes) -> list[RecordedCommand]:
    return [RecordedCommand(index=i, seq=10 + i, t=float(i), frame=classify(line)) for i, line in enumerate(lines)]


def matcher(mode: str, lines: list[bytes], reuse: bool = False, **opts) -> Matcher:
    m = Matcher(mode, reuse=reuse, normaliser=Normaliser(NormaliseOptions(**opts), stable=False))  # type: ignore[arg-type]
    for c in rec(*lines):
        m.add(c)
    return m


RECORDED = [
    b'{"id":"s1","type":"get_state"}',
    b'{"id":"p1","type":"prompt","message":"hello"}',
    b'{"id":"s2","type":"get_state"}',
    b'{"id":"p2","type":"prompt","message":"again"}',
]


def served(choice) -> int:
    assert isinstance(choice, Match), choice
    return choice.command.index


def test_exact_ignores_id_and_serves_identical_commands_in_order():
    m = matcher("exact", RECORDED)
    live = classify(b'{"id":"zz","type":"get_state"}')
    assert served(m.choose(live, complete=True)) == 0
    assert served(m.choose(live, complete=True)) == 2
    miss = m.choose(live, complete=True)
    assert isinstance(miss, NoMatch)
    assert "all 2 served" in miss.message and "--reuse" in miss.message and "last: seq 12" in miss.message


def test_exact_allows_reordering_of_different_commands():
    m = matcher("exact", RECORDED)
    assert served(m.choose(classify(b'{"id":1,"type":"prompt","message":"again"}'), complete=True)) == 3
    assert served(m.choose(classify(b'{"type":"prompt","message":"hello"}'), complete=True)) == 1


def test_exact_names_closest_and_path():
    m = matcher("exact", RECORDED)
    miss = m.choose(classify(b'{"id":"x","type":"prompt","message":"hullo"}'), complete=True)
    assert isinstance(miss, NoMatch)
    assert miss.closest is not None and miss.closest.index == 1
    assert miss.path == "$.message"
    assert "closest: seq 11 (prompt id \"p1\") differs at $.message" in miss.message


def test_exact_closest_prefers_fewest_differences():
    m = matcher("exact", [b'{"type":"bash","command":"ls","timeout":1}', b'{"type":"bash","command":"pwd","timeout":2}'])
    miss = m.choose(classify(b'{"type":"bash","command":"pwd","timeout":3}'), complete=True)
    assert isinstance(miss, NoMatch) and miss.closest.index == 1 and miss.path == "$.timeout"


def test_exact_normalises_volatile_values_on_both_sides():
    m = matcher("exact", [b'{"type":"switch_session","sessionPath":"/tmp/tmp1/s.jsonl"}'])
    live = classify(b'{"id":"a","type":"switch_session","sessionPath":"/tmp/pytest-99/s.jsonl"}')
    assert served(m.choose(live, complete=True)) == 0


def test_exact_applies_redaction_to_live_frames():
    m = matcher("exact", [b'{"type":"prompt","message":"token <redacted>"}'], redact=(r"tok_\w+",))
    assert served(m.choose(classify(b'{"type":"prompt","message":"token tok_abc"}'), complete=True)) == 0


def test_type_mode_ignores_fields():
    m = matcher("type", RECORDED)
    assert served(m.choose(classify(b'{"type":"prompt","message":"anything"}'), complete=True)) == 1
    assert served(m.choose(classify(b'{"type":"prompt"}'), complete=True)) == 3
    miss = m.choose(classify(b'{"type":"prompt"}'), complete=True)
    assert isinstance(miss, NoMatch) and "all 2 served" in miss.message


def test_unknown_type_names_next_unused():
    m = matcher("type", RECORDED)
    m.choose(classify(b'{"type":"get_state"}'), complete=True)
    miss = m.choose(classify(b'{"type":"compact"}'), complete=True)
    assert isinstance(miss, NoMatch)
    assert miss.message.startswith("the recording has no compact frame; next unused: seq 11 (prompt")


def test_sequence_requires_order():
    m = matcher("sequence", RECORDED)
    miss = m.choose(classify(b'{"type":"prompt","message":"hello"}'), complete=True)
    assert isinstance(miss, NoMatch)
    assert miss.message.startswith('expected seq 10 (get_state id "s1") next') and miss.path == "$.type"
    assert served(m.choose(classify(b'{"type":"get_state"}'), complete=True)) == 0
    assert served(m.choose(classify(b'{"type":"prompt","message":"other"}'), complete=True)) == 1


def test_sequence_end_of_recording():
    m = matcher("sequence", RECORDED[:1])
    m.choose(classify(b'{"type":"get_state"}'), complete=True)
    miss = m.choose(classify(b'{"type":"get_state"}'), complete=True)
    assert isinstance(miss, NoMatch) and "no more client frames" in miss.message


@pytest.mark.parametrize("mode", ["exact", "type", "sequence"])
def test_reuse_serves_the_last_match_again(mode):
    m = matcher(mode, RECORDED[:2], reuse=True)
    assert served(m.choose(classify(b'{"type":"get_state"}'), complete=True)) == 0
    again = m.choose(classify(b'{"type":"get_state"}'), complete=True)
    assert isinstance(again, Match) and again.reused and again.command.index == 0
    assert [c.index for c in m.unconsumed()] == [1]


def test_need_more_until_complete():
    m = matcher("exact", RECORDED[:1])
    live = classify(b'{"type":"prompt","message":"hello"}')
    assert m.choose(live, complete=False) is NEED_MORE
    m.add(rec(*RECORDED)[1])
    assert served(m.choose(live, complete=False)) == 1
    s = matcher("sequence", [])
    assert s.choose(live, complete=False) is NEED_MORE


def test_answers_match_by_mapped_dialog_id():
    lines = [b'{"type":"extension_ui_response","id":"u1","value":"A"}',
             b'{"type":"extension_ui_response","id":"u2","value":"A"}']
    for mode in ("exact", "type"):
        m = matcher(mode, lines)
        live = classify(b'{"type":"extension_ui_response","id":"live-2","value":"A"}')
        assert served(m.choose(live, complete=True, answer_id="u2")) == 1
        miss = m.choose(live, complete=True, answer_id="u9")
        assert isinstance(miss, NoMatch) and 'dialog "u9"' in miss.message


def test_invalid_and_non_object_frames():
    m = matcher("exact", [b"", b"not json", b"42"])
    assert served(m.choose(classify(b"not json"), complete=True)) == 1
    assert served(m.choose(classify(b""), complete=True)) == 0
    assert served(m.choose(classify(b"42"), complete=True)) == 2
    assert isinstance(m.choose(classify(b"[]"), complete=True), NoMatch)


def test_take_marks_used():
    m = matcher("exact", RECORDED)
    m.take(0)
    assert served(m.choose(classify(b'{"type":"get_state"}'), complete=True)) == 2


def test_unknown_mode_rejected():
    with pytest.raises(ValueError):
        Matcher("fuzzy", normaliser=Normaliser(stable=False))  # type: ignore[arg-type]



@settings(max_examples=80, deadline=None)
@given(st.lists(st.sampled_from([b'{"type":"get_state"}', b'{"type":"prompt","message":"a"}',
                                 b'{"type":"prompt","message":"b"}', b'{"type":"bash","command":"ls"}']),
                min_size=1, max_size=8), st.randoms())
def test_exact_serves_any_reordering_once_each_in_recorded_order(lines, rnd):
    m = matcher("exact", lines)
    order = list(range(len(lines)))
    rnd.shuffle(order)
    served_idx = [served(m.choose(classify(lines[i]), complete=True)) for i in order]
    assert sorted(served_idx) == list(range(len(lines)))
    for payload in set(lines):  # identical commands come back in recorded order
        got = [s for s in served_idx if lines[s] == payload]
        assert got == sorted(got)
    assert m.unconsumed() == []


def test_exact_temp_paths_differing_after_the_temp_segment_diverge():
    m = matcher("exact", [b'{"id":"r","type":"read","path":"/tmp/tmpab12/project/src/main.py"}'])
    miss = m.choose(classify(b'{"id":"x","type":"read","path":"/tmp/tmpab12/project/etc/passwd"}'), complete=True)
    assert isinstance(miss, NoMatch) and miss.path == "$.path"


def test_exact_temp_paths_differing_only_in_the_temp_segment_match():
    m = matcher("exact", [b'{"id":"r","type":"read","path":"/tmp/tmpab12/project/src/main.py"}'])
    assert served(m.choose(classify(b'{"id":"x","type":"read","path":"/tmp/tmpzz99/project/src/main.py"}'),
                           complete=True)) == 0
