"""One rule for every command that writes a recording (run, drive, replay, replay --client; repl shares the
option): an existing file is kept without --overwrite, a FIFO is refused, nothing starts after a refusal."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from rpcspy.recording import open_recording
from tests.paths import DATA, REPO

RPCSPY = [sys.executable, "-m", "rpcspy"]
REC = str(DATA / "transcripts/structured/01_basic_text_prompt.jsonl")
ENV = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(REPO)}


def commands(tmp_path: Path, out: Path, marker: Path) -> dict[str, list[str]]:
    """Each recording command, writing to ``out``; an agent that touches ``marker`` if it is ever started."""
    steps = tmp_path / "steps.jsonl"
    steps.write_text('{"id":"s","type":"get_state"}\n')
    agent = ["sh", "-c", f"touch {marker}; cat"]
    return {
        "run": [*RPCSPY, "-o", str(out), "--", *agent],
        "drive": [*RPCSPY, "drive", str(steps), "-o", str(out), "--timeout", "5", "--", *agent],
        "replay": [*RPCSPY, "replay", "--speed", "0", "-o", str(out), REC],
        "replay --client": [*RPCSPY, "replay", "--client", REC, "--timeout", "5", "-o", str(out), "--", *agent],
    }


@pytest.mark.parametrize("name", ["run", "drive", "replay", "replay --client"])
def test_an_existing_recording_is_kept_without_overwrite(tmp_path: Path, name: str) -> None:
    out, marker = tmp_path / "r.jsonl", tmp_path / "agent-ran"
    out.write_text("yesterday's session")
    done = subprocess.run(commands(tmp_path, out, marker)[name], capture_output=True, text=True, timeout=60,
                          stdin=subprocess.DEVNULL, cwd=tmp_path, env=ENV)
    assert done.returncode == 2, done.stderr
    assert f"{out} exists: rpcspy does not overwrite it without --overwrite" in done.stderr
    assert "Traceback" not in done.stderr and out.read_text() == "yesterday's session" and not marker.exists()


@pytest.mark.parametrize("name", ["run", "drive", "replay", "replay --client"])
def test_a_fifo_is_refused_by_every_recording_command(tmp_path: Path, name: str) -> None:
    out, marker = tmp_path / "r.jsonl", tmp_path / "agent-ran"
    os.mkfifo(out)
    done = subprocess.run(commands(tmp_path, out, marker)[name], capture_output=True, text=True, timeout=60,
                          stdin=subprocess.DEVNULL, cwd=tmp_path, env=ENV)
    assert done.returncode == 2 and f"{out} is a FIFO: a recording is a regular file" in done.stderr
    assert not marker.exists()


def test_drive_overwrites_when_asked(tmp_path: Path) -> None:
    out = tmp_path / "r.jsonl"
    out.write_text("old")
    steps = tmp_path / "steps.jsonl"
    steps.write_text('{"id":"s","type":"get_state"}\n')
    done = subprocess.run([*RPCSPY, "drive", str(steps), "-o", str(out), "--overwrite", "--timeout", "30", "--",
                           *RPCSPY, "replay", "--speed", "0", "--match", "type", REC], capture_output=True, text=True, timeout=60, cwd=tmp_path, env=ENV)
    assert done.returncode == 0, done.stderr
    assert [f.data for f in open_recording(out).frames()][0] == b'{"id":"s","type":"get_state"}'


def test_drive_with_an_agent_not_found_leaves_no_recording(tmp_path: Path) -> None:
    steps = tmp_path / "steps.jsonl"
    steps.write_text('{"id":"s","type":"get_state"}\n')
    done = subprocess.run([*RPCSPY, "drive", str(steps), "-o", str(tmp_path / "r.jsonl"), "--timeout", "5", "--",
                           "no-such-agent-xyz"], capture_output=True, text=True, timeout=60, cwd=tmp_path, env=ENV)
    assert done.returncode == 1 and "command not found" in done.stderr
    assert not (tmp_path / "r.jsonl").exists()


def test_every_recording_command_offers_the_same_overwrite_option() -> None:
    from click.testing import CliRunner

    from rpcspy.cli import main
    from rpcspy.cli.record_opt import OVERWRITE_HELP

    for name in ("run", "repl", "drive", "replay"):
        out = CliRunner().invoke(main, [name, "--help"], terminal_width=400).output
        assert "--overwrite" in out and OVERWRITE_HELP.split("(")[0].strip() in " ".join(out.split()), name


def test_drive_that_cannot_record_starts_nothing(tmp_path: Path) -> None:
    """drive exists to record: an -o it cannot create (a file in the way of its directory) is exit 2 at once."""
    (tmp_path / "file").write_text("")
    steps = tmp_path / "steps.jsonl"
    steps.write_text('{"id":"s","type":"get_state"}\n')
    marker = tmp_path / "agent-ran"
    done = subprocess.run([*RPCSPY, "drive", str(steps), "-o", str(tmp_path / "file" / "r.jsonl"), "--",
                           "sh", "-c", f"touch {marker}"], capture_output=True, text=True, timeout=60, env=ENV)
    assert done.returncode == 2 and "cannot record to" in done.stderr and "Not a directory" in done.stderr
    assert not marker.exists()
