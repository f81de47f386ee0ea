"""A gap in a recording (bytes forwarded but not recorded) is a finding, offline and live."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from rpcspy.checker import Checker

HEADER = {"format": "rpcspy-recording", "version": 1, "rpcspy": "0.1.0", "argv": ["pi", "--mode", "rpc"],
          "cwd": "/", "started": "2026-11-24T00:00:00Z", "started_unix": 0.0, "pid": 1, "mode": "proxy",
          "source": None}


def test_gap_is_a_warning_with_its_size() -> None:
    (finding,) = Checker().gap(1.5, 7, "a2c", 4096, "the observers fell behind")
    assert finding.rule == "checker.gap" and finding.severity == "warning"
    assert finding.frame == 7 and finding.dir == "a2c" and finding.extra == {"bytes": 4096}


def _write(path: Path, entries: list[dict]) -> None:
    path.write_text("\n".join(json.dumps(e) for e in [HEADER, *entries]) + "\n")


def test_check_flags_a_recording_with_a_gap(tmp_path: Path) -> None:
    rec = tmp_path / "gap.jsonl"
    entries = [
        {"kind": "start", "seq": 1, "t": 0.0, "pid": 2, "argv": ["pi"]},
        {"kind": "note", "seq": 2, "t": 0.5, "level": "warning", "dir": "a2c", "dropped_bytes": 1048576,
         "text": "the observers fell behind (their pipe was full): 1048576 bytes of a2c (before its first frame) "
                 "were forwarded but not recorded"},
        {"kind": "eof", "seq": 3, "t": 1.0, "dir": "a2c"},
        {"kind": "exit", "seq": 4, "t": 1.0, "code": 0, "signal": None},
    ]
    _write(rec, entries)
    done = subprocess.run([sys.executable, "-m", "rpcspy", "check", "--fail-on", "warning", "--format", "json",
                           str(rec)], capture_output=True, timeout=60)
    found = [json.loads(line) for line in done.stdout.splitlines()]
    gaps = [f for f in found if f["rule"] == "checker.gap"]
    assert done.returncode == 1, done.stderr
    assert len(gaps) == 1 and gaps[0]["extra"] == {"bytes": 1048576} and gaps[0]["dir"] == "a2c"
    entries[1]["dropped_bytes"] = 0  # a plain note is no gap
    _write(rec, entries)
    done = subprocess.run([sys.executable, "-m", "rpcspy", "check", "--format", "json", str(rec)],
                          capture_output=True, timeout=60)
    assert not [line for line in done.stdout.splitlines() if b"checker.gap" in line]
