"""The observers' side of the tape: they stand back while a burst pours in, then catch up."""

from __future__ import annotations

import fcntl
import os
import threading
import time
from pathlib import Path

import pytest

from rpcspy.pump import observer_process
from rpcspy.pump.observer_process import _TapeReader
from rpcspy.pump.spawn import F_SETPIPE_SZ
from rpcspy.pump.tape import AVAILABLE, RELEASE_STEP, Tape

pytestmark = pytest.mark.skipif(not AVAILABLE, reason="splice/sendfile are Linux-only")


def _writer(tape: Tape, chunk: int, pause: float, count: int, done: list[float]) -> threading.Thread:
    def run() -> None:
        r, w = os.pipe()
        fcntl.fcntl(w, F_SETPIPE_SZ, 1 << 20)
        for _ in range(count):
            os.write(w, b"b" * chunk)
            n = 0
            while n < chunk:
                n += tape.append_from(r, chunk - n)
            time.sleep(pause)
        done.append(time.monotonic())

    thread = threading.Thread(target=run)
    thread.start()
    return thread


def _burst_then_read(tape: Tape) -> tuple[float, list[float]]:
    done: list[float] = []
    writer = _writer(tape, 256 << 10, 0.001, 200, done)  # 50 MiB; even 4 ms sleeps keep it over 50 MB/s
    while tape.size() < 4 << 20:
        time.sleep(0.001)
    reader = _TapeReader(tape)
    time.sleep(observer_process.BURST_PAUSE * 2)  # a first window to measure the rate over
    data = reader.take(65536)
    returned = time.monotonic()
    writer.join()
    assert data == b"b" * 65536
    return returned, done


def test_observers_wait_while_a_burst_pours_in(tmp_path: Path) -> None:
    returned, done = _burst_then_read(Tape(str(tmp_path)))
    assert returned >= done[0]  # the first read waited for the burst to end


def test_far_behind_they_work_alongside(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(observer_process, "BURST_BACKLOG", 2 << 20)
    returned, done = _burst_then_read(Tape(str(tmp_path)))
    assert returned < done[0]  # over the backlog bound: no waiting


def test_a_trickle_is_read_at_once(tmp_path: Path) -> None:
    tape = Tape(str(tmp_path))
    done: list[float] = []
    writer = _writer(tape, 1000, 0.01, 100, done)  # 100 KB/s for a second
    while tape.size() < 1000:
        time.sleep(0.001)
    got = _TapeReader(tape).take(1000)
    returned = time.monotonic()
    writer.join()
    assert got == b"b" * 1000 and returned < done[0]


def test_what_observers_read_is_given_back(tmp_path: Path) -> None:
    tape = Tape(str(tmp_path))
    r, w = os.pipe()
    chunk = b"c" * 65536
    while tape.written < RELEASE_STEP + len(chunk):
        os.write(w, chunk)
        tape.append_from(r, len(chunk))
    tape.forwarded = tape.written  # the client has it all
    reader = _TapeReader(tape)
    while reader.offset < RELEASE_STEP:
        assert reader.take(len(chunk)) == chunk
    assert tape.released == RELEASE_STEP  # punched out, in whole steps
