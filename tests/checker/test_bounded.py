"""Bounded tables: the checker's memory stays flat over a long session of small commands."""

from __future__ import annotations

from rpcspy.checker import Checker
from rpcspy.protocol import pairing
from rpcspy.protocol.bounded import trim_oldest
from rpcspy.events import Frame


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
