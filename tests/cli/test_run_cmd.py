"""`rpcspy run` options that need no agent."""

import subprocess
import sys
from pathlib import Path

from rpcspy.cli.run_cmd import DIALECT_CHOICES
from rpcspy.protocol import DIALECTS
from rpcspy.recording import open_recording
from rpcspy.recording.format import FindingEntry

FAKE = str(Path(__file__).resolve().parents[1] / "pump" / "fake_agent.py")


def test_dialect_choices_match_the_protocol() -> None:
    assert DIALECT_CHOICES == ("auto", *DIALECTS)


def test_unknown_dialect_is_refused() -> None:
    done = subprocess.run([sys.executable, "-m", "rpcspy", "--dialect", "pi-9", "--", "true"], capture_output=True,
                          timeout=30)
    assert done.returncode == 2 and b"pi-9" in done.stderr


def test_live_findings_are_recorded_and_reported(tmp_path: Path) -> None:
    rec = tmp_path / "r.jsonl"
    frames = b'{"id":"a","type":"get_state"}\r\n{"id":"b","type":"bogus"}\n'
    done = subprocess.run([sys.executable, "-m", "rpcspy", "-o", str(rec), "--report", "stderr", "--",
                           sys.executable, FAKE, "respond"], input=frames, capture_output=True, timeout=60)
    assert done.returncode == 0
    findings = [e for e in open_recording(rec).entries() if isinstance(e, FindingEntry)]
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
    assert not [e for e in open_recording(rec).entries() if isinstance(e, FindingEntry)]


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
    time.sleep(3)
    live = [e for e in open_recording(rec).entries()
            if isinstance(e, FindingEntry) and e.rule == "correlation.unanswered"]
    proc.stdin.close()  # type: ignore[union-attr]
    proc.wait(30)
    assert live, "the overdue command was not reported while the session ran"
    assert live[0].dir == "c2a"
