"""The observers' side of the tape: they stand back while a burst pours in, then catch up.

Decided without wall-clock rates: the gauge is pure, and the reader gets a fake clock
whose sleeps let the fake agent write.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from rpcspy.backpressure import WorkBound
from rpcspy.pump.tape import AVAILABLE, RELEASE_STEP, Tape
from rpcspy.pump.tape_reader import BurstGauge, TapeReader

MB = 1_000_000


def test_gauge_hot_at_the_rate_cold_below() -> None:
    gauge = BurstGauge(rate=50 * MB, backlog=100 * MB, window=0.01)
    assert not gauge.stand_back(10 * MB, 0.005, 0)  # under a window: nothing measured yet
    assert gauge.stand_back(10 * MB, 0.01, 0)  # 10 MB in 10 ms: 1 GB/s
    assert not gauge.stand_back(10 * MB + 1000, 0.02, 0)  # then 100 KB/s: calm
    assert not gauge.stand_back(10 * MB + 1000, 0.021, 10 * MB)


def test_gauge_far_behind_works_alongside() -> None:
    gauge = BurstGauge(rate=50 * MB, backlog=8 * MB, window=0.01)
    assert not gauge.stand_back(10 * MB, 0.01, 0)  # hot, but 10 MB behind, over the backlog bound
    assert gauge.hot
    assert gauge.stand_back(20 * MB, 0.02, 13 * MB)  # 7 MB behind: under it, so wait


def test_gauge_nothing_to_wait_for_when_almost_caught_up() -> None:
    gauge = BurstGauge(rate=50 * MB, backlog=100 * MB, window=0.01)
    assert not gauge.stand_back(10 * MB, 0.01, 10 * MB - 1000)  # hot, but less than a window behind


class FakeTape:
    """Grows by ``step`` bytes per fake sleep while ``bursts`` sleeps are left."""

    def __init__(self, size: int, step: int, bursts: int) -> None:
        self._size, self.step, self.bursts = size, step, bursts
        self.released = 0
        self.bound = 256 * MB

    def size(self) -> int:
        return self._size

    def read(self, offset: int, count: int) -> bytes:
        assert offset + count <= self._size
        return b"b" * count

    def release(self, upto: int) -> None:
        self.released = upto


class FakeTime:
    def __init__(self, tape: FakeTape) -> None:
        self.now, self.tape, self.sleeps = 0.0, tape, 0

    def clock(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.now += seconds
        self.sleeps += 1
        if self.tape.bursts:
            self.tape.bursts -= 1
            self.tape._size += self.tape.step


def _reader(tape: FakeTape, backlog: int = 100 * MB) -> tuple[TapeReader, FakeTime]:
    fake = FakeTime(tape)
    gauge = BurstGauge(rate=50 * MB, backlog=backlog, window=0.01)
    return TapeReader(tape, clock=fake.clock, sleep=fake.sleep, gauge=gauge), fake  # type: ignore[arg-type]


def test_observers_wait_while_a_burst_pours_in() -> None:
    tape = FakeTape(4 * MB, step=2 * MB, bursts=10)  # 2 MB per 10 ms: 200 MB/s for 100 ms
    reader, fake = _reader(tape)
    fake.sleep(0.01)  # a first window: the burst is on
    assert reader.take(65536) == b"b" * 65536
    assert tape.bursts == 0 and fake.sleeps >= 11  # the read waited for the burst to end


def test_far_behind_they_work_alongside() -> None:
    tape = FakeTape(4 * MB, step=2 * MB, bursts=10)
    reader, fake = _reader(tape, backlog=2 * MB)
    fake.sleep(0.01)
    assert reader.take(65536) == b"b" * 65536
    assert fake.sleeps == 1 and tape.bursts == 9  # over the backlog bound: no waiting


def test_a_trickle_is_read_at_once() -> None:
    tape = FakeTape(1000, step=1000, bursts=100)  # 100 KB/s
    reader, fake = _reader(tape)
    fake.sleep(0.01)
    assert reader.take(1000) == b"b" * 1000 and fake.sleeps == 1


@pytest.mark.skipif(not AVAILABLE, reason="splice/sendfile are Linux-only")
def test_what_observers_read_is_given_back(tmp_path: Path) -> None:
    tape = Tape(str(tmp_path))
    r, w = os.pipe()
    chunk = b"c" * 65536
    while tape.written < RELEASE_STEP + len(chunk):
        os.write(w, chunk)
        tape.append_from(r, len(chunk))
    tape.forwarded = tape.written  # the client has it all
    reader = TapeReader(tape)
    while reader.offset < RELEASE_STEP:
        assert reader.take(len(chunk)) == chunk
    assert tape.released == RELEASE_STEP  # punched out, in whole steps


def _measuring(tape: FakeTape) -> tuple[TapeReader, FakeTime]:
    fake = FakeTime(tape)
    gauge = BurstGauge(rate=1e12, backlog=MB, window=0.01)  # never a burst: no standing back
    bounds = WorkBound(floor=MB, ceiling=256 * MB, bound=32 * MB, horizon=1.5, window=0.1)
    reader = TapeReader(tape, clock=fake.clock, sleep=fake.sleep, gauge=gauge, bounds=bounds)  # type: ignore[arg-type]
    return reader, fake


def test_their_busy_time_sets_the_tapes_bound_and_where_they_stand_back() -> None:
    """Between two takes with more already on the tape the observers were working: 2 MB in 1/8 s is 16 MB/s,
    so the relay's bound becomes 1.5 s of that, and they stand back during bursts only below half of it."""
    tape = FakeTape(100 * MB, step=0, bursts=0)
    reader, fake = _measuring(tape)
    for _ in range(2):
        reader.take(MB)
        fake.now += 0.0625  # working on the chunk
    assert tape.bound == 256 * MB  # not a window of work yet: the tape's bound untouched
    reader.take(MB)
    assert reader.bounds.rate == 16 * MB and tape.bound == 24 * MB and reader.gauge.backlog == 12 * MB


def test_waiting_for_input_is_not_busy_time() -> None:
    """When a take leaves nothing on the tape, the time until the next one is idle: a quiet agent does not
    make the observers look slow (and shrink the bound)."""
    tape = FakeTape(2 * MB, step=0, bursts=0)
    reader, fake = _measuring(tape)
    reader.take(MB)
    fake.now += 0.0625
    reader.take(MB)  # the tape is read to its end
    fake.now += 10.0  # the agent is quiet
    tape._size += 2 * MB
    reader.take(MB)
    fake.now += 0.0625
    reader.take(MB)
    assert reader.bounds.rate == 16 * MB  # 2 MB in 1/8 s of work; the 10 s of waiting left out
