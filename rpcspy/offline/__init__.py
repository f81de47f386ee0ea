"""Offline reading: one typed pipeline from a recording file to the events a command renders.

:func:`open_reading` opens a recording (or a pi transcript) as a :class:`Reading`: its header,
its dialect (a first pass, as ``check --dialect auto`` takes it), its entries (with a progress
wrapper the shell hands in), its events audited (``recording.*`` findings) and, on demand, with
a fresh checker run, and the events a :class:`~rpcspy.filters.FrameFilter` selects.
``show``, ``stats``, ``export``, ``browse``, ``check`` and ``why`` read through it; the shell
(:mod:`rpcspy.cli`) parses options and renders. Nothing here imports click or rich.
"""

from rpcspy.offline.reading import Progress, Reading, entry_size, open_reading
from rpcspy.offline.select import findings_passing, selected
from rpcspy.recording.lines import seq_lines
from rpcspy.recording.reader import RecordingError

__all__ = ["Progress", "Reading", "RecordingError", "entry_size", "findings_passing", "open_reading", "selected",
           "seq_lines"]
