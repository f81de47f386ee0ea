"""`rpcspy diff`: exit status, JSON output, fixture settings applied, options."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from rpcspy.cli.diff_cmd import command as diff
from rpcspy.cli.fixture_cmd import command as fixture
from tests.paths import DATA

T = str(DATA / "transcripts/structured")
N = str(DATA / "transcripts087/structured")


def test_same_recording_exit_0():
    r = CliRunner().invoke(diff, [f"{T}/02_tool_call.jsonl", f"{T}/02_tool_call.jsonl"])
    assert r.exit_code == 0 and r.output.rstrip().endswith("same")


def test_versions_differ_exit_1_json():
    r = CliRunner().invoke(diff, ["--format", "json", f"{T}/02_tool_call.jsonl", f"{N}/02_tool_call.jsonl"])
    assert r.exit_code == 1
    js = json.loads(r.output)
    assert js["equal"] is False and js["directions"]["a2c"]["equal"] is False
    assert set(js["directions"]) == {"c2a", "a2c"}
    kinds = {it["type"] for it in js["directions"]["a2c"]["items"] if it["op"] == "added"}
    assert "agent_settled" in kinds  # pi 0.87's new terminal event


def test_fixture_equals_source_even_with_usage_zeroed(tmp_path: Path):
    out = tmp_path / "f.jsonl"
    assert CliRunner().invoke(fixture, [f"{T}/03_thinking.jsonl", "-o", str(out), "--usage",
                                        "--compact-partials"]).exit_code == 0
    r = CliRunner().invoke(diff, [f"{T}/03_thinking.jsonl", str(out)])
    assert r.exit_code == 0, r.output


def test_stderr_and_dir_options():
    r = CliRunner().invoke(diff, ["--format", "json", "--stderr", f"{T}/05_null_frame_crash.jsonl",
                                  f"{T}/05_null_frame_crash.jsonl"])
    assert r.exit_code == 0 and "err" in json.loads(r.output)["directions"]
    r = CliRunner().invoke(diff, ["--format", "json", "--dir", "c2a", f"{T}/01_basic_text_prompt.jsonl",
                                  f"{N}/01_basic_text_prompt.jsonl"])
    assert list(json.loads(r.output)["directions"]) == ["c2a"]


def test_missing_file_is_error(tmp_path: Path):
    r = CliRunner().invoke(diff, [str(tmp_path / "a"), f"{T}/01_basic_text_prompt.jsonl"])
    assert r.exit_code == 2 and "no such file" in r.output


def _cwd_recording(path: Path, cwd: str) -> str:
    from tests.replay.helpers import Rec

    r = Rec()
    r.at(1.0).c({"id": "s", "type": "get_state"})
    r.a({"id": "s", "type": "response", "command": "get_state", "success": True, "data": {"cwd": cwd}}, dt=0.01)
    return str(r.at(2.0).eof().exit(0).write(path))


def test_temp_paths_compared_after_their_random_segment(tmp_path: Path):
    a = _cwd_recording(tmp_path / "a.jsonl", "/tmp/tmpab12/project/src/main.py")
    same = _cwd_recording(tmp_path / "b.jsonl", "/tmp/tmpzz99/project/src/main.py")
    other = _cwd_recording(tmp_path / "c.jsonl", "/tmp/tmpab12/project/etc/passwd")
    r = CliRunner().invoke(diff, [a, same])
    assert r.exit_code == 0 and r.output.rstrip().endswith("same"), r.output
    r = CliRunner().invoke(diff, ["--format", "json", a, other])
    assert r.exit_code == 1, r.output
    assert "$.data.cwd" in r.output


def test_a_recording_without_exit_says_so_not_none(tmp_path: Path):
    from tests.paths import REPO

    whole = (REPO / "recordings" / "pi-0.73.1-basic.jsonl").read_bytes()
    cut = tmp_path / "cut.jsonl"  # a proxy killed before the exit: no exit entry
    cut.write_bytes(whole[: whole.index(b'{"kind":"exit"')])
    r = CliRunner().invoke(diff, [str(cut), str(REPO / "recordings" / "pi-0.73.1-basic.jsonl")], env={"COLUMNS": "100"})
    (row,) = [ln for ln in r.output.splitlines() if ln.startswith("exit")]
    assert "None" not in r.output and row.split()[1:4] == ["none", "recorded", "0"]


def test_large_recordings_show_progress_on_a_terminal(tmp_path: Path):
    """stderr a terminal, stdout a pipe: a transient 'comparing N MiB' line while the files are read."""
    import os
    import subprocess
    import sys

    from tests.paths import REPO

    big = tmp_path / "big.jsonl"
    header = (REPO / "recordings" / "pi-0.73.1-basic.jsonl").read_bytes().split(b"\n", 1)[0]
    frame = json.dumps({"kind": "frame", "seq": 0, "t": 0.0, "dir": "c2a", "json": {"type": "get_state"}})
    with big.open("wb") as f:
        f.write(header + b"\n")
        f.write((frame + "\n").encode() * 60_000)
    primary, secondary = os.openpty()
    try:
        done = subprocess.run([sys.executable, "-m", "rpcspy", "diff", str(big), str(big)], stdout=subprocess.PIPE,
                              stderr=secondary, timeout=120, env={**os.environ, "PYTHONPATH": str(REPO)})
        os.close(secondary)
        seen = b""
        while True:
            try:
                chunk = os.read(primary, 1 << 16)
            except OSError:  # EIO: the terminal's other side is closed and drained
                break
            if not chunk:
                break
            seen += chunk
    finally:
        os.close(primary)
    assert done.returncode == 0 and b"comparing" in seen and b"MiB of recordings" in seen
