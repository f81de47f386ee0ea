"""Tracker.feed_many: the same state and the same diagnosis as feed frame by frame, however the frames are cut."""

from __future__ import annotations

import glob
import random
from dataclasses import fields
from typing import Any

import pytest

from rpcspy.diagnose.explain import explain
from rpcspy.diagnose.tracker import Tracker
from rpcspy.events import Direction, Frame, frames_of
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


def as_chunks(frames: list[Frame], rng: random.Random) -> list[tuple[Direction, float, int, list[bytes], bool]]:
    """The frames cut into runs of one direction (random lengths), as the dispatcher hands a chunk's lines
    over: numbered from 1 on, each run read at its last frame's time (CR LF frames keep their CR)."""
    chunks: list[tuple[Direction, float, int, list[bytes], bool]] = []
    i, seq = 0, 1
    while i < len(frames):
        j = i + 1
        limit = i + rng.choice([1, 3, 50, 1000])
        while j < min(limit, len(frames)) and frames[j].dir == frames[i].dir:
            j += 1
        run = frames[i:j]
        chunks.append((run[0].dir, run[-1].t, seq, [f.data + (b"\r" if f.cr else b"") for f in run],
                       run[0].injected))
        seq += len(run)
        i = j
    return chunks


@pytest.mark.parametrize("path", PATHS, ids=lambda p: p.split("data/")[-1])
def test_chunks_of_lines_leave_the_same_state(path: str) -> None:
    """feed_lines (the control socket's path: no Frame for a message update) is feed frame by frame of
    the frames those lines make."""
    frames = [f for f in open_recording(path).frames() if f.nl]
    for seed in range(3):
        chunks = as_chunks(frames, random.Random(seed))
        want = state(one_by_one([f for c in chunks for f in frames_of(c[2], c[1], c[0], c[3], c[4])]))
        tr = Tracker()
        for direction, t, first, lines, injected in chunks:
            tr.feed_lines(direction, t, first, lines, injected)
        assert state(tr) == want


def test_chunks_of_updates_mixed_with_other_lines() -> None:
    """Updates counted by one search, the other lines fed (CR LF, stderr, a line holding an update's start
    after its own), whether or not the dialect is sure yet."""
    update = b'{"type":"message_update","assistantMessageEvent":{"type":"text_delta","delta":"x"}}'
    chunks: list[tuple[Direction, float, int, list[bytes], bool]] = [
        ("a2c", 1.0, 1, [b'{"type":"agent_start"}', update], False),
        ("a2c", 2.0, 3, [b'{"type":"agent_settled"}', update + b"\r", update], False),
        ("c2a", 2.5, 6, [b'{"id":"1","type":"get_state"}', b"x" + update], False),
        ("err", 3.0, 8, [b"warn", update], False),
        ("a2c", 4.0, 10, [update, update, b'{"id":"1","type":"response","command":"get_state","success":true}'],
         False),
        ("a2c", 5.0, 13, [update] * 5, False),
        ("c2a", 6.0, 18, [update, b'{"id":"rpcspy-inject-1","type":"abort"}\r'], True),
    ]
    want = state(one_by_one([f for c in chunks for f in frames_of(c[2], c[1], c[0], c[3], c[4])]))
    tr = Tracker()
    for direction, t, first, lines, injected in chunks:
        tr.feed_lines(direction, t, first, lines, injected)
    assert state(tr) == want
    assert tr.frames == 17 and tr.last == {"a2c": (17, 5.0), "c2a": (19, 6.0)}


def decoding_all(frames: list[Frame], monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """The state after feeding ``frames`` with every agent frame decoded (no frame passed undecoded)."""
    with monkeypatch.context() as mp:
        mp.setattr(Tracker, "_passing", lambda self, data: False)
        return state(one_by_one(frames))


@pytest.mark.parametrize("path", PATHS + sorted(glob.glob(f"{DATA}/recordings/**/*.jsonl", recursive=True)),
                         ids=lambda p: p.split("data/")[-1])
def test_frames_passed_undecoded_leave_the_state_decoding_them_would(path: str,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    frames = list(open_recording(path).frames())
    assert state(one_by_one(frames)) == decoding_all(frames, monkeypatch)


def test_only_frames_nothing_follows_from_pass_undecoded(monkeypatch: pytest.MonkeyPatch) -> None:
    """A type written with an escape, a frame naming jsonrpc, a response, or anything before the dialect
    is sure are decoded; a message_end after it is not."""
    head = [b'{"type":"agent_start"}', b'{"type":"agent_settled","aborted":false}']  # pi >= 1.1, for good
    tail = [b'{"type":"message_end","message":{"role":"assistant"}}', b'{"type":"resp\\u006fnse","id":"a"}',
            b'{"type":"turn_end","jsonrpc":"2.0","id":1,"result":{}}', b'{"type":"agent_end","messages":[]}',
            b'{"type":"x\\"y"}', b'{"type":"message_end"']  # the last is not JSON: nothing follows either way
    client = [b'{"id":"a","type":"get_state"}']
    fed = [d for d in tail if b"jsonrpc" not in d]  # that one turns the tracker to ACP (an object per run)
    frames = [Frame(i + 1, 0.1 * i, "a2c" if i != 2 else "c2a", d) for i, d in enumerate([*head, *client, *fed])]
    tr = one_by_one(frames)
    assert state(tr) == decoding_all(frames, monkeypatch)
    assert [tr._passing(d) for d in tail] == [True, False, False, False, False, True]
    assert not Tracker()._passing(tail[0])  # the dialect not known yet
