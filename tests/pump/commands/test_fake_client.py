"""The fake client's process handling (pump/commands/fake_client.py): the agent runs like a proxied one."""

from __future__ import annotations

import json
import sys

from rpcspy.events import Exit, Frame, Start
from rpcspy.pump.commands.fake_client import ClientRun
from rpcspy.replay.client import Said, Step
from tests.pump.test_orphans import _gone

FAMILY = ("import json, subprocess, sys, time; "
          "child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(120)']); "
          "print(json.dumps({'type': 'response', 'child': child.pid}), flush=True); time.sleep(120)")
"""An agent that ignores EOF, with a child of its own; prints the child's pid (an id-less response, to wait for)."""


class Events:
    """A recorder that keeps the events."""

    def __init__(self) -> None:
        self.events: list[object] = []

    def write_event(self, event: object) -> None:
        self.events.append(event)

    def flush(self) -> None:
        pass


def _agent(code: str) -> list[str]:
    return [sys.executable, "-c", code]


def test_the_agent_leads_its_own_process_group() -> None:
    rec = Events()
    code = "import json, os; print(json.dumps({'type': 'pg', 'pgid': os.getpgid(0), 'pid': os.getpid()}))"
    assert ClientRun([], _agent(code), recorder=rec, timeout=10).run() == 0
    start = next(e for e in rec.events if isinstance(e, Start))
    said = json.loads(next(e.data for e in rec.events if isinstance(e, Frame) and e.dir == "a2c"))
    assert said["pid"] == start.pid and said["pgid"] == start.pid


def test_an_agent_killed_by_a_signal_exits_like_a_shell_says() -> None:
    rec = Events()
    code = "import os, signal; os.kill(os.getpid(), signal.SIGTERM)"
    assert ClientRun([], _agent(code), recorder=rec, timeout=10).run() == 143
    exit_event = rec.events[-1]
    assert isinstance(exit_event, Exit) and (exit_event.code, exit_event.signal) == (143, 15)


def test_an_agent_that_ignores_eof_is_ended_with_its_children() -> None:
    """After the exit grace the whole group goes, the agent's own child too."""
    rec = Events()
    warnings: list[str] = []
    ready = Said(idless=1)  # EOF once the child is spawned: a loaded machine may take longer than the grace to start
    run = ClientRun([Step(0.0, None, ready)], _agent(FAMILY), recorder=rec, timeout=60, warn=warnings.append,
                    exit_grace=0.5)
    assert run.run() == 143
    assert any("terminating it" in w for w in warnings)
    child = json.loads(next(e.data for e in rec.events if isinstance(e, Frame) and e.dir == "a2c"))["child"]
    assert _gone([child])
