"""Golden-file tests: the text timeline (and stats) of every recording we keep.

Inputs: every ``*.jsonl`` in the top-level ``recordings/`` directory (real
sessions), the transcripts copied into ``tests/golden/inputs/``, and the
generated sample in :mod:`tests.render.sample`. Each is rendered into a
100-column console with no colour and compared with ``tests/golden/timeline/<name>.txt``;
the stats report with ``tests/golden/stats/<name>.json``.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from rich.console import Console

from rpcspy.recording import open_recording
from rpcspy.recording.entries import events
from rpcspy.render.text import print_timeline
from rpcspy.render.timeline import Timeline
from rpcspy.stats import Stats
from tests.render.sample import write_sample

ROOT = Path(__file__).resolve().parents[2]
INPUTS = sorted((ROOT / "tests" / "golden" / "inputs").glob("*.jsonl"))
RECORDINGS = sorted((ROOT / "recordings").glob("*.jsonl")) if (ROOT / "recordings").is_dir() else []
CASES = [pytest.param(p, p.stem, id=p.stem) for p in INPUTS]
CASES += [pytest.param(p, f"recordings-{p.stem}", id=f"recordings-{p.stem}") for p in RECORDINGS]


def render(path: Path, *, coalesce: bool = True) -> str:
    """The timeline of a recording as ``rpcspy show`` prints it in a 100-column pipe (no header)."""
    out = io.StringIO()
    console = Console(file=out, width=100, color_system=None)
    counts = print_timeline(console, events(open_recording(path).entries()), Timeline(coalesce=coalesce))
    console.print(counts.line())
    return out.getvalue()


def stats_json(path: Path) -> str:
    stats = Stats()
    for event in events(open_recording(path).entries()):
        stats.feed(event)
    return json.dumps(stats.report(), indent=2) + "\n"


@pytest.fixture(scope="module")
def sample(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_sample(tmp_path_factory.mktemp("sample") / "sample.jsonl")


@pytest.mark.parametrize(("path", "name"), CASES)
def test_timeline_matches_golden(path: Path, name: str, golden) -> None:
    golden(f"timeline/{name}.txt", render(path))


@pytest.mark.parametrize(("path", "name"), CASES)
def test_stats_match_golden(path: Path, name: str, golden) -> None:
    golden(f"stats/{name}.json", stats_json(path))


def test_sample_timeline(sample: Path, golden) -> None:
    golden("timeline/sample.txt", render(sample))


def test_sample_frames(sample: Path, golden) -> None:
    golden("timeline/sample.frames.txt", render(sample, coalesce=False))


def test_frames_mode_of_a_stream(golden) -> None:
    golden("timeline/pi073_02_tool_call.frames.txt", render(ROOT / "tests/golden/inputs/pi073_02_tool_call.jsonl",
                                                           coalesce=False))


def test_sample_stats(sample: Path, golden) -> None:
    golden("stats/sample.json", stats_json(sample))


def test_no_stale_golden_files() -> None:
    """A golden file whose input was removed or renamed is stale."""
    known = {p.stem for p in INPUTS} | {f"recordings-{p.stem}" for p in RECORDINGS} | {"sample"}
    known |= {f"acp-{p.stem}" for p in (ROOT / "tests" / "data" / "acp").glob("*.jsonl")}  # test_acp_render.py
    for sub in ("timeline", "stats"):
        for out in (ROOT / "tests" / "golden" / sub).iterdir():
            stem = out.name.removesuffix(".txt").removesuffix(".json").removesuffix(".frames")
            assert stem in known, f"golden file {out.relative_to(ROOT)} has no input recording"
