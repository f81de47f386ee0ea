"""``rpcspy diff``'s rich view of a diff result, against a golden file."""

from __future__ import annotations

import io
import os
from pathlib import Path

from rich.console import Console

from rpcspy.diff.differ import diff_recordings
from rpcspy.normalise.normaliser import NormaliseOptions, Normaliser
from rpcspy.render.diff import render_diff
from tests.paths import DATA

GOLDEN = Path(__file__).parent / "golden"
N87 = str(DATA / "transcripts087/structured")
N73 = str(DATA / "transcripts/structured")


def norm(**kw) -> Normaliser:
    return Normaliser(NormaliseOptions(**kw), stable=False)


def render(result, width=100) -> str:
    buf = io.StringIO()
    render_diff(result, Console(file=buf, width=width, color_system=None, force_terminal=False), max_items=12)
    return buf.getvalue()


def test_render_golden_pi_073_vs_087():
    res = diff_recordings(f"{N73}/01_basic_text_prompt.jsonl", f"{N87}/01_basic_text_prompt.jsonl",
                          norm(ignore=("partial",)))
    text = render(res).replace(str(DATA) + "/", "DATA/")
    golden = GOLDEN / "diff_01_073_vs_087.txt"
    if os.environ.get("RPCSPY_UPDATE_GOLDEN") == "1" or not golden.exists():
        golden.write_text(text)
    assert text == golden.read_text()
