"""Bounded tables: the checker's memory stays flat over a long session of small commands."""

from __future__ import annotations

from rpcspy.checker import Checker
from rpcspy.events import Frame
from rpcspy.protocol import pairing
from rpcspy.protocol.bounded import trim_oldest


def test_trim_oldest_keeps_the_newest_within_a_quarter_over_the_cap():
    table: dict[int, int] = {}
    sizes = []
    for i in range(1000):
        table[i] = i
        trim_oldest(table, 100)
        sizes.append(len(table))
    assert max(sizes) == 125
    assert list(table) == list(range(1000 - len(table), 1000))  # oldest gone first, order kept


def session(checker: Checker, n: int, start: int = 0) -> list:
    found = []
    for i in range(start, start + n):
        cid = b"req-%d" % i
        found += checker.feed(Frame(2 * i + 1, i * 0.001, "c2a", b'{"id":"%s","type":"set_auto_retry","enabled":true}'
                                    % cid))
        found += checker.feed(Frame(2 * i + 2, i * 0.001, "a2c",
                                    b'{"id":"%s","type":"response","command":"set_auto_retry","success":true}' % cid))
    return found


def test_answered_commands_are_bounded(monkeypatch):
    monkeypatch.setattr(pairing, "ANSWERED_CAP", 1000)
    checker = Checker(dialect="pi-0.84")
    assert session(checker, 5000) == []
    answered = checker._corr.pairing._answered
    assert 1000 <= len(answered) <= 1250 and not checker._corr.pairing.pending


def test_duplicate_response_still_told_within_the_bound(monkeypatch):
    monkeypatch.setattr(pairing, "ANSWERED_CAP", 1000)
    checker = Checker(dialect="pi-0.84")
    session(checker, 5000)
    again = checker.feed(Frame(99_999, 9.0, "a2c",
                               b'{"id":"req-4990","type":"response","command":"set_auto_retry","success":true}'))
    assert [f.rule for f in again] == ["correlation.duplicate_response"]
    assert again[0].related == 2 * 4990 + 1  # the command's frame


def test_unanswered_commands_are_bounded_and_the_forgetting_is_said(monkeypatch):
    """A client that piles up commands the agent never answers: the checker's memory stays flat
    (issue 21: about 0.6 KB a command without end before), and a finding says what was forgotten."""
    import tracemalloc

    monkeypatch.setattr(pairing, "WAITING_CAP", 1000)
    checker = Checker(dialect="pi-0.84")
    found: list = []
    tracemalloc.start()
    try:
        sizes = []
        for i in range(1, 12_001):
            found += checker.feed(Frame(i, i * 0.001, "c2a", b'{"id":"req-%d","type":"get_state"}' % i))
            if i in (4000, 8000, 12_000):
                sizes.append(tracemalloc.get_traced_memory()[0])
    finally:
        tracemalloc.stop()
    assert len(checker._corr.pairing.pending) <= 1250
    assert max(sizes) - min(sizes) < 200_000, sizes  # flat: 8,000 more commands add nothing that stays
    assert [f.rule for f in found] == ["correlation.forgotten"]  # said once, as it first happens
    assert "the oldest 251 are forgotten" in found[0].message and found[0].frame == 1251
    waiting = len(checker._corr.pairing.pending)
    end = checker.finish(13.0)
    assert end[0].rule == "correlation.forgotten" and end[0].extra == {"forgotten": 12_000 - waiting}
    unanswered = [f for f in end[1:] if "more" not in f.extra]
    assert {f.rule for f in end[1:]} == {"correlation.unanswered"}
    assert [f.frame for f in unanswered] == list(range(12_001 - waiting, 12_001))[:1000]
    assert end[-1].extra.get("more", 0) == waiting - 1000  # the findings cap: the rest counted, in one
