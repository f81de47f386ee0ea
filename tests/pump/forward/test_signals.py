"""SignalForwarder: the terminal's signals reach the agent's process group; the third is SIGKILL."""

from __future__ import annotations

import os
import signal
import sys

from rpcspy.pump.forward.signals import SignalForwarder
from rpcspy.pump.forward.spawn import spawn_agent

SLEEPER = [sys.executable, "-c", "import signal, time; signal.signal(signal.SIGINT, signal.SIG_IGN); "
           "print('ready', flush=True); time.sleep(60)"]


def test_a_signal_to_rpcspy_goes_to_the_agent_and_the_handler_is_restored_after() -> None:
    before = signal.getsignal(signal.SIGTERM)
    proc = spawn_agent([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        forwarded: list[int] = []
        with SignalForwarder(proc.pid, forwarded.append):
            os.kill(os.getpid(), signal.SIGTERM)  # rpcspy itself survives: the handler forwards it
            assert proc.wait(10) == -signal.SIGTERM
        assert forwarded == [signal.SIGTERM]
        assert signal.getsignal(signal.SIGTERM) is before
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_the_third_signal_kills_an_agent_that_ignores_them() -> None:
    proc = spawn_agent(SLEEPER)
    try:
        assert proc.stdout is not None and proc.stdout.readline() == b"ready\n"  # SIGINT is ignored from now on
        forwarder = SignalForwarder(proc.pid)
        for _ in range(2):
            forwarder.forward(signal.SIGINT)
        assert proc.poll() is None
        forwarder.forward(signal.SIGINT)
        assert proc.wait(10) == -signal.SIGKILL
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
