"""`rpcspy demo`: the proxy in front of the bundled fake agent, nothing else needed."""

import subprocess
import sys
from pathlib import Path

from rpcspy.cli.demo_cmd import bundled_recording
from rpcspy.recording import open_recording
from rpcspy.recording.format import ExitEntry


def test_demo_records_a_whole_session_through_the_proxy(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "rpcspy", "demo"], cwd=tmp_path, capture_output=True, timeout=180)
    assert done.returncode == 0, done.stderr.decode()
    (rec,) = (tmp_path / "recordings").iterdir()  # the demo leaves exactly its one recording
    recording = open_recording(rec)
    assert recording.header.mode == "proxy" and recording.header.argv[-1] == bundled_recording()
    frames = list(recording.frames())
    bundled = [f for f in open_recording(bundled_recording()).frames()]
    assert [f.data for f in frames if f.dir == "c2a"] == [f.data for f in bundled if f.dir == "c2a"]
    assert len([f for f in frames if f.dir == "a2c"]) == len([f for f in bundled if f.dir == "a2c"])
    assert isinstance(list(recording.entries())[-1], ExitEntry)
    out = done.stdout.decode()
    assert "get_state" in out and f"to {rec.relative_to(tmp_path)}" in out and "Checker:" in out


def test_demo_refuses_an_existing_output_before_starting(tmp_path) -> None:  # noqa: ANN001
    from click.testing import CliRunner

    from rpcspy.cli import main

    old = tmp_path / "old.jsonl"
    old.write_text("mine")
    res = CliRunner().invoke(main, ["demo", "-o", str(old)])
    assert res.exit_code == 2 and "exists" in res.output and old.read_text() == "mine"
