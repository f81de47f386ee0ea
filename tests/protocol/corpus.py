"""The transcripts in tests/data, decoded once per test session, and the dialect of each corpus."""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

import msgspec

from rpcspy.recording.reader import open_recording
from tests.paths import DATA

CORPORA: dict[str, tuple[str, str]] = {
    # name: (dialect, glob under DATA)
    "pi-0.73.1": ("pi-0.73", "transcripts/structured/[0-9]*.jsonl"),
    "pi-0.87.1": ("pi-0.84", "transcripts087/structured/*.jsonl"),
    "omp-18.2.3": ("omp", "transcripts/structured/O1_*.jsonl"),
}


@dataclass(frozen=True)
class CorpusFrame:
    corpus: str
    file: str
    """Scenario name, e.g. "04_framing_and_errors"."""
    seq: int
    dir: str
    data: bytes
    obj: Any
    """The decoded JSON, or ``NOT_JSON``."""


NOT_JSON = object()


@functools.cache
def frames(corpus: str) -> tuple[CorpusFrame, ...]:
    """Every client and agent frame of one corpus (stderr lines left out)."""
    _, pattern = CORPORA[corpus]
    out = []
    for path in sorted(DATA.glob(pattern)):
        for f in open_recording(path).frames():
            if f.dir == "err":
                continue
            try:
                obj = msgspec.json.decode(f.data)
            except (msgspec.DecodeError, UnicodeDecodeError):
                obj = NOT_JSON
            out.append(CorpusFrame(corpus, path.stem, f.seq, f.dir, bytes(f.data), obj))
    return tuple(out)


def dialect_of(corpus: str) -> str:
    return CORPORA[corpus][0]
