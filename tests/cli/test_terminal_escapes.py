"""An agent cannot write into the user's terminal: every command that prints recorded text shows it inert.

The recording (tests/support/hostile_text.py) carries every family of attack in every string an
agent or client controls: field names, ``type`` values, ``stopReason``, commands, ids, tool names,
stderr, notes, a recorded finding's rule, the header's argv. No command form may print a raw C0 or
C1 control, DEL or bidi control (rich's own colour codes aside), recorded ``[markup]`` stays literal
text, and JSON outputs stay valid JSON holding the very same strings.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from rpcspy.cli import main
from rpcspy.inert import inert, inert_json, inert_line, is_inert
from tests.paths import REPO
from tests.support import hostile_text
from tests.support.hostile_text import PAYLOAD, markup_eaten, raw_controls

DEMO = str(REPO / "rpcspy" / "data" / "demo.jsonl")

TEXT_FORMS = {
    "show": ["show"],
    "show --frames": ["show", "--frames"],
    "show --full": ["show", "--full"],
    "show --check": ["show", "--check"],
    "show --color always": ["show", "--color", "always"],
    "show --type (filtered)": ["show", "--grep", "PWNED"],
    "stats": ["stats"],
    "stats --color always": ["stats", "--color", "always"],
    "check": ["check"],
    "check --format text": ["check", "--format", "text"],
    "check --format junit": ["check", "--format", "junit"],
    "why": ["why"],
    "watch --no-follow": ["watch", "--no-follow"],
    "diff": ["diff", DEMO],
    "diff --compat": ["diff", "--compat", DEMO],
    "fixture": ["fixture", "--force", "-o", "{tmp}/fx.jsonl"],
}
JSON_FORMS = {
    "check --format json": ["check", "--format", "json"],
    "stats --format json": ["stats", "--format", "json"],
    "why --format json": ["why", "--format", "json"],
    "diff --format json": ["diff", "--format", "json", DEMO],
    "diff --compat --format json": ["diff", "--compat", "--format", "json", DEMO],
}


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return hostile_text.write(tmp_path_factory.mktemp("hostile") / "hostile.jsonl")


def _run(args: list[str], rec: Path) -> tuple[str, str]:
    args = [a.replace("{tmp}", str(rec.parent)) for a in args]
    res = CliRunner().invoke(main, [*args, str(rec)], env={"COLUMNS": "160"})
    assert res.exception is None or isinstance(res.exception, SystemExit), res.output
    return res.stdout, res.stderr


@pytest.mark.parametrize("form", list(TEXT_FORMS))
def test_text_output_holds_no_raw_control(form: str, hostile: Path) -> None:
    out, err = _run(TEXT_FORMS[form], hostile)
    assert raw_controls(out) == [] and raw_controls(err) == []
    assert not markup_eaten(out + err)
    if form not in ("fixture", "check --format junit"):
        assert "PWNED" in out, "the recorded text is shown (escaped), not dropped"


@pytest.mark.parametrize("form", list(JSON_FORMS))
def test_json_output_is_inert_and_still_the_same_json(form: str, hostile: Path) -> None:
    out, err = _run(JSON_FORMS[form], hostile)
    assert raw_controls(out) == [] and raw_controls(err) == []
    docs = [json.loads(line) for line in out.splitlines() if line.strip()] if "check" in form else [json.loads(out)]
    assert "PWNED" in json.dumps(docs) or form == "stats --format json"
    if form == "diff --format json":
        assert "\x9b38;5;199mF\x9d0;C1PWNED" in json.dumps(docs, ensure_ascii=False), "the same strings, unescaped"


def test_the_junit_report_is_well_formed_xml(hostile: Path) -> None:
    from xml.etree import ElementTree as ET

    out, _ = _run(["check", "--format", "junit"], hostile)
    root = ET.fromstring(out.split("\n", 1)[1])
    assert any("PWNED" in (f.get("message") or "") for f in root.iter("failure"))


def test_replay_reports_divergences_inert(hostile: Path, tmp_path: Path) -> None:
    from rpcspy.cli.replay_cmd import _fake_agent

    r, w = os.pipe()
    os.write(w, json.dumps({"type": "never_recorded" + PAYLOAD, "id": PAYLOAD}).encode() + b"\n")
    os.close(w)
    out, err = tmp_path / "out", tmp_path / "err"
    with out.open("wb") as o, err.open("wb") as e:
        _fake_agent(str(hostile), match="exact", reuse=False, speed=0, strict=False, report=None, record=None,
                    redact=(), usage=False, no_stderr=True, stdio=(r, o.fileno(), e.fileno()))
    os.close(r)
    text = err.read_bytes().decode()
    assert "diverged" in text and "PWNED" in text and raw_controls(text) == []


def test_browse_rows_findings_and_frame_pane_are_inert(hostile: Path) -> None:
    from rpcspy.browse.model import BrowseModel
    from rpcspy.events import Frame
    from rpcspy.recording import open_recording
    from rpcspy.recording.entries import events as to_events

    events = list(to_events(open_recording(hostile).entries()))
    frames = {e.seq: e for e in events if isinstance(e, Frame)}
    m = BrowseModel(frames.get)
    m.feed(events, end=True)
    shown = [row.text for row in m.rows] + [f for row in m.rows for f in row.findings]
    for seq in frames:
        m.unfolded.add(seq)
    for i in range(len(m.lines)):
        m.cursor = i
        shown.append(m.detail())
    assert any("PWNED" in s for s in shown)
    assert [s for s in shown if raw_controls(s)] == []


def test_inert_escapes_every_family_visibly() -> None:
    assert inert("a\x1b]0;t\x07b\n\tc\x9b1m\x7f\u202e\u2066\u200f\u061c\u2028\r\x00") == \
        "a\\e]0;t\\x07b\n\tc\\x9b1m\\x7f\\u202e\\u2066\\u200f\\u061c\\u2028\\r\\x00"
    assert inert_line("a\nb\tc") == "a\\nb\\tc"
    assert inert("\ud800x") == "\\ud800x"  # a lone surrogate (surrogateescape) cannot be written to a terminal
    assert inert("ünïcödé ✓ 日本") == "ünïcödé ✓ 日本" and is_inert("ok\n") and not is_inert("\x9b")
    doc = json.dumps({PAYLOAD: [PAYLOAD, "\ud800"]}, ensure_ascii=False)
    assert is_inert(inert_json(doc)) and json.loads(inert_json(doc)) == json.loads(doc)


def test_the_proxy_live_report_line_is_inert() -> None:
    from rpcspy.checker.report import live_line
    from rpcspy.events import Finding

    f = Finding(seq=1, t=0.5, rule="schema.unknown_field", severity="info", group="schema",
                message=f"unknown field {PAYLOAD!r}", frame=3, dir="a2c", path=f"$.{PAYLOAD}", related=None, extra={})
    line = live_line(f)
    assert "PWNED" in line and raw_controls(line) == []
