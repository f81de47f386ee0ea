"""Where an entry is in its file: the line of each sequence number asked for (pure but for reading the file).

Findings name a frame by its ``seq``; tools that point into files (SARIF's
``region.startLine``, an editor) want a line. Each entry line of a recording starts
``{"kind":"...","seq":N`` (docs/recording-format.md), so one pass over the lines, reading
only their heads, finds them. For a transcript (not rpcspy's format) a frame's number is
its line.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

_SEQ = re.compile(rb'^\{"kind":"[a-z_]+","seq":(\d+)[,}]')


def seq_lines(path: str, seqs: Iterable[int], *, native: bool = True) -> dict[int, int]:
    """``{seq: line}`` (1-based) for the ``seqs`` found in the recording at ``path``."""
    wanted = set(seqs)
    if not native:
        return {s: s for s in wanted if s > 0}
    out: dict[int, int] = {}
    if not wanted:
        return out
    with open(path, "rb") as f:
        for n, line in enumerate(f, start=1):
            m = _SEQ.match(line[:64])
            if m is not None:
                seq = int(m.group(1))
                if seq in wanted:
                    out[seq] = n
                    if len(out) == len(wanted):
                        break
    return out
