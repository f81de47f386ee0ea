"""Differ: alignment, pairing by kind, volatile values ignored, JSON form (its rich view: tests/render/test_diff.py)."""

from __future__ import annotations

import msgspec

from rpcspy.diff.differ import (
    diff_direction,
    diff_recordings,
    label_of,
    normalise_frames,
)
from rpcspy.events import Frame
from rpcspy.normalise.normaliser import NormaliseOptions, Normaliser
from tests.paths import DATA
from tests.replay.helpers import Rec

N87 = str(DATA / "transcripts087/structured")
N73 = str(DATA / "transcripts/structured")


def frames(*objs) -> list[Frame]:
    return [Frame(i + 1, 0.0, "a2c", msgspec.json.encode(o) if not isinstance(o, bytes) else o)
            for i, o in enumerate(objs)]


def norm(**kw) -> Normaliser:
    return Normaliser(NormaliseOptions(**kw), stable=False)


def test_equal_modulo_volatile_values_and_key_order():
    a = frames({"type": "x", "sessionId": "01a20213-d398-77e8-928f-7e42015cc8a7", "v": 1},
               {"type": "message_start", "message": {"timestamp": 1795331184161}})
    b = frames({"v": 1.0, "sessionId": "89bf6fa8-af91-410d-90cb-29e458611070", "type": "x"},
               {"type": "message_start", "message": {"timestamp": 1895331184161}})
    d = diff_direction("a2c", normalise_frames(a, norm()), normalise_frames(b, norm()))
    assert d.equal


def test_insertion_does_not_shift_everything():
    a = frames({"type": "agent_start"}, {"type": "turn_end", "n": 1}, {"type": "agent_end"})
    b = frames({"type": "agent_start"}, {"type": "turn_end", "n": 2}, {"type": "agent_end"}, {"type": "agent_settled"})
    d = diff_direction("a2c", normalise_frames(a, norm()), normalise_frames(b, norm()))
    assert [(i.op, i.label) for i in d.items] == [("changed", "turn_end"), ("added", "agent_settled")]
    assert d.items[0].changes[0].path == "$.n"
    assert d.counts() == {"changed": 1, "added": 1, "removed": 0}


def test_labels():
    assert label_of({"type": "response", "command": "get_state"}) == "response/get_state"
    assert label_of({"type": "message_update", "assistantMessageEvent": {"type": "text_delta"}}) == \
        "message_update/text_delta"
    assert label_of({"type": "message_end", "message": {"role": "user"}}) == "message_end/user"
    assert label_of("text") == "<text>" and label_of([1]) == "<non-object>"


def test_ignore_key():
    a = frames({"type": "m", "partial": {"x": 1}, "k": 1})
    b = frames({"type": "m", "k": 1})
    assert not diff_direction("a2c", normalise_frames(a, norm()), normalise_frames(b, norm())).equal
    assert diff_direction("a2c", normalise_frames(a, norm(ignore=("partial",))),
                          normalise_frames(b, norm(ignore=("partial",)))).equal


def test_recordings_and_exit_codes(tmp_path):
    ra = Rec().at(1).c({"id": "p", "type": "prompt"}).a({"id": "p", "type": "response", "success": True}).exit(0)
    rb = Rec().at(1).c({"id": "p", "type": "prompt"}).a({"id": "p", "type": "response", "success": False}).exit(1)
    a, b = ra.write(tmp_path / "a.jsonl"), rb.write(tmp_path / "b.jsonl")
    res = diff_recordings(str(a), str(b), norm())
    js = res.to_json()
    assert not res.equal and js["exit"] == {"a": 0, "b": 1, "equal": False}
    assert js["directions"]["c2a"]["equal"] is True
    assert js["directions"]["a2c"]["items"][0]["changes"] == [{"path": "$.success", "a": True, "b": False}]
    assert diff_recordings(str(a), str(a), norm()).equal


def test_big_recordings_held_in_a_few_bytes_a_frame(tmp_path):
    """Small, repeating frames: pass 1 keeps arrays, not an object per frame (memory grows ~24 bytes a frame)."""
    import tracemalloc

    from rpcspy.recording.format import encode_entry, encode_frame
    from rpcspy.recording.writer import make_header

    def write(path, n: int, edit: int) -> str:
        with open(path, "wb") as f:
            f.write(encode_entry(make_header(["pi"])))
            for i in range(n):
                delta = "X" if i == edit else "abcdefghijklm"[i % 13]
                data = b'{"type":"message_update","assistantMessageEvent":{"type":"text_delta","delta":"%s"}}' \
                    % delta.encode()
                f.write(encode_frame(Frame(i + 1, i * 0.001, "a2c", data)))
        return str(path)

    def peak(n: int) -> int:
        a, b = write(tmp_path / "a.jsonl", n, -1), write(tmp_path / "b.jsonl", n, n // 2)
        tracemalloc.start()
        try:
            res = diff_recordings(a, b, norm())
            _, top = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
        items = res.dirs[1].items
        assert [(i.op, i.a.index, i.b.index, i.b.seq) for i in items] == [("changed", n // 2, n // 2, n // 2 + 1)]
        return top

    small, big = peak(20_000), peak(40_000)
    assert (big - small) / 20_000 < 100  # an object per frame (as before) took ~600 bytes a frame, both sides
