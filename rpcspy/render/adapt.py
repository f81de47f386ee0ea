"""Recording entries as events, and running the checker over them (pure iterators).

The timeline, stats and exporters consume :mod:`rpcspy.events` values, the same
the live pump produces; this module turns a recording's entries into those.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from rpcspy.events import Eof, Event, Exit, Finding, Frame, Note, SpawnFailed, Start
from rpcspy.recording.format import (
    EofEntry,
    ExitEntry,
    FindingEntry,
    FrameEntry,
    NoteEntry,
    SpawnFailedEntry,
    StartEntry,
    UnknownEntry,
)


def entry_to_event(entry: Any) -> Event:
    """One recording entry as the event it recorded."""
    if isinstance(entry, FrameEntry):
        return entry.to_frame()
    if isinstance(entry, FindingEntry):
        return Finding(entry.seq, entry.t, entry.rule, entry.severity, entry.group, entry.message,  # type: ignore[arg-type]
                       entry.frame, entry.dir, entry.path, entry.related, dict(entry.extra))
    if isinstance(entry, StartEntry):
        return Start(entry.seq, entry.t, entry.pid, list(entry.argv))
    if isinstance(entry, ExitEntry):
        return Exit(entry.seq, entry.t, entry.code, entry.signal)
    if isinstance(entry, EofEntry):
        return Eof(entry.seq, entry.t, entry.dir)
    if isinstance(entry, NoteEntry):
        level = entry.level if entry.level in ("info", "warning", "error") else "info"
        return Note(entry.seq, entry.t, level, entry.text, entry.dir, entry.dropped_bytes)  # type: ignore[arg-type]
    if isinstance(entry, SpawnFailedEntry):
        return SpawnFailed(entry.seq, entry.t, entry.error, entry.code)
    if isinstance(entry, UnknownEntry):
        return Note(entry.seq, entry.t, "warning", f"entry of unknown kind {entry.kind!r} (written by a newer rpcspy?)")
    raise TypeError(f"not a recording entry: {entry!r}")


def events(entries: Iterable[Any]) -> Iterator[Event]:
    """Entries as events, streamed."""
    for entry in entries:
        yield entry_to_event(entry)


class CheckerUnavailable(RuntimeError):
    """The checker module is not part of this build."""


def with_checker(stream: Iterable[Event], dialect: str = "auto") -> Iterator[Event]:
    """Run the checker: recorded findings are dropped, fresh ones follow their frames."""
    try:
        from rpcspy.checker import Checker
    except ImportError as exc:
        raise CheckerUnavailable(f"the checker is not available: {exc}") from None
    checker = Checker(dialect=dialect)
    last_t = 0.0
    exit_code: int | None = None
    for event in stream:
        if isinstance(event, Finding):
            continue
        last_t = event.t
        if isinstance(event, Exit):
            exit_code = event.code
        yield event
        if isinstance(event, Frame):
            yield from checker.feed(event)
    yield from checker.finish(last_t, exit_code=exit_code)
