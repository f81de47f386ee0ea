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
