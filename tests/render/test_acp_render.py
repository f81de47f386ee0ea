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


def test_browse_rows_and_html_export_of_an_acp_session(tmp_path: Path) -> None:
    from rpcspy.browse.model import BrowseModel
    from rpcspy.events import Frame

    path = DATA / "acp" / "omp-18.2.3-acp-permission.jsonl"
    evs = list(events(open_recording(path).entries()))
    frames = {e.seq: e for e in evs if isinstance(e, Frame)}
    m = BrowseModel(frames.get, dialect="acp-v1")
    m.feed(evs)
    texts = [r.text for r in m.rows]
    assert any("permission?" in t for t in texts) and any("assistant" in t for t in texts)
    import subprocess
    import sys

    out = tmp_path / "s.html"
    subprocess.run([sys.executable, "-m", "rpcspy", "export", str(path), "-o", str(out)], check=True,
                   capture_output=True, timeout=120)
    html = out.read_text()
    assert "permission?" in html and "session/request_permission" in html
