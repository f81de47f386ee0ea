"""The fake client's process handling (pump/fake_client.py): the agent runs like a proxied one."""

from __future__ import annotations

import json
import sys
import time

from rpcspy.events import Exit, Frame, Start
from rpcspy.pump.fake_client import ClientRun
from rpcspy.replay.client import Said, Step


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


def test_an_agent_that_ignores_eof_is_ended_with_its_children(tmp_path) -> None:
    """After the timeout the whole group goes: a child holding the agent's stdout too."""
    marker = tmp_path / "child-alive"
    child = tmp_path / "child.py"
    child.write_text(f"import time\ntime.sleep(1.5)\nopen({str(marker)!r}, 'w').close()\n")
    code = f"import subprocess, sys, time; subprocess.Popen([sys.executable, {str(child)!r}]); time.sleep(60)"
    warnings: list[str] = []
    run = ClientRun([Step(0.0, None, Said())], _agent(code), recorder=None, timeout=0.5, warn=warnings.append)
    assert run.run() == 143
    assert any("terminating it" in w for w in warnings)
    time.sleep(2.0)  # past the moment the child would have written the marker
    assert not marker.exists()
