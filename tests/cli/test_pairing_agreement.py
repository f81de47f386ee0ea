"""check, show, stats and export pair responses with commands the same way (issue 11's example).

A client sends ``get_commands`` with an id, then one without; the agent answers the id-less one
first. Every command must see both commands answered, each by its own response.
"""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from rpcspy.cli import main
from tests.cli.test_check_cmd import write_recording
from tests.render.html_data import items

FRAMES = [
    ("c2a", b'{"id":"a","type":"get_commands"}', False),
    ("c2a", b'{"type":"get_commands"}', False),
    ("a2c", b'{"type":"response","command":"get_commands","success":true,"data":{"commands":[]}}', False),
    ("a2c", b'{"id":"a","type":"response","command":"get_commands","success":true,"data":{"commands":[]}}', False),
]


def _run(*args: str) -> str:
    res = CliRunner().invoke(main, list(args), env={"COLUMNS": "200"})
    assert res.exit_code == 0, res.output
    return res.stdout


def test_idless_answer_first_agrees_everywhere(tmp_path: Path) -> None:
    rec = str(write_recording(tmp_path / "pairs.jsonl", FRAMES))
    assert _run("check", rec, "--dialect", "pi-0.84", "--format", "json").strip() == ""
    stats = json.loads(_run("stats", rec, "--format", "json"))
    assert stats["commands"]["get_commands"]["count"] == 2
    assert stats["commands"]["get_commands"]["responses"] == 2
    assert stats["commands"]["get_commands"]["unanswered"] == 0 and stats["unmatched_responses"] == 0
    assert (stats["commands"]["get_commands"]["p50_ms"], stats["commands"]["get_commands"]["max_ms"]) == (500, 1500)
    show = _run("show", rec, "--frames", "--color", "never")
    assert "another response" not in show and "no command waiting" not in show and "not echoed" not in show
    answers = [line for line in show.splitlines() if "← ✓ get_commands" in line]
    assert "(500 ms)" in answers[0] and "#a (1.50 s)" in answers[1]  # #3 answers #2, #4 answers #1
    html = _run("export", rec, "-o", "-")
    rows = [json.dumps(r) for r in items(html)]
    assert rows and not any("another response" in r or "no command waiting" in r or "not echoed" in r for r in rows)
