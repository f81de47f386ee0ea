"""The hub: framing off the relay path, numbering, failing and slow observers."""

from __future__ import annotations

import threading

from rpcspy.events import Eof, Event, Finding, Frame, Note
from rpcspy.pump.forward.hub import Dispatcher, Emit, Ticking
from rpcspy.pump.forward.hub_thread import Hub


class Collect:
    name = "collect"

    def __init__(self) -> None:
        self.events: list[Event] = []
        self.closed = False

    def handle(self, event: Event, emit: Emit) -> None:
        self.events.append(event)

    def flush(self) -> None:
        pass

    def close(self) -> None:
        self.closed = True


class Explodes(Collect):
    name = "explodes"

    def handle(self, event: Event, emit: Emit) -> None:
        raise RuntimeError("boom")


class Finds(Collect):
    name = "finds"

    def handle(self, event: Event, emit: Emit) -> None:
        if isinstance(event, Frame):
            emit(Finding(0, event.t, "x.rule", "error", "x", "bad", frame=event.seq, dir=event.dir))


def test_chunks_become_numbered_frames_per_direction() -> None:
    sink = Collect()
    hub = Hub([sink], warn=print)
    hub.start()
    hub.publish("c2a", 0.1, b'{"a":')
    hub.publish("a2c", 0.2, b"one\r\ntw")
    hub.publish("c2a", 0.3, b"1}\n")
    hub.publish("a2c", 0.4, b"o")
    hub.publish_eof("a2c", 0.5)
    hub.close()
    frames = [(e.seq, e.dir, e.data, e.cr, e.nl) for e in sink.events if isinstance(e, Frame)]
    assert frames == [(1, "a2c", b"one", True, True), (2, "c2a", b'{"a":1}', False, True), (3, "a2c", b"two", False, False)]
    assert isinstance(sink.events[-1], Eof) and sink.events[-1].seq == 4
    assert sink.closed


def test_failing_observer_is_dropped_once_and_others_continue() -> None:
    warnings: list[str] = []
    sink = Collect()
    hub = Hub([Explodes(), sink], warn=warnings.append)
    hub.start()
    for i in range(5):
        hub.publish("a2c", float(i), b"{}\n")
    hub.close()
    assert len(warnings) == 1 and "explodes" in warnings[0] and "boom" in warnings[0]
    assert len([e for e in sink.events if isinstance(e, Frame)]) == 5


def test_derived_events_follow_their_frame_with_own_seq() -> None:
    sink = Collect()
    hub = Hub([Finds(), sink], warn=print)
    hub.start()
    hub.publish("c2a", 0.0, b"x\ny\n")
    hub.close()
    kinds = [(type(e).__name__, e.seq) for e in sink.events]
    assert kinds == [("Frame", 1), ("Finding", 2), ("Frame", 3), ("Finding", 4)]
    assert sink.events[1].frame == 1 and sink.events[3].frame == 3


class Blocks(Collect):
    name = "blocks"

    def __init__(self) -> None:
        super().__init__()
        self.release = threading.Event()

    def handle(self, event: Event, emit: Emit) -> None:
        self.release.wait(10)
        super().handle(event, emit)


def _publish_past_a_stalled_observer(hub: Hub, blocker: Blocks) -> bool:
    """22 chunks against a 1000-byte queue whose observer is stalled in the first; did publishing return?"""
    hub.start()
    hub.publish("a2c", 0.0, b"first\n")  # the hub thread takes it and blocks in the observer

    def publish_all() -> None:
        for _ in range(20):
            hub.publish("a2c", 0.1, b"x" * 600 + b"\n")
        hub.publish("c2a", 0.2, b"y" * 600 + b"\n")

    publisher = threading.Thread(target=publish_all)
    publisher.start()
    publisher.join(60)  # a hang guard, not a timing: the observer stays stalled until after this line
    returned = not publisher.is_alive()
    blocker.release.set()
    publisher.join()
    hub.close()
    return returned


def _assert_gap_notes(hub: Hub, blocker: Blocks, warnings: list[str], reason: str) -> None:
    notes = [e for e in blocker.events if isinstance(e, Note)]
    frames = [e for e in blocker.events if isinstance(e, Frame)]
    assert sum(n.dropped_bytes for n in notes) == sum(hub.dropped.values()) == 601 * (22 - len(frames))
    assert len(frames) == 2  # what fits in the bound is kept, in order
    first = notes[0]
    assert first.dir == "a2c" and first.text.startswith(f"{reason}: ")
    assert f"bytes of a2c (after frame {frames[1].seq}) were forwarded but not recorded" in first.text
    assert len(notes) == 2 and notes[1].dir == "c2a"  # one gap per direction while it lasts
    assert len(warnings) == 1 and warnings[0].startswith(f"{reason}; ")


def test_a_stalled_observer_costs_at_most_the_stall_time_then_gap_notes_without_waiting() -> None:
    looks: list[float] = []

    def clock() -> float:  # every look at the clock is half a second later
        looks.append(len(looks) * 0.5)
        return looks[-1]

    blocker = Blocks()  # stalled until released, which happens only after every publish returned
    warnings: list[str] = []
    hub = Hub([blocker], warn=warnings.append, max_pending=1000, stall_after=2.0, clock=clock)
    assert _publish_past_a_stalled_observer(hub, blocker), "publish waited for a stalled observer"
    # The first chunk past the bound waited 2 s by the clock (5 looks), then was cut; each of the
    # 19 later ones (18 a2c, 1 c2a) was cut at once: one look each, no more waiting.
    assert looks == [i * 0.5 for i in range(5 + 19)]
    _assert_gap_notes(hub, blocker, warnings, "the observers stalled (their queue was full and took nothing for 2 s)")


def test_without_a_stall_time_publish_never_waits_its_misses_become_gap_notes() -> None:
    looks: list[float] = []
    blocker = Blocks()
    warnings: list[str] = []
    hub = Hub([blocker], warn=warnings.append, max_pending=1000, stall_after=0.0,
              clock=lambda: looks.append(0.0) or 0.0)
    assert _publish_past_a_stalled_observer(hub, blocker), "publish waited for a stalled observer"
    assert len(looks) == 20  # one look for each chunk past the bound: cut at once
    _assert_gap_notes(hub, blocker, warnings, "the observers stalled (their queue was full)")


class Slow(Collect):
    """Each frame takes it 1.5 s by the test's clock: slower than the relay, yet never 2 s without progress."""

    name = "slow"

    def __init__(self, now: list[float]) -> None:
        super().__init__()
        self.now = now

    def handle(self, event: Event, emit: Emit) -> None:
        self.now[0] += 1.5
        super().handle(event, emit)


def test_a_slow_observer_that_keeps_progressing_is_waited_for_and_loses_nothing() -> None:
    now = [0.0]
    slow = Slow(now)
    warnings: list[str] = []
    hub = Hub([slow], warn=warnings.append, max_pending=1000, stall_after=2.0, clock=lambda: now[0])
    hub.start()
    chunks = [b"%03d" % i + b"x" * 597 + b"\n" for i in range(40)]  # 40 frames, 60 s of the observer's time
    for chunk in chunks:
        hub.publish("a2c", 0.0, chunk)
    hub.close()
    assert hub.dropped == {} and warnings == [] and not [e for e in slow.events if isinstance(e, Note)]
    assert [e.data + b"\n" for e in slow.events if isinstance(e, Frame)] == chunks
    assert now[0] == 60.0


def test_a_gap_counts_the_line_it_cuts_and_says_after_which_frame() -> None:
    from rpcspy.pump.forward.hub import Dispatcher

    seen = Collect()
    d = Dispatcher([seen], warn=print)
    d.data("a2c", 0.1, b'{"a":1}\n{"cut')  # a whole frame, then 5 bytes of a line the gap cuts off
    d.dropped("a2c", 0.2, 1000, "the observers fell behind")
    d.data("a2c", 0.3, b'tail"}\n{"b":2}\n')
    (note,) = [e for e in seen.events if isinstance(e, Note)]
    first = [e for e in seen.events if isinstance(e, Frame)][0]
    assert note.dropped_bytes == 1005 and note.dir == "a2c"
    assert f"after frame {first.seq}" in note.text and note.text.startswith("the observers fell behind: ")
    frames = [e.data for e in seen.events if isinstance(e, Frame)]
    assert frames == [b'{"a":1}', b'tail"}', b'{"b":2}']  # recorded 23 B + gap 1005 B = forwarded 1028 B


class Ticks(Collect):
    name = "ticks"

    def tick(self, t: float, emit: Emit) -> None:
        emit(Note(0, t, "info", "overdue"))


def test_tick_reaches_the_observers_that_declare_it_and_skips_the_rest() -> None:
    warnings: list[str] = []
    plain, ticks = Collect(), Ticks()
    assert isinstance(ticks, Ticking) and not isinstance(plain, Ticking)
    d = Dispatcher([plain, ticks], warn=warnings.append)
    d.tick(5.0)
    d.flush()
    d.close()
    assert [(e.text, e.seq) for e in plain.events] == [("overdue", 1)]  # type: ignore[attr-defined]
    assert plain.closed and ticks.closed and warnings == []
