"""The control server takes a chunk's frames as their lines (no Frame per frame): the same counts, the
same diagnosis, the same backlog and the same bytes to a subscriber as when it is handed the frames."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rpcspy.events import Direction, Event, Exit, Start, frames_of
from rpcspy.pump.forward.hub import Lines
from rpcspy.pump.observers import control_backlog
from rpcspy.pump.observers.control import ControlServer
from rpcspy.recording.writer import event_line
from tests.pump.control_support import FakeSession
from tests.pump.control_support import Lines as Client

UPDATE = b'{"type":"message_update","assistantMessageEvent":{"type":"text_delta","delta":"x"}}'
_line = st.sampled_from([
    UPDATE, UPDATE + b"\r", b'{"type":"agent_start"}', b'{"type":"agent_settled"}', b'{"id":"a","type":"get_state"}',
    b'{"id":"a","type":"response","command":"get_state","success":true}', b"not json \xff", b"", b" {}",
    b'{"id":"rpcspy-inject-1","type":"response","command":"get_state","success":true}', "\u2028é".encode(),
])
_chunk = st.tuples(st.sampled_from(["c2a", "a2c", "err"]), st.lists(_line, min_size=1, max_size=30), st.booleans())


def servers(tmp: Path) -> tuple[ControlServer, ControlServer]:
    (tmp / "a").mkdir(mode=0o700, exist_ok=True)
    (tmp / "b").mkdir(mode=0o700, exist_ok=True)
    return ControlServer(FakeSession(), str(tmp / "a")), ControlServer(FakeSession(), str(tmp / "b"))


def feed_both(by_lines: ControlServer, by_frames: ControlServer, chunks: list[tuple[str, list[bytes], bool]]) -> None:
    start = Start(1, 0.0, 7, ["pi"])
    by_lines.handle_batch([start])
    by_frames.handle_batch([start])
    seq = 2
    for i, (direction, lines, injected) in enumerate(chunks):
        d: Direction = direction  # type: ignore[assignment]
        t = 0.1 * (i + 1)
        by_lines.handle_lines(d, t, seq, lines, injected)
        by_frames.handle_batch(frames_of(seq, t, d, lines, injected))  # type: ignore[arg-type]
        seq += len(lines)
    end: list[Event] = [Exit(seq, 9.0, 0)]
    by_lines.handle_batch(end)
    by_frames.handle_batch(end)


def same(a: ControlServer, b: ControlServer) -> None:
    assert (a.frames, a.injected) == (b.frames, b.injected)
    assert a.why() == b.why()
    for n in (1, 7, control_backlog.BACKLOG_EVENTS):
        with a._lock, b._lock:
            assert [event_line(e) for e in a.backlog(n)] == [event_line(e) for e in b.backlog(n)]


def test_the_control_server_takes_lines() -> None:
    assert isinstance(ControlServer.__new__(ControlServer), Lines)


@settings(max_examples=40, deadline=None)
@given(chunks=st.lists(_chunk, max_size=12), seed=st.integers(0, 2**16))
def test_lines_and_frames_leave_the_same_server(tmp_path_factory: pytest.TempPathFactory,
                                                chunks: list[tuple[str, list[bytes], bool]], seed: int) -> None:
    tmp = tmp_path_factory.mktemp("ctl")
    a, b = servers(tmp)
    try:
        small = random.Random(seed).choice([3, 10, 100])  # a backlog bound smaller than a chunk, at times
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(control_backlog, "BACKLOG_EVENTS", small)
            mp.setattr(control_backlog, "BACKLOG_BYTES", random.Random(seed).choice([300, 5000, 8 << 20]))
            feed_both(a, b, chunks)
            same(a, b)
    finally:
        a.close()
        b.close()


def test_a_subscriber_gets_the_recordings_bytes_from_lines(tmp_path: Path) -> None:
    a, b = servers(tmp_path)
    try:
        raw = {s: Client(s.sock_path) for s in (a, b)}
        for client in raw.values():
            client.send({"op": "subscribe", "ref": 1})
            assert json.loads(client.line())["ok"] is True
        chunks = [("a2c", [UPDATE, UPDATE + b"\r", b"not json \xff"], False), ("c2a", [b'{"type":"x"}'], True),
                  ("err", [b"warn"], False)]
        feed_both(a, b, chunks)
        frames = [f for i, (d, lines, inj) in enumerate(chunks)
                  for f in frames_of(2 + sum(len(c[1]) for c in chunks[:i]), 0.1 * (i + 1), d, lines, inj)]  # type: ignore[arg-type]
        want = [event_line(Start(1, 0.0, 7, ["pi"])), *map(event_line, frames), event_line(Exit(7, 9.0, 0))]
        for client in raw.values():
            assert [client.line() for _ in want] == want
            client.close()
    finally:
        a.close()
        b.close()
