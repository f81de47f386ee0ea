"""InProcessProxy (the proxy in a thread, for repl and drive): events out, commands in, the agent's group ended."""

from __future__ import annotations

import json
import queue
import sys
import time
from collections.abc import Callable

from rpcspy.events import Exit, Frame, Note
from rpcspy.pump.inprocess import InProcessProxy, gap_after_from_env
from tests.pump.commands.test_fake_client import FAMILY
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


FLOOD = "import sys\nline = b'x' * 1023 + b'\\n'\nfor _ in range(16 * 1024):\n    sys.stdout.buffer.write(line)\n"


def _flood_past_a_slow_observer(gap_after: float) -> list[object]:
    """16 MiB from the agent while the observer sits 0.5 s on each of its first batches (the hub holds 8 MiB)."""
    events: list[object] = []
    slow = [3]

    def on_events(batch: list[object]) -> None:
        events.extend(batch)
        if slow[0] and any(isinstance(e, Frame) for e in batch):
            slow[0] -= 1
            time.sleep(0.5)

    proxy = InProcessProxy([sys.executable, "-c", FLOOD], None, check=False, control=False, gap_after=gap_after)
    proxy.start(on_events, lambda: None)
    proxy.close_input()
    assert proxy.wait(60) == 0
    return events


def test_a_slow_observer_in_process_is_waited_for_and_the_recording_has_no_gap() -> None:
    events = _flood_past_a_slow_observer(gap_after=30.0)
    frames = [e for e in events if isinstance(e, Frame) and e.dir == "a2c"]
    assert len(frames) == 16 * 1024 and {len(f.data) for f in frames} == {1023}
    assert not [e for e in events if isinstance(e, Note) and e.dropped_bytes]


def test_gap_after_reaches_the_hub_zero_never_waits() -> None:
    events = _flood_past_a_slow_observer(gap_after=0.0)
    gaps = sum(e.dropped_bytes for e in events if isinstance(e, Note))
    frames = [e for e in events if isinstance(e, Frame) and e.dir == "a2c"]
    assert gaps > 0 and sum(len(f.data) + 1 for f in frames) + gaps == 16 << 20


def test_gap_after_comes_from_the_environment_like_run_reads_it() -> None:
    assert gap_after_from_env({}) == (2.0, None)
    assert gap_after_from_env({"RPCSPY_GAP_AFTER": "0"}) == (0.0, None)
    assert gap_after_from_env({"RPCSPY_GAP_AFTER": " 7.5 "}) == (7.5, None)
    for bad in ("-1", "soon", "nan"):
        value, problem = gap_after_from_env({"RPCSPY_GAP_AFTER": bad})
        assert value == 2.0 and problem is not None and "RPCSPY_GAP_AFTER" in problem
