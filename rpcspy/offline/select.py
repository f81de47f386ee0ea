"""What a frame filter keeps of a recording's events, and of ``check``'s findings (the one loop of each)."""

from __future__ import annotations

from collections.abc import Container, Iterable, Iterator

from rpcspy.events import Event, Finding, Frame
from rpcspy.filters import FrameFilter, frame_keys
from rpcspy.recording.reader import RecordingError, open_recording


def selected(events: Iterable[Event], frame_filter: FrameFilter, flagged: Container[int] | None = None) -> Iterator[Event]:
    """The events ``frame_filter`` keeps: the frames it passes (``flagged``: for ``--with-findings``, the
    seqs findings are about), the findings about a kept frame or, about none, those it passes itself, and
    the other events it passes (none under ``--with-findings``). Without an active filter, all of them."""
    if not frame_filter.active:
        yield from events
        return
    kept: set[int] = set()
    for event in events:
        if isinstance(event, Frame):
            if not frame_filter.match_frame(event, flagged=flagged):
                continue
            kept.add(event.seq)
        elif isinstance(event, Finding):
            if event.frame is not None and event.frame not in kept:
                continue
            if event.frame is None and not frame_filter.match_finding(event):
                continue
        elif not frame_filter.match_event(event) and not frame_filter.only_findings:
            continue
        yield event


def findings_passing(frame_filter: FrameFilter, findings: list[Finding],
                     path: str) -> tuple[list[Finding], str | None]:
    """The findings ``check`` reports under the filter, and a warning when the frames could not be read.

    ``--type`` also matches the type or command of the frame a finding is about, and ``--where``
    passes a finding whose frame passes it (then the recording is read a second time).
    """
    if not frame_filter.active:
        return findings, None
    keys: dict[int, tuple[str, ...]] = {}
    about = {f.frame for f in findings if f.frame is not None}
    problem = None
    if (frame_filter.types or frame_filter.where is not None) and about:
        try:
            keys = frame_keys(open_recording(path).frames(), about, frame_filter.where)
        except (OSError, RecordingError) as exc:
            problem = f"{path}: cannot read frame types: {exc}"
    kept = [f for f in findings if frame_filter.match_finding(f, keys.get(f.frame, ()) if f.frame is not None else (),
                                                              f.frame in keys)]
    return kept, problem
