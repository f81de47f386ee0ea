"""A recording opened for an offline command: header, dialect, entries, events (see :mod:`rpcspy.offline`)."""

from __future__ import annotations

import os
from collections.abc import Callable, Generator, Iterator
from dataclasses import dataclass
from typing import Any

import msgspec

from rpcspy.checker.offline import recording_dialect, with_checker
from rpcspy.checker.recording import audited
from rpcspy.checker.sides import absent_sides
from rpcspy.events import Event, Frame
from rpcspy.filters import FrameFilter, flagged_seqs
from rpcspy.recording.entries import events
from rpcspy.recording.format import FrameEntry, Header
from rpcspy.recording.reader import Problem, Recording, batched, open_recording

Progress = Callable[[Iterator[msgspec.Struct], int], Iterator[msgspec.Struct]]
"""Wraps a pass over the entries, told the file's size in bytes (:func:`entry_size` measures an entry):
the shell's progress bar, handed in so that nothing here draws one."""


def entry_size(entry: msgspec.Struct) -> int:
    """About how many bytes of the file ``entry`` took (for a progress bar)."""
    if type(entry) is FrameEntry:
        return len(entry.json) + len(entry.text or "") + len(entry.b64 or "") + 60
    return 120


def open_reading(path: str | os.PathLike[str], progress: Progress | None = None) -> Reading:
    """Open a recording or transcript for reading; raises :class:`~rpcspy.recording.RecordingError`."""
    return Reading(open_recording(path), progress)


@dataclass
class Reading:
    """One recording, read as often as a command needs: each method is a pass over the file."""

    rec: Recording
    progress: Progress | None = None
    """Wraps the pass of :meth:`entries` (and so of :meth:`events`); None: no progress shown."""

    @property
    def path(self) -> str:
        return self.rec.path

    @property
    def kind(self) -> str:
        """"rpcspy", "structured-transcript" or "raw-transcript"."""
        return self.rec.kind

    @property
    def header(self) -> Header:
        return self.rec.header

    @property
    def problems(self) -> list[Problem]:
        """The lines the reader skipped so far (reported after the pass that met them)."""
        return self.rec.problems

    def dialect(self, *, refine: bool = True) -> tuple[str, str | None]:
        """The session's dialect and why (a first pass up to the deciding frame); ``("auto", None)``
        when no frame decides. Without ``refine``, enough to pair responses (see
        :func:`~rpcspy.checker.offline.recording_dialect`)."""
        return recording_dialect(self.rec, refine=refine)

    def directions(self) -> set[str]:
        """The directions the frames go in (a transcript: a first pass that stops once both are seen);
        an rpcspy recording holds both by construction."""
        if self.kind == "rpcspy":
            return {"c2a", "a2c"}
        seen: set[str] = set()
        frames = self.rec.frames()
        try:
            for frame in frames:
                seen.add(frame.dir)
                if {"c2a", "a2c"} <= seen:
                    break
        finally:
            frames.close()
        return seen

    def absent_sides(self) -> frozenset[str]:
        """The sides (``c2a``, ``a2c``) a transcript did not record (see :func:`~rpcspy.checker.sides.absent_sides`)."""
        return absent_sides(self.directions(), self.kind == "rpcspy")

    def entries(self) -> Iterator[msgspec.Struct]:
        """Every entry after the header, through the progress wrapper when there is one."""
        if self.progress is None:
            return self.rec.entries()
        return self.progress(self.rec.entries(), os.path.getsize(self.rec.path))

    def frames(self) -> Generator[Frame, None, None]:
        """Only the frames, as events (no progress, no audit)."""
        return self.rec.frames()

    def events(self, *, check: bool = False, dialect: str = "auto",
               on_frame: Callable[[FrameEntry], None] | None = None) -> Iterator[Event]:
        """The entries as events; with ``check``, findings from a fresh checker run (in ``dialect``) instead
        of the recorded ones. The findings about the file itself (recording.*: cut short, damaged, empty,
        no exit) come last. ``on_frame`` is handed each frame entry as it is read (``export`` keeps
        them on its page as they are)."""
        entries = self.entries() if on_frame is None else _tapped(self.entries(), on_frame)
        stream = audited(self.kind, self.problems, events(entries))
        return with_checker(stream, dialect) if check else stream

    def check_blocks(self, frame_json: Callable[[], Any]) -> Iterator[list[Any]]:
        """For ``check``'s one loop (:class:`~rpcspy.checker.offline.RecordingCheck`), the items a list at a
        time: with a progress wrapper, events; else the reader's entries as they are, short frames' JSON
        decoded in the reader's block call as the checker asks (``frame_json``): the shortest path, since
        reading is a large share of the time on long recordings."""
        if self.progress is not None:
            return batched(self.events())
        return self.rec.blocks(frame_json)

    def flagged(self, frame_filter: FrameFilter, *, check: bool = False) -> set[int] | None:
        """For ``--with-findings``, the seqs of the frames findings are about (a first pass); else None."""
        if not frame_filter.only_findings:
            return None
        stream = audited(self.kind, self.problems, events(self.rec.entries()))  # no progress: a first pass
        return flagged_seqs(with_checker(stream) if check else stream)


def _tapped(entries: Iterator[msgspec.Struct], on_frame: Callable[[FrameEntry], None]) -> Iterator[msgspec.Struct]:
    for entry in entries:
        if type(entry) is FrameEntry:
            on_frame(entry)
        yield entry
