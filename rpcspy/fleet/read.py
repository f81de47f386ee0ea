"""One recording file into one :class:`~rpcspy.fleet.summary.Summary` (pure but for reading the file).

What ``rpcspy stats`` does for one recording, packed into a function a worker process can
run: open the file, detect its dialect as ``check --dialect auto`` does, read its events
(with the findings about the file itself, ``recording.*``) and, with ``check``, findings from
a fresh checker run instead of the recorded ones. An unreadable file is a summary with
``error`` set, never an exception: one bad file does not stop a fleet report.
"""

from __future__ import annotations

from collections.abc import Iterator

from rpcspy.checker.offline import recording_dialect, with_checker
from rpcspy.checker.recording import audited
from rpcspy.events import Event
from rpcspy.fleet.summary import Summary, summarise
from rpcspy.recording import RecordingError, open_recording
from rpcspy.recording.entries import events


def summarise_file(path: str, check: bool = False) -> Summary:
    """The summary of the recording at ``path`` (``error`` set when it cannot be read)."""
    try:
        rec = open_recording(path)
        dialect = recording_dialect(rec, refine=False)[0]
        stream: Iterator[Event] = audited(rec.kind, rec.problems, events(rec.entries()))
        if check:
            stream = with_checker(stream, dialect)
        return summarise(path, list(rec.header.argv), dialect, stream)
    except RecordingError as exc:
        return Summary(path, error=str(exc))
    except OSError as exc:
        return Summary(path, error=f"cannot read: {exc.strerror or exc}")

