"""A file that holds one side of a session (agent stdout from `tee` or a client's log, or the client's lines
alone): the rules that need the other side are skipped, and the report says so (issue 22)."""

from __future__ import annotations

import json
from pathlib import Path
from xml.etree import ElementTree as ET

from click.testing import CliRunner

from rpcspy.checker.rules import RULES
from rpcspy.checker.sides import NEED_AGENT, NEED_CLIENT, absent_sides
from rpcspy.cli import main
from rpcspy.recording import open_recording

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "recordings" / "pi-1.6.0-basic.jsonl"


def _side(tmp_path: Path, direction: str, prefix: bytes = b"") -> Path:
    out = tmp_path / f"{direction}.txt"
    out.write_bytes(b"".join(prefix + f.data + b"\n" for f in open_recording(SAMPLE).frames() if f.dir == direction))
    return out


def test_agent_stdout_alone_is_not_blamed_for_commands_it_cannot_show(tmp_path: Path) -> None:
    stdout = _side(tmp_path, "a2c")
    dialog = b'{"type":"extension_ui_request","id":"d1","method":"confirm","title":"ok?","message":"?"}\n'
    stdout.write_bytes(stdout.read_bytes() + dialog)
    r = CliRunner().invoke(main, ["check", str(stdout)])
    assert r.exit_code == 0, r.output
    findings, note = r.output.split("note:", 1)
    assert "correlation.unknown_id" not in findings and "ui_unanswered" not in findings
    assert "note: one-sided: the file holds no frame of the client's (c2a) side" in r.output
    assert "correlation.unknown_id" in note  # named among the rules skipped


def test_client_lines_alone_are_not_blamed_for_missing_answers(tmp_path: Path) -> None:
    stdin = _side(tmp_path, "c2a", b">> ")
    r = CliRunner().invoke(main, ["check", "--fail-on", "warning", str(stdin)])
    assert r.exit_code == 0, r.output
    assert "correlation.unanswered" in r.output.split("note:", 1)[1]
    assert "holds no frame of the agent's (a2c) side" in r.output


def test_json_keeps_one_finding_a_line_and_says_it_on_stderr(tmp_path: Path) -> None:
    r = CliRunner().invoke(main, ["check", "--format", "json", str(_side(tmp_path, "a2c"))])
    assert r.exit_code == 0
    assert all(json.loads(line)["rule"] != "correlation.unknown_id" for line in r.stdout.splitlines())
    assert "one-sided" in r.stderr and "one-sided" not in r.stdout


def test_junit_carries_the_note(tmp_path: Path) -> None:
    r = CliRunner().invoke(main, ["check", "--format", "junit", str(_side(tmp_path, "a2c"))])
    props = {p.get("value") for p in ET.fromstring(r.stdout).iter("property") if p.get("name") == "note"}
    assert len(props) == 1 and next(iter(props)).startswith("one-sided")


def test_both_sides_or_a_recording_skip_nothing(tmp_path: Path) -> None:
    assert absent_sides({"c2a", "a2c"}, both_recorded=False) == frozenset()
    assert absent_sides({"a2c"}, both_recorded=True) == frozenset()  # the proxy records both by construction
    assert absent_sides(set(), both_recorded=False) == frozenset()
    r = CliRunner().invoke(main, ["check", str(SAMPLE)])
    assert "one-sided" not in r.output
    # a two-sided transcript still has its answers judged: an id nobody sent is the agent's fault
    both = tmp_path / "both.txt"
    both.write_bytes(b'>> {"id":"a","type":"get_state"}\n'
                     b'{"id":"zz","type":"response","command":"get_state","success":false,"error":"x"}\n')
    assert "correlation.unknown_id" in CliRunner().invoke(main, ["check", str(both)]).output


def test_the_skipped_rules_exist() -> None:
    assert NEED_CLIENT <= RULES.keys() and NEED_AGENT <= RULES.keys()


def test_why_on_agent_stdout_does_not_wait_for_answers_it_cannot_see(tmp_path: Path) -> None:
    stdout = _side(tmp_path, "a2c")
    dialog = b'{"type":"extension_ui_request","id":"d1","method":"confirm","title":"ok?","message":"?"}\n'
    stdout.write_bytes(stdout.read_bytes() + dialog)
    r = CliRunner().invoke(main, ["why", str(stdout)])
    assert r.exit_code == 0, r.output
    assert "nothing outstanding" in r.output and "holds no frame of the client's side (c2a)" in r.output


def test_why_on_client_lines_alone_does_not_blame_the_agent(tmp_path: Path) -> None:
    r = CliRunner().invoke(main, ["why", str(_side(tmp_path, "c2a", b">> "))])
    assert r.exit_code == 0, r.output
    assert "has had no response" not in r.output and "holds no frame of the agent's side (a2c)" in r.output
