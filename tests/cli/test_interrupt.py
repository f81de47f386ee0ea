"""Ctrl-C (SIGINT) is one convention everywhere: one line `rpcspy: interrupted` (or the command's own,
saying what was kept), exit 130, never click's `Aborted!` and 1; partial results are kept."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from rpcspy.events import Exit
from rpcspy.recording import open_recording
from tests.paths import REPO

RPCSPY = [sys.executable, "-m", "rpcspy"]
ENV = {**os.environ, "PYTHONPATH": str(REPO), "NO_COLOR": "1"}


def wait_for(predicate, what: str, limit: float = 60.0) -> None:  # noqa: ANN001
    """A hang guard: poll ``predicate`` until it holds (never a timed assertion on how long it took)."""
    deadline = time.monotonic() + limit
    while not predicate():
        assert time.monotonic() < deadline, f"never happened: {what}"
        time.sleep(0.05)


@pytest.mark.parametrize("args", [["show", "R"], ["stats", "R"], ["check", "R"], ["export", "R", "-o", "OUT"],
                                  ["why", "R"], ["fixture", "R", "-o", "OUT"], ["diff", "R", "R"]])
def test_every_reading_command_interrupted_says_so_and_exits_130(tmp_path: Path, monkeypatch, args) -> None:  # noqa: ANN001
    """Ctrl-C while a recording is read: one line, status 130 (never click's `Aborted!` and 1, which
    means findings), and no half-written output file."""
    import rpcspy.offline.reading  # noqa: F401 (loaded, so its opener is replaced too)
    from rpcspy.cli import main

    def interrupt(*_a, **_k):  # noqa: ANN002, ANN003, ANN202
        raise KeyboardInterrupt

    opener = open_recording
    for module in list(sys.modules.values()):  # wherever a command took the opener from (its home, the offline room)
        if getattr(module, "open_recording", None) is opener:
            monkeypatch.setattr(module, "open_recording", interrupt)
    rec = tmp_path / "r.jsonl"
    rec.write_text("")
    argv = [str(rec) if a == "R" else str(tmp_path / "out") if a == "OUT" else a for a in args]
    result = CliRunner().invoke(main, argv)
    assert (result.exit_code, result.stderr) == (130, "rpcspy: interrupted\n"), result.output
    assert "Aborted" not in result.output and not (tmp_path / "out").exists()


def test_show_interrupted_mid_output_keeps_what_it_printed_and_exits_130(tmp_path: Path) -> None:
    rec = tmp_path / "big.jsonl"
    header = {"kind": "header", "format": "rpcspy-recording", "version": 1, "rpcspy": "0.1.0", "argv": ["pi"],
              "cwd": "/", "started": "2026-01-01T00:00:00.000000Z", "started_unix": 0.0, "pid": 1, "mode": "proxy"}
    with rec.open("w") as f:
        f.write(json.dumps(header) + "\n")
        for i in range(1, 400_001):
            f.write(json.dumps({"kind": "frame", "seq": i, "t": i / 1000, "dir": "c2a",
                                "json": {"id": str(i), "type": "get_state"}}) + "\n")
    proc = subprocess.Popen([*RPCSPY, "show", "--frames", str(rec)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env=ENV)
    assert proc.stdout is not None
    first = proc.stdout.readline()  # it is printing
    proc.send_signal(signal.SIGINT)
    rest, err = proc.communicate(timeout=120)
    assert first and proc.returncode == 130, err.decode()[-2000:]
    assert err.decode().endswith("rpcspy: interrupted\n") and b"Aborted" not in err and b"Traceback" not in err


def test_drive_interrupted_stops_the_agent_records_its_exit_and_exits_130(tmp_path: Path) -> None:
    steps = tmp_path / "steps.jsonl"
    steps.write_text('{"id":"s","type":"get_state"}\n{"id":"t","type":"get_state"}\n')
    rec = tmp_path / "r.jsonl"
    proc = subprocess.Popen([*RPCSPY, "drive", str(steps), "-o", str(rec), "--timeout", "600", "--",
                             "sh", "-c", "exec sleep 600"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env=ENV, cwd=tmp_path)

    def sent() -> bool:  # the first command reached the agent, which will never answer
        return rec.exists() and b'"dir":"c2a"' in rec.read_bytes()

    try:
        wait_for(sent, "the first step sent")
        proc.send_signal(signal.SIGINT)
        _out, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
    text = err.decode()
    assert proc.returncode == 130, text
    assert "rpcspy: interrupted: 0/2 steps completed; the agent was stopped (exit status 143)" in text
    assert "Aborted" not in text and "Traceback" not in text
    exits = [e for e in open_recording(rec).entries() if isinstance(e, Exit)]
    assert [e.code for e in exits] == [143]


def test_conform_interrupted_reports_the_finished_cases_and_exits_130(tmp_path: Path) -> None:
    """The first two cases' agents exit at once (each case fails fast); the third hangs: Ctrl-C then
    keeps the two finished cases in the report and stops the hanging agent."""
    count = tmp_path / "count"
    agent = tmp_path / "agent.sh"
    agent.write_text(f'n=$(cat {count} 2>/dev/null || echo 0)\necho $((n + 1)) > {count}\n'
                     f'[ "$n" -lt 2 ] && exit 0\nexec sleep 600\n')
    proc = subprocess.Popen([*RPCSPY, "conform", "--no-model", "--no-agent-args", "--jobs", "1", "--format", "json", "--dialect", "pi",
                             "--", "sh", str(agent)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=ENV)
    try:
        wait_for(lambda: count.exists() and count.read_text().strip() == "3", "the third case started")
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130, err.decode()[-2000:]
    doc = json.loads(out)
    assert len(doc["cases"]) == 2 and all(c["status"] == "failed" for c in doc["cases"])
    assert "rpcspy conform: interrupted: 2 of " in err.decode()
    assert b"Aborted" not in err and b"Traceback" not in err


def test_watch_stopped_with_ctrl_c_says_so_and_exits_130(tmp_path: Path) -> None:
    """Following a recording that an rpcspy still writes (its lock held here): Ctrl-C ends it, status 130."""
    import fcntl

    rec = tmp_path / "r.jsonl"
    whole = (REPO / "recordings" / "pi-0.73.1-basic.jsonl").read_bytes()
    rec.write_bytes(whole[: whole.index(b'{"kind":"exit"')])
    with rec.open("ab") as writer:
        fcntl.flock(writer, fcntl.LOCK_EX)
        proc = subprocess.Popen([*RPCSPY, "watch", "--width", "100", str(rec)], stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, env=ENV)
        assert proc.stdout is not None
        proc.stdout.readline()  # it is showing the recording
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130 and b"stopped watching" in out, err
    assert b"Aborted" not in err and b"Traceback" not in err
