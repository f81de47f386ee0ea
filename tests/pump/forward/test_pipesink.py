"""The proxy's end of the observer pipe: a full pipe holds messages, then waits while the reader drains it,
and counts data as a gap only once the reader stalls (or at once with ``stall_after=0``)."""

from __future__ import annotations

import fcntl
import itertools
import os
import select
import threading
import time

from rpcspy.events import Note
from rpcspy.pump.forward import pipesink, wire
from rpcspy.pump.forward.pipesink import PipeSink
from rpcspy.pump.forward.spawn import F_SETPIPE_SZ


def _sink(monkeypatch, hold: int, **kwargs) -> tuple[PipeSink, int, list[str]]:  # type: ignore[no-untyped-def]
    monkeypatch.setattr(pipesink, "HOLD_BYTES", hold)
    r, w = os.pipe()
    fcntl.fcntl(w, F_SETPIPE_SZ, 4096)
    warnings: list[str] = []
    return PipeSink(w, warn=warnings.append, **kwargs), r, warnings


def _drain(r: int) -> list[wire.Message]:
    os.set_blocking(r, False)
    decoder, out = wire.WireDecoder(), []
    while True:
        try:
            data = os.read(r, 1 << 16)
        except BlockingIOError:
            return out
        out += decoder.feed(data)


def test_without_patience_a_full_pipe_never_blocks_and_the_gap_is_sent_in_order(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    sink, r, warnings = _sink(monkeypatch, hold=10_000, stall_after=0)
    chunk = b"x" * 3000
    for _ in range(20):  # 60 KB into a 4 KB pipe with 10 KB held: returns every time, nothing blocks
        sink.publish("a2c", 1.0, chunk)
    sink.publish_event(Note(0, 2.0, "info", "after the flood"))
    assert sink.stalled and sink.gap_bytes > 0
    assert len(warnings) == 1 and "observers stalled" in warnings[0]
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


def test_a_reader_that_keeps_draining_is_waited_for_and_nothing_is_lost(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """Past the hold bound the publisher waits while the reader progresses (slowly): no gap at all."""
    sink, r, _ = _sink(monkeypatch, hold=10_000, stall_after=30.0)
    got: list[wire.Message] = []
    done = threading.Event()

    def slow_reader() -> None:
        decoder = wire.WireDecoder()
        while not done.is_set() or sum(m.kind == wire.EOF for m in got) == 0:
            try:
                data = os.read(r, 1024)
            except BlockingIOError:
                data = b""
            got.extend(decoder.feed(data))
            time.sleep(0.002)

    os.set_blocking(r, False)
    reader = threading.Thread(target=slow_reader)
    reader.start()
    chunks = [bytes([65 + i % 26]) * 3000 for i in range(60)]  # 180 KB through a 4 KB pipe, 10 KB held
    for chunk in chunks:
        sink.publish("c2a", 1.0, chunk)
    sink.publish_eof("c2a", 2.0)
    while not sink.flush():
        time.sleep(0.01)
    done.set()
    reader.join(60)
    assert sink.gap_bytes == 0
    assert [m.payload for m in got if m.kind == wire.DATA] == chunks
    assert [m.kind for m in got][-1] == wire.EOF
    sink.close(timeout=1)


def test_a_stalled_reader_costs_a_gap_after_the_stall_time_then_no_more_waiting(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    ticks = itertools.count()
    calls = []

    def clock() -> float:
        calls.append(1)
        return next(ticks) * 0.5  # every look at the clock is half a second later

    sink, r, warnings = _sink(monkeypatch, hold=10_000, stall_after=2.0, clock=clock)
    chunk = b"y" * 3000
    sent = 0
    while not calls:  # the pipe, then the hold bound (10 KB) fill up without a look at the clock
        sink.publish("a2c", 1.0, chunk)
        sent += 1
        assert sent <= 6
    # The chunk past the bound: nothing drains, so it waited 2 s by the clock (5 looks), then was cut.
    assert len(calls) == 5 and sink.gap_bytes == len(chunk)
    assert len(warnings) == 1 and "observers stalled" in warnings[0]
    for _ in range(10):  # still stalled: every later chunk is cut at once, one look at the clock each
        sink.publish("a2c", 1.0, chunk)
    assert len(calls) == 15 and sink.gap_bytes == 11 * len(chunk)
    sent += 10
    messages = _drain(r)  # the reader comes back: what was held goes, then the gap, in order
    while not sink.flush():
        messages += _drain(r)
    sink.publish("a2c", 3.0, b"after")
    messages += _drain(r)
    kinds = [m.kind for m in messages]
    assert kinds.count(wire.GAP) == 1 and kinds[-1] == wire.DATA and messages[-1].payload == b"after"
    data = sum(len(m.payload) for m in messages if m.kind == wire.DATA) - len(b"after")
    assert data + wire.load_gap(messages[kinds.index(wire.GAP)].payload)[0] == sent * len(chunk)
    sink.close(timeout=1)


def test_a_reader_that_runs_is_waited_for_however_long_it_takes_nothing(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """A slow observer process (running, far behind): the pipe takes nothing for long, but it is not
    halted, so no gap until STUCK_AFTER; once it is halted (stopped, dead) the stall time cuts."""
    now = [0.0]
    halted = [False]

    def clock() -> float:  # every look is 1.5 s later; at the 20th look the reader is stopped
        now[0] += 1.5
        if now[0] >= 30:
            halted[0] = True
        return now[0]

    sink, r, warnings = _sink(monkeypatch, hold=10_000, stall_after=2.0, clock=clock, halted=lambda: halted[0])
    chunk = b"y" * 3000
    while not now[0]:  # the pipe, then the hold bound fill up without a look at the clock
        sink.publish("a2c", 1.0, chunk)
    # Waited 28.5 s by the clock while the reader ran (never cut); halted from 30 s, cut 2 s after the mark.
    assert halted[0] and sink.gap_bytes == len(chunk)
    assert len(warnings) == 1 and "observers stalled" in warnings[0]
    _drain(r)
    sink.close(timeout=1)


def test_a_running_reader_that_takes_nothing_for_stuck_after_is_cut(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """A bug that deadlocks the observers never holds the agent for good."""
    from rpcspy.backpressure import STUCK_AFTER

    now = [0.0]

    def clock() -> float:
        now[0] += 1.0
        return now[0]

    sink, r, _ = _sink(monkeypatch, hold=10_000, stall_after=2.0, clock=clock, halted=lambda: False)
    chunk = b"y" * 3000
    while not sink.gap_bytes:
        sink.publish("a2c", 1.0, chunk)
    assert now[0] >= STUCK_AFTER
    _drain(r)
    sink.close(timeout=1)


def test_output_published_after_close_is_said_not_silently_dropped(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """A relay still running when the session's end was handed over (it outlived the drain timeout):
    what it forwards then cannot be recorded, and stderr says so once."""
    sink, r, warnings = _sink(monkeypatch, hold=1 << 20)
    sink.publish("a2c", 1.0, b"before\n")
    sink.close(timeout=1)
    sink.publish("c2a", 2.0, b"to an agent that has exited: nothing of the agent's is missing\n")
    assert warnings == []
    sink.publish("a2c", 2.0, b"late\n")
    sink.publish("a2c", 2.0, b"later\n")
    sink.publish_eof("a2c", 3.0)
    assert warnings == ["a2c output forwarded after the recording was closed is not in it"]
    os.close(r)


def test_what_waits_goes_once_the_pipe_has_room_even_if_nothing_more_is_published(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """The relays go idle after their last chunk (the client waits for an answer, the agent for a
    command): a frame held while the pipe was full must still reach the observers once it drains,
    not wait for a next publish that may never come (an injector that never sees the frame it
    reacts to would leave the client waiting for good)."""
    sink, r, _ = _sink(monkeypatch, hold=1 << 20)
    sink.publish("c2a", 1.0, b"f" * 6000)  # the 4 KB pipe takes part of it
    sink.publish("c2a", 2.0, b'{"id":"go","type":"ping"}\n')  # held
    sink.publish_event(Note(0, 3.0, "info", "held too"))
    assert sink.stalled
    os.set_blocking(r, True)
    decoder, got = wire.WireDecoder(), []
    while len(got) < 3:  # the reader drains; nobody publishes or flushes any more
        ready = select.select([r], [], [], 30)[0]  # a hang guard, not a speed check
        assert ready, "a held message never reached the reader"
        got += decoder.feed(os.read(r, 1 << 16))
    assert [m.kind for m in got] == [wire.DATA, wire.DATA, wire.EVENT]
    assert got[1].payload == b'{"id":"go","type":"ping"}\n'
    deadline = time.monotonic() + 30  # a hang guard: the hand-over thread drops what it wrote just after the write
    while sink.stalled and time.monotonic() < deadline:
        time.sleep(0.01)
    assert not sink.stalled
    sink.close(timeout=1)


def test_the_hold_follows_the_observers_rate_so_the_end_waits_about_a_second_for_them() -> None:
    """Issue 20: 16 MiB of small frames held for starved observers took 20 s at the end; the bound is about
    WORK_HORIZON seconds of their rate, measured while a relay waits at it, within [floor, ceiling]."""
    hold = pipesink.HoldBound(floor=256 << 10, ceiling=16 << 20, horizon=1.0)
    assert hold.bound == 16 << 20  # not measured yet: a burst is taken whole
    hold.sample(800_000, 1.0)  # slow observers (a loaded machine)
    assert hold.bound == 800_000
    hold.sample(0, 0.5)  # stopped for a while: halves, down to the floor, never zero
    assert hold.bound == 400_000
    for _ in range(10):
        hold.sample(0, 0.1)
    assert hold.bound == 256 << 10
    for _ in range(20):
        hold.sample(100 << 20, 1.0)  # fast again: back to the ceiling
    assert hold.bound == 16 << 20
    assert pipesink.HoldBound(floor=1 << 20, ceiling=10_000, rate=1.0).bound == 10_000  # a tiny ceiling wins
