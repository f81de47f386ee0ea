"""`rpcspy run` options that need no agent."""

import os
import subprocess
import sys
from pathlib import Path

from rpcspy.cli.run_cmd import DIALECT_CHOICES
from rpcspy.events import Finding
from rpcspy.protocol import DIALECTS
from rpcspy.recording import open_recording
from tests.pump import proxyrun

FAKE = str(Path(__file__).resolve().parents[1] / "pump" / "fake_agent.py")


def test_dialect_choices_match_the_protocol() -> None:
    assert DIALECT_CHOICES == ("auto", *DIALECTS)


def test_unknown_dialect_is_refused() -> None:
    done = subprocess.run([sys.executable, "-m", "rpcspy", "--dialect", "pi-9", "--", "true"], capture_output=True,
                          timeout=30)
    assert done.returncode == 2 and b"pi-9" in done.stderr


def test_gap_after_is_checked_and_read_from_the_environment() -> None:
    for opts, env in (["--gap-after", "-1"], {}), ([], {"RPCSPY_GAP_AFTER": "-1"}):
        done = subprocess.run([sys.executable, "-m", "rpcspy", "--no-record", *opts, "--", "true"],
                              capture_output=True, timeout=30, env={**os.environ, **env})
        assert done.returncode == 2 and b"--gap-after" in done.stderr, done.stderr
    ok = subprocess.run([sys.executable, "-m", "rpcspy", "--no-record", "--", "true"], capture_output=True,
                        timeout=30, env={**os.environ, "RPCSPY_GAP_AFTER": "0"})
    assert ok.returncode == 0, ok.stderr


def test_live_findings_are_recorded_and_reported(tmp_path: Path) -> None:
    rec = tmp_path / "r.jsonl"
    frames = b'{"id":"a","type":"get_state"}\r\n{"id":"b","type":"bogus"}\n'
    done = subprocess.run([sys.executable, "-m", "rpcspy", "-o", str(rec), "--report", "stderr", "--",
                           sys.executable, FAKE, "respond"], input=frames, capture_output=True, timeout=60)
    assert done.returncode == 0
    findings = [e for e in open_recording(rec).entries() if isinstance(e, Finding)]
    crlf = next(f for f in findings if f.rule == "framing.crlf")
    unknown = next(f for f in findings if f.rule == "schema.unknown_type")
    assert (crlf.frame, crlf.dir) == (2, "c2a")
    assert unknown.severity == "error" and unknown.dir == "c2a"
    err = done.stderr.decode()
    assert "framing.crlf" in err and "schema.unknown_type" in err
    assert "protocol check:" in err  # the one-line summary at exit, since there were errors


def test_no_check_records_no_findings(tmp_path: Path) -> None:
    rec = tmp_path / "r.jsonl"
    done = subprocess.run([sys.executable, "-m", "rpcspy", "-o", str(rec), "--no-check", "--",
                           sys.executable, FAKE, "respond"], input=b'{"type":"bogus"}\n', capture_output=True,
                          timeout=60)
    assert done.returncode == 0 and b"protocol check" not in done.stderr
    assert not [e for e in open_recording(rec).entries() if isinstance(e, Finding)]


def test_unanswered_command_is_reported_live(tmp_path: Path) -> None:
    """--unanswered-after reports while the session is still running, not only at its end."""
    import time

    rec = tmp_path / "r.jsonl"
    proc = subprocess.Popen([sys.executable, "-m", "rpcspy", "-o", str(rec), "--unanswered-after", "0.5",
                             "--report", "stderr", "--", sys.executable, FAKE, "pid"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout.readline().startswith(b'{"pid"')  # type: ignore[union-attr]
    proc.stdin.write(b'{"id":"lost","type":"get_state"}\n')  # type: ignore[union-attr]
    proc.stdin.flush()  # type: ignore[union-attr]
    deadline = time.monotonic() + 60  # the agent never answers: the finding comes while it runs, however slowly
    while True:
        live = [e for e in open_recording(rec).entries()
                if isinstance(e, Finding) and e.rule == "correlation.unanswered"]
        if live or time.monotonic() > deadline:
            break
        time.sleep(0.1)
    assert proc.poll() is None  # still running: the report was live
    proc.stdin.close()  # type: ignore[union-attr]
    proc.wait(30)
    assert live, "the overdue command was not reported while the session ran"
    assert live[0].dir == "c2a"


# ---- live checking options ------------------------------------------------------------------------
_PI = """
import json, sys
for line in sys.stdin:
    c = json.loads(line)
    print(json.dumps({"id": c.get("id"), "type": "response", "command": c.get("type"), "success": False,
                      "error": "no"}), flush=True)
    if c.get("type") == "prompt":
        print('{"type":"agent_settled"}', flush=True)
"""
"""A clean little agent: an error response to every command; `agent_settled` (pi >= 0.84) after a prompt."""
PI = [sys.executable, "-c", _PI]
CRLF_AND_BOGUS = b'{"id":"a","type":"get_state"}\r\n{"id":"b","type":"bogus"}\n'


def _findings(rec: Path) -> list[Finding]:
    return [e for e in open_recording(rec).entries() if isinstance(e, Finding)]


def test_report_to_a_file(tmp_path: Path) -> None:
    rec, report = tmp_path / "r.jsonl", tmp_path / "report.txt"
    done = proxyrun.run(rec, proxyrun.fake("respond"), CRLF_AND_BOGUS, "--report", str(report))
    assert done.returncode == 0
    text = report.read_text()
    assert "warning framing.crlf at frame 2 c2a" in text and "error schema.unknown_type" in text
    err = done.stderr.decode()
    assert "framing.crlf" not in err and "protocol check: " in err  # stderr gets the summary only


def test_report_level_hides_lesser_findings_but_records_them(tmp_path: Path) -> None:
    rec = tmp_path / "r.jsonl"
    done = proxyrun.run(rec, proxyrun.fake("respond"), CRLF_AND_BOGUS, "--report", "stderr", "--report-level", "error")
    err = done.stderr.decode()
    assert "schema.unknown_type" in err and "framing.crlf" not in err
    assert {"framing.crlf", "schema.unknown_type"} <= {f.rule for f in _findings(rec)}


def test_no_summary_without_errors(tmp_path: Path) -> None:
    rec = tmp_path / "r.jsonl"
    done = proxyrun.run(rec, PI, b'{"id":"a","type":"get_state"}\r\n')
    assert done.returncode == 0 and b"rpcspy:" not in done.stderr, done.stderr
    assert [(f.rule, f.severity) for f in _findings(rec)] == [("framing.crlf", "warning")]


def test_ignore_live(tmp_path: Path) -> None:
    rec = tmp_path / "r.jsonl"
    done = proxyrun.run(rec, proxyrun.fake("respond"), CRLF_AND_BOGUS, "--report", "stderr", "--ignore", "framing.crlf")
    assert b"framing.crlf" not in done.stderr and b"schema.unknown_type" in done.stderr
    rules = {f.rule for f in _findings(rec)}
    assert "framing.crlf" not in rules and "schema.unknown_type" in rules


def test_strict_fields_live(tmp_path: Path) -> None:
    line = b'{"id":"a","type":"get_state","bogus":1}\n'
    for opts, severity in (((), "info"), (("--strict-fields",), "warning")):
        rec = tmp_path / f"{severity}.jsonl"
        proxyrun.run(rec, PI, line, *opts)
        assert [(f.rule, f.severity) for f in _findings(rec)] == [("schema.unknown_field", severity)]


def test_dialect_live(tmp_path: Path) -> None:
    line = b'{"id":"a","type":"set_thinking_level","level":"max"}\n'  # "max" is new in pi 0.84
    old, new = tmp_path / "old.jsonl", tmp_path / "new.jsonl"
    done = proxyrun.run(old, PI, line, "--dialect", "pi-0.73", "--report", "stderr")
    assert [f.rule for f in _findings(old)] == ["schema.bad_enum"]
    assert b"dialect pi-0.73 (chosen with --dialect)" in done.stderr
    proxyrun.run(new, PI, line, "--dialect", "pi-0.84")
    assert _findings(new) == []


def test_client_frames_before_detection_are_checked_live(tmp_path: Path) -> None:
    rec = tmp_path / "r.jsonl"
    image = b'{"type":"image","source":{"type":"base64","mediaType":"image/png","data":"aGk="}}'
    done = proxyrun.run(rec, PI, b'{"id":"p","type":"prompt","message":"hi","images":[' + image + b"]}\n",
                        "--report", "stderr")
    [prompt] = [e.seq for e in open_recording(rec).frames() if e.dir == "c2a"]
    late = [f for f in _findings(rec) if f.rule == "schema.missing_field"]
    assert late and all(f.frame == prompt and "showed the dialect pi-0.84" in f.message for f in late)
    assert b"schema.missing_field at frame %d" % prompt in done.stderr


def test_tmp_dir_still_runs_and_says_it_does_nothing(tmp_path: Path) -> None:
    """An old command line with --tmp-dir (or RPCSPY_TMPDIR set) still proxies and records byte for byte, and
    stderr says once, naming what the user set, that it does nothing any more; nothing is written there."""
    frames = b'{"id":"a","type":"get_state"}\n'
    unused = tmp_path / "tmp"
    unused.mkdir()
    for opts, env, named in ((["--tmp-dir", str(unused)], {}, b"--tmp-dir"),
                             ([], {"RPCSPY_TMPDIR": str(unused)}, b"RPCSPY_TMPDIR")):
        rec = tmp_path / f"{named.decode().strip('-')}.jsonl"
        done = proxyrun.run(rec, [sys.executable, FAKE, "echo"], frames, *opts, env=env)
        assert done.returncode == 0 and done.stdout == frames, done.stderr
        warnings = [line for line in done.stderr.splitlines() if b"TMPDIR" in line or b"tmp-dir" in line]
        assert warnings == [b"rpcspy: warning: " + named + b" no longer does anything: rpcspy keeps no tape, spool "
                            b"or other temporary file any more (bytes are copied straight from the agent to the "
                            b"client); drop it"]
        assert [f.raw() for f in open_recording(rec).frames() if f.dir == "c2a"] == [frames]
    assert list(unused.iterdir()) == []
    quiet = proxyrun.run(tmp_path / "q.jsonl", [sys.executable, FAKE, "echo"], frames)
    assert b"no longer does anything" not in quiet.stderr, quiet.stderr
