"""ACP sessions rendered: `show`'s timeline (chunks coalesced, tool calls with their updates, permission
dialogs, answers paired) and `stats` (requests both ways, prompt turns), golden files of tests/data/acp/."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from rich.console import Console

from rpcspy.recording import open_recording
from rpcspy.recording.entries import events
from rpcspy.render.acp_timeline import AcpTimeline, timeline_for
from rpcspy.render.text import print_timeline
from rpcspy.render.timeline import Timeline
from rpcspy.stats import Stats
from tests.paths import DATA

RECORDINGS = sorted((DATA / "acp").glob("*.jsonl"))


def render(path: Path, *, coalesce: bool = True) -> str:
    out = io.StringIO()
    console = Console(file=out, width=100, color_system=None)
    counts = print_timeline(console, events(open_recording(path).entries()), timeline_for("acp-v1", coalesce=coalesce))
    console.print(counts.line())
    return out.getvalue()


@pytest.mark.parametrize("path", RECORDINGS, ids=[p.stem for p in RECORDINGS])
def test_timeline_matches_golden(path: Path, golden) -> None:  # type: ignore[no-untyped-def]
    golden(f"timeline/acp-{path.stem}.txt", render(path))


@pytest.mark.parametrize("path", RECORDINGS, ids=[p.stem for p in RECORDINGS])
def test_stats_match_golden(path: Path, golden) -> None:  # type: ignore[no-untyped-def]
    stats = Stats(dialect="acp-v1")
    for event in events(open_recording(path).entries()):
        stats.feed(event)
    golden(f"stats/acp-{path.stem}.json", json.dumps(stats.report(), indent=2) + "\n")


def test_the_dialect_picks_the_timeline() -> None:
    assert type(timeline_for("acp-v1")) is AcpTimeline and type(timeline_for("omp")) is Timeline
    assert type(timeline_for(None)) is Timeline


def test_chunks_coalesce_and_answers_pair() -> None:
    text = render(DATA / "acp" / "omp-18.2.3-acp-permission.jsonl")
    assert "assistant  3 chunks" in text and "Hello" in text
    assert "permission? #0" in text and "✓ session/request_permission #0" in text
    assert "✓ session/prompt #3" in text and "end_turn" in text
    frames = render(DATA / "acp" / "omp-18.2.3-acp-permission.jsonl", coalesce=False)
    assert frames.count("agent_message_chunk") == 5
