"""Batch delivery is per-event delivery: the same numbered events, in the same order, the same recording bytes.

A reference model of the per-event dispatcher (one Frame and one call per line, findings
numbered right after their frame) is checked against the batching Dispatcher over random
streams cut into random chunks: what a batch-taking observer sees, what an emitting one sees,
and the recorder's bytes through ``handle_batch`` and through ``handle``.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from rpcspy.events import DIRECTIONS, Direction, Eof, Event, Finding, Frame
from rpcspy.framing import split_cr
from rpcspy.pump.forward.hub import BATCH_FRAMES, Batched, Dispatcher, Emit
from rpcspy.pump.observers.recorder import Recorder
from rpcspy.recording.writer import RecordingWriter, make_header


class Collect:
    """Sees one event at a time (so the dispatcher treats it as one that may emit)."""

    name = "collect"

    def __init__(self) -> None:
        self.events: list[tuple] = []

    def handle(self, event: Event, emit: Emit) -> None:
        self.events.append(_key(event))

    def flush(self) -> None:
        pass

    def close(self) -> None:
        pass


class CollectBatches(Collect):
    name = "batches"

    def handle_batch(self, events: list[Event]) -> None:
        self.events += [_key(e) for e in events]


class Finds(Collect):
    """Emits a finding after every frame whose data has a digit 7 in it, and a second after '77'."""

    name = "finds"

    def handle(self, event: Event, emit: Emit) -> None:
        if isinstance(event, Frame) and b"7" in event.data:
            emit(Finding(0, event.t, "x.seven", "warning", "x", "seven", frame=event.seq, dir=event.dir))
            if b"77" in event.data:
                emit(Finding(0, event.t, "x.twice", "info", "x", "twice", frame=event.seq, dir=event.dir))


class PerEventRecorder:
    """The recorder without ``handle_batch``: one ``write_event`` per event."""

    name = "each"

    def __init__(self, writer: RecordingWriter) -> None:
        self.recorder = Recorder(writer)

    def handle(self, event: Event, emit: Emit) -> None:
        self.recorder.handle(event, emit)

    def flush(self) -> None:
        self.recorder.flush()

    def close(self) -> None:
        self.recorder.close()


def _key(e: Event) -> tuple:
    if isinstance(e, Frame):
        return ("frame", e.seq, e.dir, e.data, e.nl, e.cr, e.injected)
    if isinstance(e, Finding):
        return ("finding", e.seq, e.rule, e.frame)
    return (type(e).__name__, e.seq)


class Reference:
    """The per-event dispatcher this change replaced: a Frame and a call per line."""

    def __init__(self, observers: list[Collect]) -> None:
        self.observers = observers
        self.seq = 0
        self.pending: dict[str, bytes] = {d: b"" for d in DIRECTIONS}

    def data(self, direction: Direction, t: float, chunk: bytes, injected: bool = False) -> None:
        *lines, self.pending[direction] = (self.pending[direction] + chunk).split(b"\n")
        for line in lines:
            data, cr = split_cr(line)
            self.seq += 1
            self.dispatch(Frame(self.seq, t, direction, data, True, cr, injected))

    def eof(self, direction: Direction, t: float) -> None:
        if self.pending[direction]:
            data, cr = split_cr(self.pending[direction])
            self.seq += 1
            self.dispatch(Frame(self.seq, t, direction, data, False, cr))
        self.seq += 1
        self.dispatch(Eof(self.seq, t, direction))

    def dispatch(self, event: Event) -> None:
        derived: list[Event] = []
        for obs in self.observers:
            obs.handle(event, derived.append)
        for extra in derived:
            self.seq += 1
            extra.seq = self.seq
            self.dispatch(extra)


_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3),
    max_leaves=6,
)
_line = st.one_of(
    _json.map(lambda v: json.dumps(v, separators=(",", ":")).encode()),
    _json.map(lambda v: json.dumps(v, ensure_ascii=False).encode("utf-8", "surrogatepass")),
    st.binary(max_size=12).map(lambda b: b.replace(b"\n", b"")),  # anything: invalid JSON, bad UTF-8, CR, empty
    st.sampled_from([b"", b" {}", b"{} ", b"\t1", b"[1", b"2],3", b'"a', b'b"', b"1,2", b"\xff", b"7", b"77",
                     b"[" * 1100 + b"]" * 1100]),
)
_stream = st.lists(st.tuples(_line, st.booleans()), max_size=40).map(
    lambda ls: b"".join(line + (b"\r\n" if cr else b"\n") for line, cr in ls))


@st.composite
def _chunked(draw: st.DrawFn) -> tuple[list[tuple[Direction, bytes, bool]], bool]:
    parts: list[tuple[Direction, bytes, bool]] = []
    for direction in draw(st.lists(st.sampled_from(DIRECTIONS), min_size=1, max_size=4)):
        data = draw(_stream) + draw(st.sampled_from([b"", b"{", b"tail\r"]))
        cuts = sorted(draw(st.lists(st.integers(0, len(data)), max_size=6)))
        injected = draw(st.booleans())
        for a, b in zip([0, *cuts], [*cuts, len(data)], strict=True):
            parts.append((direction, data[a:b], injected))
    return parts, draw(st.booleans())


def _feed(d: Dispatcher | Reference, parts: list[tuple[Direction, bytes, bool]]) -> None:
    for direction, chunk, injected in parts:
        d.data(direction, 0.5, chunk, injected)
    for direction in DIRECTIONS:
        d.eof(direction, 0.75)


@settings(max_examples=300, deadline=None)
@given(_chunked())
def test_batches_and_emitters_see_what_per_event_delivery_shows(case: tuple) -> None:
    parts, with_finder = case
    finders = 1 if with_finder else 0
    ref_seen = Collect()
    _feed(Reference([*[Finds() for _ in range(finders)], ref_seen]), parts)
    one, batches = Collect(), CollectBatches()
    assert isinstance(batches, Batched) and not isinstance(one, Batched)
    dispatcher = Dispatcher([*[Finds() for _ in range(finders)], one, batches], warn=print)
    _feed(dispatcher, parts)
    assert one.events == ref_seen.events
    assert batches.events == ref_seen.events


@settings(max_examples=150, deadline=None)
@given(_chunked())
def test_the_recording_is_byte_identical_in_batches_and_per_event(case: tuple) -> None:
    parts, with_finder = case
    header = make_header(["x"], started=1.0, pid=1)
    with tempfile.TemporaryDirectory() as tmp:
        paths = [Path(tmp, "batch.rec"), Path(tmp, "each.rec")]
        recorders = [Recorder(RecordingWriter(str(paths[0]), header, warn=_fail)),
                     PerEventRecorder(RecordingWriter(str(paths[1]), header, warn=_fail))]
        assert isinstance(recorders[0], Batched) and not isinstance(recorders[1], Batched)
        d = Dispatcher([*([Finds()] if with_finder else []), *recorders], warn=_fail)
        _feed(d, parts)
        d.close()
        assert paths[0].read_bytes() == paths[1].read_bytes()


def _fail(message: str) -> None:
    raise AssertionError(message)


def test_a_chunk_of_more_lines_than_a_batch_is_numbered_across_batches() -> None:
    n = BATCH_FRAMES * 2 + 5
    seen = CollectBatches()
    d = Dispatcher([Finds(), seen], warn=print)
    d.data("a2c", 1.0, b"".join(b'{"n":%d}\n' % i for i in range(n)))
    frames = [e for e in seen.events if e[0] == "frame"]
    assert len(frames) == n and [e[1] for e in seen.events] == list(range(1, len(seen.events) + 1))
    last_frame, findings = 0, 0
    for e in seen.events:  # each finding names the frame just before it
        if e[0] == "frame":
            last_frame = e[1]
        else:
            findings += 1
            assert e[3] == last_frame
    assert findings > BATCH_FRAMES // 10 and d.frames["a2c"] == n and d.last_frame["a2c"] == frames[-1][1]


def test_a_gap_note_between_batches_keeps_the_count() -> None:
    seen = CollectBatches()
    d = Dispatcher([seen], warn=print)
    d.data("a2c", 1.0, b"1\n2\n3")
    d.dropped("a2c", 1.1, 10, "the observers fell behind")
    d.data("a2c", 1.2, b"4\n")
    assert [e[0] for e in seen.events] == ["frame", "frame", "Note", "frame"]
    assert [e[1] for e in seen.events] == [1, 2, 3, 4]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(1, 3000), min_size=1, max_size=6), st.integers(0, 2))
def test_the_control_socket_holds_the_same_backlog_and_counts_in_batches(sizes: list[int], big: int) -> None:
    """A batch larger than the backlog's bound keeps what per-event delivery keeps (and no more)."""
    from rpcspy.pump.forward.observer_process import ChildSession
    from rpcspy.pump.observers.control import ControlServer
    from rpcspy.pump.observers.control_backlog import BACKLOG_EVENTS

    events: list[Event] = []
    for i in range(sum(sizes)):
        data = b"x" * (5000 * big if i % 7 == 0 else 10)
        events.append(Frame(i + 1, 0.0, "a2c" if i % 3 else "c2a", data, True, False, i % 5 == 0))
    with tempfile.TemporaryDirectory() as tmp:
        servers = [ControlServer(ChildSession(-1, ["x"], None, "proxy", pid, 0.0), directory=tmp) for pid in (1, 2)]
        try:
            for e in events:
                servers[0].handle(e, _fail)
            start = 0
            for n in sizes:
                servers[1].handle_batch(events[start:start + n])
                start += n
            each, batched = servers
            with each._lock, batched._lock:
                assert each.backlog(BACKLOG_EVENTS) == batched.backlog(BACKLOG_EVENTS)
            assert (each.frames, each.injected) == (batched.frames, batched.injected)
        finally:
            for srv in servers:
                srv.close()
