"""Tracker.feed_many: the same state and the same diagnosis as feed frame by frame, however the frames are cut."""

from __future__ import annotations

import glob
import random
from dataclasses import fields
from typing import Any

import pytest

from rpcspy.diagnose.explain import explain
from rpcspy.diagnose.tracker import Tracker
from rpcspy.events import Frame
from rpcspy.recording import open_recording
from tests.paths import DATA

PATHS = sorted(glob.glob(f"{DATA}/transcripts/**/*.jsonl", recursive=True) +
               glob.glob(f"{DATA}/transcripts087/**/*.jsonl", recursive=True))


def state(tr: Tracker) -> dict[str, Any]:
    """Every field (commands compare by identity: by their repr here), the detector's verdict, the commands
    the pairing holds, the diagnosis."""
    out: dict[str, Any] = {f.name: repr(getattr(tr, f.name)) for f in fields(tr) if f.name != "detector"}
    out["unanswered"] = repr(tr.unanswered())
    d = tr.detector
    out["detector"] = (d.dialect, d.reason, d.sure, d.refinable, d.frames_seen)
    out["explain"] = explain(tr).to_json()
    return out


def one_by_one(frames: list[Frame]) -> Tracker:
    tr = Tracker()
    for frame in frames:
        tr.feed(frame)
    return tr


def in_batches(frames: list[Frame], rng: random.Random) -> Tracker:
    tr = Tracker()
    i = 0
    while i < len(frames):
        n = rng.choice([1, 2, 7, 50, 1000])
        tr.feed_many(frames[i:i + n])
        i += n
    return tr


@pytest.mark.parametrize("path", PATHS, ids=lambda p: p.split("data/")[-1])
def test_batches_leave_the_same_state(path: str) -> None:
    frames = list(open_recording(path).frames())
    want = state(one_by_one(frames))
    for seed in range(3):
        assert state(in_batches(frames, random.Random(seed))) == want


def test_updates_between_other_frames_and_out_of_order_clocks() -> None:
    """Updates skipped in bulk still move the clock (to the latest, not the last), the count and each side's last."""
    head = [b'{"type":"agent_start"}', b'{"type":"agent_settled"}']  # agent_settled: pi >= 0.84, sure
    frames = [Frame(i + 1, 1.0 + i, "a2c", d) for i, d in enumerate(head)]
    update = b'{"type":"message_update","assistantMessageEvent":{"type":"text_delta","delta":"x"}}'
    frames += [Frame(3, 9.0, "a2c", update), Frame(4, 5.0, "c2a", b'{"id":"1","type":"get_state"}'),
               Frame(5, 6.0, "a2c", update), Frame(6, 7.0, "err", b"warn"), Frame(7, 4.0, "c2a", update)]
    want = state(one_by_one(frames))
    tr = Tracker()
    tr.feed_many(frames[:2])
    assert tr.detector.sure
    tr.feed_many(frames[2:])
    assert state(tr) == want
    assert (tr.t, tr.frames, tr.last) == (9.0, 6, {"a2c": (5, 6.0), "c2a": (7, 4.0)})


def test_a_frame_nested_too_deep_to_decode_is_ignored_not_raised() -> None:
    """The tracker never raises on a bad frame: one nested deeper than the decoder goes (RecursionError)
    is skipped like any undecodable frame, on the update fast path and the general one, alone and in a batch."""
    deep = b"[" * 3000 + b"]" * 3000
    frames = [Frame(1, 0.1, "a2c", b'{"type":"message_update","x":' + deep + b"}"),
              Frame(2, 0.2, "a2c", b'{"type":"response","x":' + deep + b"}")]
    one = Tracker()
    for frame in frames:
        one.feed(frame)
    Tracker().feed_many(frames)
    assert one.frames == 2


def test_long_sessions_keep_the_tables_bounded() -> None:
    """Commands never answered and commands answered are both held up to their caps (oldest first out)."""
    from rpcspy.protocol import pairing as P

    t = Tracker()
    n = 3 * max(P.WAITING_CAP, P.BOUNDED_ANSWERED_CAP)
    for i in range(n):
        t.feed(Frame(2 * i, i * 1e-3, "c2a", b'{"id":"q%d","type":"get_state"}' % i))
    assert len(t.unanswered()) <= P.WAITING_CAP + P.WAITING_CAP // 4
    for i in range(n):
        t.feed(Frame(2 * i + 1, i * 1e-3, "c2a", b'{"id":"a%d","type":"get_state"}' % i))
        t.feed(Frame(2 * i + 2, i * 1e-3, "a2c", b'{"id":"a%d","type":"response","command":"get_state","success":true}' % i))
    assert len(t.pairing._answered) <= P.BOUNDED_ANSWERED_CAP + P.BOUNDED_ANSWERED_CAP // 4
