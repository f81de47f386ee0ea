"""Recording entries as the events they recorded (pure).

The timeline, stats, the checker and the exporters consume :mod:`rpcspy.events` values,
the same the live pump produces; this module turns a recording's entries into those.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from rpcspy.events import Eof, Event, Exit, Finding, Note, SpawnFailed, Start
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
