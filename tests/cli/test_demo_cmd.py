"""`rpcspy demo`: the proxy in front of the bundled fake agent, nothing else needed."""

import os
import re
import subprocess
import sys
from pathlib import Path

from rpcspy.cli.demo_cmd import bundled_recording
from rpcspy.events import Exit
from rpcspy.recording import open_recording
from tests.paths import REPO


def demo(tmp_path: Path, *args: str) -> tuple[subprocess.CompletedProcess[str], Path]:
    """Run the demo in an empty working directory with HOME in tmp_path (no XDG_CACHE_HOME, no RPCSPY_DIR)."""
    work = tmp_path / "work"
    work.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("XDG_CACHE_HOME", "RPCSPY_DIR")}
    env.update(HOME=str(tmp_path), PYTHONPATH=str(REPO), COLUMNS="120", NO_COLOR="1")
    done = subprocess.run([sys.executable, "-m", "rpcspy", "demo", *args], cwd=work, capture_output=True, text=True,
                          timeout=180, env=env)
    assert done.returncode == 0, done.stderr
    return done, work


def test_demo_records_a_whole_session_through_the_proxy_outside_the_checkout(tmp_path: Path) -> None:
    done, work = demo(tmp_path)
    assert list(work.iterdir()) == []  # nothing written where it runs (a checkout's tracked recordings/)
    (rec,) = (tmp_path / ".cache" / "rpcspy" / "demo").iterdir()  # exactly its one recording, in the cache
    assert f"the proxy records to {rec}" in done.stderr  # says where, before it starts
    recording = open_recording(rec)
    assert recording.header.mode == "proxy" and recording.header.argv[-1] == bundled_recording()
    frames = list(recording.frames())
    bundled = [f for f in open_recording(bundled_recording()).frames()]
    assert [f.data for f in frames if f.dir == "c2a"] == [f.data for f in bundled if f.dir == "c2a"]
    assert len([f for f in frames if f.dir == "a2c"]) == len([f for f in bundled if f.dir == "a2c"])
    assert isinstance(list(recording.entries())[-1], Exit)
    assert "get_state" in done.stdout and f"to {rec}" in done.stdout and "Checker:" in done.stdout


def test_demo_paces_the_agent_so_durations_are_real(tmp_path: Path) -> None:
    done, _ = demo(tmp_path, "-o", str(tmp_path / "d.jsonl"))
    durations = re.findall(r"← assistant .* · ([\d.]+) (ms|s)$", done.stdout, re.M)
    assert len(durations) == 4  # hello, the tool call and its follow-up, thinking
    assert any(float(n) >= 1 for n, _unit in durations), durations  # not all "0.0 ms"


def test_demo_explains_its_findings_and_lists_next_steps_one_per_line(tmp_path: Path) -> None:
    out_file = tmp_path / "d.jsonl"
    done, _ = demo(tmp_path, "-o", str(out_file), "--speed", "0", "--no-show")
    assert "explained after it" in done.stderr
    out = done.stdout
    # the U+2028 finding is said in words, from the rule catalogue, not only by its id
    assert "info framing.line_separator (frame " in out and "A frame contains a raw U+2028 or U+2029." in out
    assert "split the byte stream on `\\n` only" in out.replace("\n    ", " ")
    next_lines = out.split("Next, try:\n", 1)[1].splitlines()
    assert [ln.split()[1] for ln in next_lines] == ["show", "check", "stats", "replay"]
    assert all(ln.startswith("  rpcspy ") and str(out_file) in ln for ln in next_lines)
    assert " | " not in out.split("Next, try:", 1)[1]  # not a pipeline


def test_demo_refuses_an_existing_output_before_starting(tmp_path) -> None:  # noqa: ANN001
    from click.testing import CliRunner

    from rpcspy.cli import main

    old = tmp_path / "old.jsonl"
    old.write_text("mine")
    res = CliRunner().invoke(main, ["demo", "-o", str(old)])
    assert res.exit_code == 2 and "exists" in res.output and old.read_text() == "mine"


def test_an_unwritable_home_is_said_with_its_cause_before_anything_starts(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.write_text("not a directory")  # as root no mode keeps a directory unwritable: a file in the way does
    env = {k: v for k, v in os.environ.items() if k not in ("XDG_CACHE_HOME", "RPCSPY_DIR")}
    env.update(HOME=str(home), PYTHONPATH=str(REPO))
    done = subprocess.run([sys.executable, "-m", "rpcspy", "demo", "--speed", "0"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=60, env=env)
    assert done.returncode == 1 and done.stdout == ""
    assert f"cannot write the demo recording in {home}/.cache/rpcspy/demo: Not a directory" in done.stderr
    assert "give -o FILE or --dir DIR" in done.stderr and "Traceback" not in done.stderr
