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
