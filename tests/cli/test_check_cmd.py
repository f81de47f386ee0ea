"""``rpcspy check``: formats, exit codes, options, unreadable input (golden files in tests/golden/)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from xml.etree import ElementTree as ET

import pytest
from click.testing import CliRunner

from rpcspy.cli import main
from rpcspy.events import Exit, Frame
from rpcspy.recording.format import encode_entry
from rpcspy.recording.writer import event_line, make_header
from tests.paths import DATA

GOLDEN = Path(__file__).resolve().parents[1] / "golden"
FIELDS = {"file", "seq", "t", "rule", "severity", "group", "message", "frame", "dir", "path", "related", "extra"}

FRAMES = [
    ("c2a", b'{"id":"s","type":"get_state"}', False),
    ("a2c", b'{"id":"s","type":"response","command":"get_state","success":false,"error":"busy"}', False),
    ("c2a", b"", True),  # a lone CR: blank line and CRLF
    ("a2c", b'{"type":"response","command":"parse","success":false,"error":"Failed to parse command"}', False),
    ("c2a", b'{"id":"m","type":"set_steering_mode","mode":"bogus"}', False),
    ("a2c", b'{"id":"m","type":"response","command":"set_steering_mode","success":true}', False),
    ("c2a", b'{"id":"late","type":"get_messages"}', False),
]


def write_recording(path: Path, frames=FRAMES, exit_code: int | None = 0) -> Path:  # type: ignore[no-untyped-def]
    lines = [encode_entry(make_header(["pi", "--mode", "rpc"]))]
    for seq, (direction, data, cr) in enumerate(frames, start=1):
        lines.append(event_line(Frame(seq, seq * 0.5, direction, data, True, cr)))  # type: ignore[arg-type]
    if exit_code is not None:
        lines.append(event_line(Exit(len(frames) + 1, 9.0, exit_code)))
    path.write_bytes(b"".join(lines))
    return path


@pytest.fixture
def rec(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.chdir(tmp_path)
    write_recording(tmp_path / "s.jsonl")
    return "s.jsonl"


def run(*args: str):  # type: ignore[no-untyped-def]
    return CliRunner().invoke(main, ["check", *args], env={"COLUMNS": "100"})


def golden(name: str, text: str) -> None:
    path = GOLDEN / name
    if os.environ.get("RPCSPY_UPDATE_GOLDEN") == "1" or not path.exists():
        path.parent.mkdir(exist_ok=True)
        path.write_text(text)
    assert text == path.read_text(), f"{name} differs; RPCSPY_UPDATE_GOLDEN=1 rewrites it"


def test_text_output_and_exit_code(rec: str) -> None:
    res = run(rec)
    assert res.exit_code == 1, res.output  # an error (bad enum) meets the default --fail-on error
    golden("check_text.txt", res.stdout)
    assert "rpcspy: s.jsonl: dialect auto (not detected:" in res.stderr


def test_json_lines_carry_the_finding_fields(rec: str) -> None:
    res = run(rec, "--format", "json")
    rows = [json.loads(line) for line in res.stdout.splitlines()]
    assert rows and all(set(r) == FIELDS for r in rows)
    by_rule = {r["rule"]: r for r in rows}
    assert by_rule["schema.bad_enum"]["frame"] == 5 and by_rule["schema.bad_enum"]["path"] == "$.mode"
    assert by_rule["correlation.unanswered"]["frame"] == 7 and "exited with code 0" in \
        by_rule["correlation.unanswered"]["message"]
    assert [r["seq"] for r in rows] == list(range(1, len(rows) + 1))


def test_junit(rec: str) -> None:
    res = run(rec, "--format", "junit", "--fail-on", "warning")
    golden("check_junit.xml", res.stdout)
    suite = ET.fromstring(res.stdout).find("testsuite")
    assert suite is not None and suite.get("failures") == "4"  # bad enum; CRLF, blank line, unanswered


@pytest.mark.parametrize("fail_on,code", [("error", 1), ("warning", 1), ("info", 1)])
def test_fail_on(rec: str, fail_on: str, code: int) -> None:
    assert run(rec, "--fail-on", fail_on).exit_code == code


def test_ignore_and_fail_on(rec: str) -> None:
    res = run(rec, "--ignore", "schema.bad_enum", "--format", "json")
    assert res.exit_code == 0 and "schema.bad_enum" not in res.stdout
    assert run(rec, "--ignore", "schema.bad_enum", "--fail-on", "warning").exit_code == 1


def test_clean_recording_exits_zero(tmp_path: Path) -> None:
    path = write_recording(tmp_path / "ok.jsonl", [("c2a", b'{"id":"s","type":"get_state"}', False),
                                                   ("a2c", b'{"id":"s","type":"response","command":"get_state",'
                                                           b'"success":false,"error":"x"}', False)])
    res = run(str(path), "--fail-on", "info")
    assert res.exit_code == 0, res.output
    assert "0 errors, 0 warnings, 0 info in 2 frames" in res.stdout


def test_strict_fields_and_dialect(tmp_path: Path) -> None:
    path = write_recording(tmp_path / "f.jsonl", [("c2a", b'{"type":"set_thinking_level","level":"max","x":1}', False)])
    loose = run(str(path), "--format", "json", "--dialect", "pi-0.84")
    assert loose.exit_code == 0 and '"info"' in loose.stdout and "chosen with --dialect" in loose.stderr
    strict = run(str(path), "--format", "json", "--dialect", "pi-0.84", "--strict-fields", "--fail-on", "warning")
    assert strict.exit_code == 1 and '"warning"' in strict.stdout
    assert run(str(path), "--dialect", "pi-0.73").exit_code == 1  # "max" is not a 0.73 level


def test_unanswered_after(tmp_path: Path) -> None:
    frames = [("c2a", b'{"id":"s","type":"get_state"}', False),
              ("a2c", b'{"type":"queue_update","steering":[],"followUp":[]}', False),
              ("a2c", b'{"type":"queue_update","steering":[],"followUp":[]}', False),
              ("a2c", b'{"id":"s","type":"response","command":"get_state","success":false,"error":"x"}', False)]
    path = write_recording(tmp_path / "u.jsonl", frames)
    assert "correlation.unanswered" not in run(str(path)).stdout
    assert "not answered after 1.0 s" in run(str(path), "--unanswered-after", "0.9").stdout


def test_unreadable_inputs_exit_2(tmp_path: Path, rec: str) -> None:
    (tmp_path / "junk.txt").write_text("hello\n")
    for bad in ("missing.jsonl", "junk.txt", str(tmp_path)):
        res = run(bad)
        assert res.exit_code == 2 and "rpcspy: error:" in res.stderr, (bad, res.output)
    both = run(rec, "missing.jsonl")
    assert both.exit_code == 2 and "s.jsonl" in both.stdout  # the readable one is still checked


def test_usage_errors(rec: str) -> None:
    assert run(rec, "--dialect", "pi-9").exit_code == 2
    res = run(rec, "--ignore", "no.such_rule")
    assert res.exit_code == 2 and "rpcspy rules" in res.output


def test_several_recordings_and_transcripts() -> None:
    res = run(f"{DATA}/transcripts/structured/01_basic_text_prompt.jsonl",
              f"{DATA}/transcripts/05_null_frame_crash.jsonl")
    assert res.exit_code == 1
    assert "misuse.null_frame" in res.stdout and res.stdout.rstrip().splitlines()[-1].startswith("total: 1 error")
    assert "(the agent exited with code 1)" in res.stdout


def test_progress_bar_only_on_a_terminal(rec: str, monkeypatch: pytest.MonkeyPatch) -> None:
    from rpcspy.cli import check_cmd
    from rpcspy.offline.reading import Reading

    seen = []
    real = Reading.events
    monkeypatch.setattr(Reading, "events", lambda r, **kw: (seen.append(r.progress), real(r, **kw))[1])
    run(rec)
    monkeypatch.setattr(check_cmd, "_stderr_is_tty", lambda: True)
    run(rec)
    from rpcspy.cli.recfile import progress_bar

    assert seen == [progress_bar]  # the plain path reads entries directly


@pytest.mark.parametrize("name", ["transcripts/structured/04_framing_and_errors.jsonl",
                                  "transcripts/05_null_frame_crash.jsonl", "transcripts/60_extension_ui.jsonl"])
def test_the_terminal_path_finds_what_the_plain_path_finds(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Events with a progress bar on a terminal, entries as they are otherwise: the same findings."""
    from rpcspy.cli import check_cmd

    plain = run("--format", "json", f"{DATA}/{name}")
    monkeypatch.setattr(check_cmd, "_stderr_is_tty", lambda: True)
    assert run("--format", "json", f"{DATA}/{name}").stdout == plain.stdout and plain.stdout


def test_filters_choose_which_findings_are_reported() -> None:
    t04 = f"{DATA}/transcripts/structured/04_framing_and_errors.jsonl"
    everything = run("--format", "json", t04)
    schema_only = run("--format", "json", "--type", "schema.*", t04)
    early_client = run("--format", "json", "--dir", "client", "--seq", "1..20", t04)
    rules = [json.loads(ln)["rule"] for ln in schema_only.stdout.splitlines()]
    assert rules and all(r.startswith("schema.") for r in rules)
    assert len(rules) < len(everything.stdout.splitlines())
    early = [json.loads(ln) for ln in early_client.stdout.splitlines()]
    assert early and all(f["dir"] == "c2a" and 1 <= f["frame"] <= 20 for f in early)


def test_auto_detects_the_dialect_before_checking(tmp_path: Path) -> None:
    image = b'{"type":"image","source":{"type":"base64","mediaType":"image/png","data":"aGk="}}'
    user = b'{"role":"user","content":[' + image + b'],"timestamp":1}'
    frames = [("c2a", b'{"id":"p","type":"prompt","message":"hi","images":[' + image + b"]}", False),
              ("a2c", b'{"id":"p","type":"response","command":"prompt","success":true}', False),
              ("a2c", b'{"type":"message_start","message":' + user + b"}", False),
              ("a2c", b'{"type":"agent_settled"}', False)]
    res = run(str(write_recording(tmp_path / "d.jsonl", frames)), "--format", "json")
    rows = [json.loads(line) for line in res.stdout.splitlines()]
    missing = [r for r in rows if r["rule"] == "schema.missing_field"]
    assert {r["frame"] for r in missing} == {1, 3}  # the agent's echo too: checked against pi-0.84 throughout
    assert not any("showed the dialect" in r["message"] for r in missing)
    assert "dialect pi-0.84 (frame 4: `agent_settled` event" in res.stderr


def test_messages_name_the_detected_dialect_only() -> None:
    pi087 = run("--seq", "14", f"{DATA}/transcripts087/04_framing_and_errors.jsonl")
    assert "unknown command type 'nope' in pi-0.84" in pi087.stdout
    pi073 = run("--seq", "14", f"{DATA}/transcripts/04_framing_and_errors.jsonl")  # no frame tells pi 0.73
    assert "unknown command type 'nope' in any dialect" in pi073.stdout and "pi-0.73" not in pi073.stdout


def test_schema_findings_on_a_response_name_its_request() -> None:
    res = run("--format", "json", "--seq", "76", f"{DATA}/transcripts/04_framing_and_errors.jsonl")
    rows = [json.loads(line) for line in res.stdout.splitlines()]
    assert rows and all(r["frame"] == 76 and r["group"] == "schema" and r["related"] == 75 for r in rows)


def test_strict_unknown_makes_a_newer_agents_event_fail(tmp_path: Path) -> None:
    path = write_recording(tmp_path / "n.jsonl", [("a2c", b'{"type":"agent_settled","aborted":false}', False),
                                                  ("a2c", b'{"type":"tomorrows_event"}', False)])
    loose = run(str(path), "--format", "json")
    assert loose.exit_code == 0, loose.output
    [line] = [json.loads(ln) for ln in loose.stdout.splitlines()]
    assert (line["rule"], line["severity"], line["frame"]) == ("schema.unknown_agent_type", "info", 2)
    strict = run(str(path), "--format", "json", "--strict-unknown")
    assert strict.exit_code == 1 and '"error"' in strict.stdout
