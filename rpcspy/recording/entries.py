"""Recording entries as the events they recorded (pure).

The timeline, stats, the checker and the exporters consume :mod:`rpcspy.events` values, the
same the live pump produces. A recording's entries are those events already (one hierarchy),
but for frames, read in their stored form (:class:`~rpcspy.recording.format.FrameEntry`), and
entries of a kind this version does not know, which read as a warning note.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import cast

import msgspec

from rpcspy.events import Event, Note
from rpcspy.recording.format import FrameEntry, UnknownEntry


def entry_to_event(entry: msgspec.Struct) -> Event:
    """One recording entry as the event it recorded."""
    if isinstance(entry, FrameEntry):
        return entry.to_frame()
    if isinstance(entry, UnknownEntry):
        return Note(entry.seq, entry.t, "warning", f"entry of unknown kind {entry.kind!r} (written by a newer rpcspy?)")
    return cast(Event, entry)  # the entry is the event


def events(entries: Iterable[msgspec.Struct]) -> Iterator[Event]:
    """Entries as events, streamed."""
    for entry in entries:
        yield entry_to_event(entry)
