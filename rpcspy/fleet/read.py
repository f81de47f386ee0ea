"""One recording file into one :class:`~rpcspy.fleet.summary.Summary` (pure but for reading the file).

What ``rpcspy stats`` does for one recording, packed into a function a worker process can
run: open the file, detect its dialect as ``check --dialect auto`` does, read its events
(with the findings about the file itself, ``recording.*``) and, with ``check``, findings from
a fresh checker run instead of the recorded ones. An unreadable file is a summary with
``error`` set, never an exception: one bad file does not stop a fleet report.
"""

from __future__ import annotations

from rpcspy.fleet.summary import Summary, summarise
from rpcspy.offline import open_reading
from rpcspy.recording.reader import RecordingError


def summarise_file(path: str, check: bool = False) -> Summary:
    """The summary of the recording at ``path`` (``error`` set when it cannot be read)."""
    try:
        reading = open_reading(path)
        dialect = reading.dialect(refine=False)[0]
        return summarise(path, list(reading.header.argv), dialect, reading.events(check=check, dialect=dialect))
    except RecordingError as exc:
        return Summary(path, error=str(exc))
    except OSError as exc:
        return Summary(path, error=f"cannot read: {exc.strerror or exc}")

