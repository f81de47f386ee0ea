"""InProcessProxy (the proxy in a thread, for repl and drive): events out, commands in, the agent's group ended."""

from __future__ import annotations

import json
import queue
import sys
import time
from collections.abc import Callable

from rpcspy.events import Exit, Frame
from rpcspy.pump.inprocess import InProcessProxy
from tests.pump.test_fake_client import FAMILY
from tests.pump.test_orphans import _gone


def _frames_until(inbox: queue.Queue, want: Callable[[Frame], bool], timeout: float = 20.0) -> list[Frame]:
    frames: list[Frame] = []
    deadline = time.monotonic() + timeout
    while not any(want(f) for f in frames):
        batch = inbox.get(timeout=max(0.0, deadline - time.monotonic()))
        assert batch is not None, "the session ended first"
        frames += [e for e in batch if isinstance(e, Frame)]
    return frames


def test_a_line_sent_reaches_the_agent_and_its_answer_comes_back_as_events() -> None:
    echo = "import sys\nfor line in sys.stdin:\n    print('{\"echo\": %d}' % len(line), flush=True)\n"
    inbox: queue.Queue = queue.Queue()
    proxy = InProcessProxy([sys.executable, "-c", echo], None, check=False, control=False)
    proxy.start(inbox.put, lambda: inbox.put(None))
    assert proxy.send(b'{"type":"get_state"}\n') is None
    frames = _frames_until(inbox, lambda f: f.data == b'{"echo": 21}')
    assert [f.dir for f in frames] == ["c2a", "a2c"]
    proxy.close_input()
    assert proxy.wait(20) == 0
    assert proxy.send(b"x\n") == "the agent's stdin is closed"


def test_terminate_ends_the_agents_children_too() -> None:
    inbox: queue.Queue = queue.Queue()
    events: list[object] = []
    proxy = InProcessProxy([sys.executable, "-c", FAMILY], None, check=False, control=False)
    proxy.start(lambda batch: (events.extend(batch), inbox.put(batch)), lambda: inbox.put(None))
    frames = _frames_until(inbox, lambda f: f.dir == "a2c")
    proxy.terminate()
    assert proxy.wait(20) == 143
    assert any(isinstance(e, Exit) and e.signal == 15 for e in events)
    assert _gone([json.loads(frames[-1].data)["child"]])
