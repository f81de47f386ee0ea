"""The proxy's end of the observer pipe never blocks: a full pipe holds events, then counts data as a gap."""

from __future__ import annotations

import fcntl
import os

from rpcspy.events import Note
from rpcspy.pump import pipesink, wire
from rpcspy.pump.pipesink import PipeSink
from rpcspy.pump.spawn import F_SETPIPE_SZ


def _sink(monkeypatch, hold: int) -> tuple[PipeSink, int, list[str]]:  # type: ignore[no-untyped-def]
    monkeypatch.setattr(pipesink, "HOLD_BYTES", hold)
    r, w = os.pipe()
    fcntl.fcntl(w, F_SETPIPE_SZ, 4096)
    warnings: list[str] = []
    return PipeSink(w, warn=warnings.append), r, warnings


def _drain(r: int) -> list[wire.Message]:
    os.set_blocking(r, False)
    decoder, out = wire.WireDecoder(), []
    while True:
        try:
            data = os.read(r, 1 << 16)
        except BlockingIOError:
            return out
        out += decoder.feed(data)


def test_a_full_pipe_never_blocks_and_the_gap_is_sent_in_order(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    sink, r, warnings = _sink(monkeypatch, hold=10_000)
    chunk = b"x" * 3000
    for _ in range(20):  # 60 KB into a 4 KB pipe with 10 KB held: returns every time, nothing blocks
        sink.publish("a2c", 1.0, chunk)
    sink.publish_event(Note(0, 2.0, "info", "after the flood"))
    assert sink.stalled and sink.gap_bytes > 0
    assert len(warnings) == 1 and "fell behind" in warnings[0]
    messages = _drain(r)
    while not sink.flush():  # room again: what waits goes, in order
        messages += _drain(r)
    messages += _drain(r)
    sink.publish_eof("a2c", 3.0)
    sink.publish_eof("c2a", 4.0)
    messages += _drain(r)
    kinds = [m.kind for m in messages]
    data = sum(len(m.payload) for m in messages if m.kind == wire.DATA)
    (gap,) = [wire.load_gap(m.payload) for m in messages if m.kind == wire.GAP]
    assert data + gap[0] == 20 * len(chunk)  # every byte either handed over or counted
    assert kinds.index(wire.GAP) > max(i for i, k in enumerate(kinds) if k == wire.DATA)
    assert kinds[-3:] == [wire.EVENT, wire.EOF, wire.EOF]  # the held event kept its place, before the ends
    assert not sink.stalled
    sink.close(timeout=1)


def test_a_message_the_pipe_took_in_part_is_finished_before_any_other(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    sink, r, _ = _sink(monkeypatch, hold=1 << 20)
    sink.publish("c2a", 1.0, b"a" * 3000)
    sink.publish("c2a", 1.0, b"b" * 3000)  # the pipe takes part of it
    sink.publish("c2a", 1.0, b"c" * 10)  # held
    messages = _drain(r)
    while not sink.flush():
        messages += _drain(r)
    sink.publish_eof("c2a", 2.0)
    messages += _drain(r)
    assert [m.payload[:1] for m in messages if m.kind == wire.DATA] == [b"a", b"b", b"c"]
    assert [len(m.payload) for m in messages if m.kind == wire.DATA] == [3000, 3000, 10]
    assert messages[-1].kind == wire.EOF
