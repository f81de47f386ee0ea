"""The live checker's fast lane: the same findings, numbered the same, as the plain checker fed frame by frame."""

from __future__ import annotations

import copy as copying
import dataclasses
import glob

import msgspec
import pytest

from rpcspy.checker import Checker, detect_dialect
from rpcspy.events import Event, Exit, Finding, Frame, Note
from rpcspy.pump.forward.hub import Dispatcher, Emit
from rpcspy.pump.observers.check_observer import CheckObserver, CheckOptions
from rpcspy.recording import open_recording
from tests.paths import DATA

PATHS = sorted(glob.glob(f"{DATA}/transcripts/**/*.jsonl", recursive=True) +
               glob.glob(f"{DATA}/transcripts087/**/*.jsonl", recursive=True))


class Plain:
    """The reference: :meth:`Checker.feed` for every frame, no lane."""

    name = "plain"

    def __init__(self, options: CheckOptions) -> None:
        self.checker = Checker(dialect=options.dialect, unanswered_after=options.unanswered_after)

    def handle(self, event: Event, emit: Emit) -> None:
        if type(event) is Frame:
            found = self.checker.feed(event)
        elif isinstance(event, Exit):
            found = self.checker.finish(event.t, exit_code=event.code)
        elif isinstance(event, Note) and event.dropped_bytes:
            found = self.checker.gap(event.t, event.seq, event.dir, event.dropped_bytes, event.text)
        else:
            return
        for f in found:
            emit(f)

    def flush(self) -> None:
        pass

    def close(self) -> None:
        pass


class Collect:
    name = "collect"

    def __init__(self) -> None:
        self.events: list[Event] = []

    def handle(self, event: Event, emit: Emit) -> None:
        self.events.append(event)

    def handle_batch(self, events: list[Event]) -> None:
        self.events += events

    def flush(self) -> None:
        pass

    def close(self) -> None:
        pass


def session(path: str, gap_at: int | None) -> list[Event]:
    """The transcript's frames, a gap note after frame ``gap_at``, and the agent's exit."""
    out: list[Event] = []
    for frame in open_recording(path).frames():
        out.append(frame)
        if len(out) == gap_at:
            out.append(Note(0, frame.t, "warning", "test gap", dir="a2c", dropped_bytes=10))
    out.append(Exit(0, out[-1].t + 1.0 if out else 0.0, 0))
    return out


def run(observer: object, events: list[Event]) -> list[tuple[object, ...]]:
    collect = Collect()
    dispatcher = Dispatcher([observer, collect], warn=pytest.fail)  # type: ignore[list-item]
    for event in events:
        dispatcher.event(event)
        while dispatcher.behind:  # the live check is given time after every event: caught up, as plain
            dispatcher.work()
    return [(type(e).__name__, *_fields(e)) for e in collect.events]


def _fields(event: Event) -> tuple:
    """An event's fields in order: a Frame is a dataclass, the other events are msgspec Structs."""
    if isinstance(event, msgspec.Struct):
        return msgspec.structs.astuple(event)
    return dataclasses.astuple(event)


def copy(events: list[Event]) -> list[Event]:
    return [copying.copy(e) for e in events]  # the dispatcher renumbers events in place


@pytest.mark.parametrize("timed", [None, 0.5])
@pytest.mark.parametrize("gap", [False, True])
@pytest.mark.parametrize("path", PATHS, ids=lambda p: p.split("data/")[-1])
def test_lane_findings_and_their_seq_match_the_plain_checker(path: str, gap: bool, timed: float | None) -> None:
    events = session(path, 40 if gap else None)
    for dialect in {"auto", (detect_dialect(open_recording(path).frames()) or ("auto",))[0]}:
        options = CheckOptions(dialect=dialect, unanswered_after=timed, summary_fd=-1)
        live = CheckObserver(options)
        got = run(live, copy(events))
        want = run(Plain(options), copy(events))
        assert got == want
        assert any(e[0] == "Finding" for e in want) or "structured" in path


def test_the_lane_takes_most_agent_frames() -> None:
    """Without the lane every frame would reach Checker.feed."""
    path = f"{DATA}/transcripts087/structured/10_streaming_steer_followup_queue.jsonl"
    live = CheckObserver(CheckOptions(summary_fd=-1))
    fed = 0
    feed = live.checker.feed

    def counting(frame: Frame, *typed: object) -> list[Finding]:
        nonlocal fed
        fed += 1
        return feed(frame, *typed)

    live.checker.feed = counting  # type: ignore[method-assign]
    events = session(path, None)
    frames = sum(type(e) is Frame for e in events)
    run(live, events)
    assert 0 < fed <= frames - frames // 4, (fed, frames)  # here 87 of 140
