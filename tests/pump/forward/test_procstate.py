"""What the proxy reads of its observer process in /proc: running, stopped (SIGSTOP), gone."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

from rpcspy.pump.forward import procstate

pytestmark = pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="reads /proc")


def _until(cond, what: str) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + 30  # a hang guard
    while not cond():
        assert time.monotonic() < deadline, what
        time.sleep(0.01)


def test_running_stopped_and_gone() -> None:
    proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        assert procstate.state(proc.pid) == procstate.RUNNING  # sleeping counts as running: not halted
        assert procstate.cpu_ticks(proc.pid) >= 0
        os.kill(proc.pid, signal.SIGSTOP)
        _until(lambda: procstate.state(proc.pid) == procstate.STOPPED, "never seen stopped")
        os.kill(proc.pid, signal.SIGCONT)
        _until(lambda: procstate.state(proc.pid) == procstate.RUNNING, "never seen running again")
        proc.kill()
        _until(lambda: procstate.state(proc.pid) == procstate.GONE, "a zombie is not gone")  # not reaped yet
    finally:
        proc.kill()
        proc.wait()
    assert procstate.state(proc.pid) == procstate.GONE
    assert procstate.cpu_ticks(proc.pid) == -1
