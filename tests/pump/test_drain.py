"""The drain process empties the observers' pipe into the spool; the reader gets every byte in order."""

from __future__ import annotations

import errno
import os
import signal
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rpcspy.pump import drain
from rpcspy.pump.drain import PipeSpool
from rpcspy.pump.tape import RELEASE_STEP
from tests.pump.smallfs import fill, tiny_tmpfs

pytestmark = pytest.mark.skipif(not hasattr(os, "splice"), reason="the drain process needs splice (Linux)")


def _feed(chunks: list[bytes]) -> PipeSpool:
    r, w = os.pipe()
    spool = PipeSpool(r)
    spool.start()

    def produce() -> None:
        for c in chunks:
            os.write(w, c)
        os.close(w)

    threading.Thread(target=produce).start()
    return spool


def _read_all(spool: PipeSpool, size: int = 1 << 20) -> bytes:
    got = bytearray()
    while (data := spool.get(size, timeout=30)) != b"":
        assert data is not None, "the spool stopped handing over bytes"
        assert len(data) <= size
        got += data
    return bytes(got)


@settings(max_examples=15, deadline=None)
@given(st.lists(st.binary(min_size=1, max_size=70_000), max_size=12), st.integers(min_value=1, max_value=90_000))
def test_every_byte_in_order(chunks: list[bytes], size: int) -> None:
    spool = _feed(chunks)
    assert _read_all(spool, size) == b"".join(chunks)
    spool.dispose()


def test_read_bytes_are_given_back() -> None:
    spool = _feed([b"s" * (1 << 20)] * (RELEASE_STEP // (1 << 20) + 2))
    assert _read_all(spool) == b"s" * (RELEASE_STEP + (2 << 20))
    assert spool._released >= RELEASE_STEP and os.fstat(spool.fd).st_blocks * 512 < 4 << 20
    spool.dispose()


@settings(max_examples=1, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.just(None))
def test_the_spool_stops_taking_at_its_bound(monkeypatch: pytest.MonkeyPatch, _: None) -> None:
    monkeypatch.setattr(drain, "SPOOL_BOUND", 1 << 20)
    r, w = os.pipe()
    spool = PipeSpool(r)
    spool.start()
    os.set_blocking(w, False)
    sent = 0
    try:
        while True:  # nobody reads the spool: the drain process stops at the bound, then the pipe fills
            sent += os.write(w, b"b" * 65536)
    except BlockingIOError:
        pass
    assert spool.backlog <= (1 << 20) + (1 << 20)  # the bound, plus the drain process's last splice
    assert sent > spool.backlog  # the rest waited in the pipe
    os.close(w)
    assert _read_all(spool) == b"b" * sent  # and nothing is lost once the reader goes on
    spool.dispose()


def _hands_over_to_the_pipe(directory: Path, before_start: Callable[[], object] = lambda: None,
                            error: int = errno.ENOSPC) -> None:
    """Bytes written after the spool failed still reach the reader (from the pipe), which knows why."""
    r, w = os.pipe()
    spool = PipeSpool(r, str(directory))
    before_start()
    spool.start()
    os.write(w, b"still here")
    os.close(w)
    assert _read_all(spool) == b"still here"
    assert spool.failure == os.strerror(error)
    spool.dispose()


def test_a_full_disk_hands_over_to_the_pipe(tmp_path: Path) -> None:
    """The spool on a really full file system (a tiny tmpfs, filled up): the reader takes the pipe."""
    with tiny_tmpfs(tmp_path / "fs") as fs:
        _hands_over_to_the_pipe(fs, lambda: fill(fs))


def test_no_spool_file_at_all_hands_over_to_the_pipe(tmp_path: Path) -> None:
    _hands_over_to_the_pipe(tmp_path / "missing", error=errno.ENOENT)  # mkstemp fails


@settings(max_examples=1, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.just(None))
def test_a_drain_process_at_its_bound_leaves_when_its_observer_process_dies(monkeypatch: pytest.MonkeyPatch,
                                                                            _: None) -> None:
    """Otherwise it waits for a reader forever, holding the pipe open: the proxy would wait on a pipe that never
    drains (until its stall time) and the orphan would never end."""
    monkeypatch.setattr(drain, "SPOOL_BOUND", 1 << 20)
    r, w = os.pipe()
    middle = os.fork()
    if middle == 0:  # the observer process: starts its drain process, reads nothing
        try:
            PipeSpool(r).start()
            time.sleep(120)
        finally:
            os._exit(0)
    os.close(r)
    os.set_blocking(w, False)
    deadline = time.monotonic() + 60  # hang guards, not measurements
    full_since = None
    while full_since is None or time.monotonic() - full_since < 0.5:  # the spool at its bound, the pipe full
        assert time.monotonic() < deadline
        try:
            os.write(w, b"c" * 65536)
            full_since = None
        except BlockingIOError:
            full_since = full_since or time.monotonic()
            time.sleep(0.01)
    os.kill(middle, signal.SIGKILL)  # it dies while its drain process waits at the bound
    os.waitpid(middle, 0)
    try:
        while time.monotonic() < deadline:
            try:
                os.write(w, b"c" * 65536)  # once the drain process left, EPIPE
            except BlockingIOError:
                time.sleep(0.01)
        raise AssertionError("the drain process never left: the pipe stayed open")
    except BrokenPipeError:
        pass
    finally:
        os.close(w)
