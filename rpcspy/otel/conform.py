"""A ``conform`` case's transcript as one trace: its frames, the checker's findings, the verdict."""

from __future__ import annotations

from collections import defaultdict

import msgspec

from rpcspy.conform.script import Transcript, Verdict
from rpcspy.events import Event, Exit, Finding, Start
from rpcspy.otel.ids import TraceParent
from rpcspy.otel.mapper import SpanMapper
from rpcspy.otel.spans import SpanRecord


def case_events(transcript: Transcript, argv: list[str]) -> list[Event]:
    """The transcript as a session's events: a start, each frame followed by its findings, the exit."""
    by_frame: dict[int | None, list[Finding]] = defaultdict(list)
    for finding in transcript.findings:
        by_frame[finding.frame].append(finding)
    events: list[Event] = [Start(0, 0.0, 0, list(argv))]
    last = 0.0
    for frame in transcript.frames:
        events.append(frame)
        events += [msgspec.structs.replace(f, t=frame.t) for f in by_frame.pop(frame.seq, ())]
        last = frame.t
    events += [f for found in by_frame.values() for f in found]
    code = transcript.exit_code if transcript.exit_code is not None else 0
    events.append(Exit(len(transcript.frames) + 1, last, code if code >= 0 else 128 - code))
    return events


def case_spans(case_id: str, verdict: Verdict, transcript: Transcript, argv: list[str], *, started: float,
               content: bool = False, parent: TraceParent | None = None) -> list[SpanRecord]:
    """The spans of one case (its session span names the case and carries the verdict)."""
    mapper = SpanMapper(started, content=content, parent=parent,
                        session_attrs={"rpcspy.conform.case": case_id, "rpcspy.conform.verdict": verdict.status,
                                       "rpcspy.conform.detail": verdict.detail})
    spans: list[SpanRecord] = []
    for event in case_events(transcript, argv):
        spans += mapper.feed(event)
    spans += mapper.finish()
    return spans
