"""``rpcspy why REC``: text (golden) and JSON output, --at/--frame, exit codes, bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from rpcspy.cli import main
from tests.cli.test_check_cmd import golden, write_recording
from tests.paths import REPO

STUCK = [
    ("c2a", b'{"id":"p","type":"prompt","message":"hi"}', False),
    ("a2c", b'{"id":"p","type":"response","command":"prompt","success":true,"data":{"disposition":"started"}}', False),
    ("a2c", b'{"type":"agent_start"}', False),
    ("c2a", b'{"jsonrpc":"2.0","id":7,"method":"get_state"}', False),
    ("a2c", b'{"id":7,"type":"response","success":false,"error":"Unknown command: undefined"}', False),
    ("a2c", b'{"type":"extension_ui_request","id":"d","method":"confirm","title":"Go on?"}', False),
]


def run(*args: str):  # type: ignore[no-untyped-def]
    return CliRunner().invoke(main, ["why", *args], env={"COLUMNS": "100"})


@pytest.fixture
def stuck(tmp_path: Path) -> str:
    return str(write_recording(tmp_path / "stuck.jsonl", STUCK, exit_code=None))


def test_text_golden_and_exit_1(stuck: str) -> None:
    result = run(stuck)
    assert result.exit_code == 1, result.output
    golden("why/stuck.txt", result.output)


def test_json(stuck: str) -> None:
    result = run(stuck, "--format", "json")
    assert result.exit_code == 1
    obj = json.loads(result.output)
    assert [i["kind"] for i in obj["outstanding"]] == ["run", "dialog"]
    assert [i["kind"] for i in obj["pitfalls"]] == ["pitfall.jsonrpc"]
    assert obj["outstanding"][1]["frames"] == [6]


def test_at_and_frame(stuck: str) -> None:
    early = json.loads(run(stuck, "--frame", "1", "--format", "json").output)
    assert [i["kind"] for i in early["outstanding"]] == ["command"]
    at = json.loads(run(stuck, "--at", "1.2", "--format", "json").output)
    assert [i["kind"] for i in at["outstanding"]] == ["prompt"]
    assert at["at"] == 1.2


def test_clean_recording_exits_0() -> None:
    result = run(str(REPO / "recordings" / "pi-0.87.1-basic.jsonl"))
    assert result.exit_code == 0, result.output
    assert "nothing outstanding" in result.output.splitlines()[0]


def test_real_abort_recording_shows_the_settle_pitfall() -> None:
    result = run(str(REPO / "recordings" / "pi-0.87.1-abort.jsonl"), "--format", "json")
    assert result.exit_code == 0
    assert [i["kind"] for i in json.loads(result.output)["pitfalls"]] == ["pitfall.settle_passed"]


def test_usage_errors_exit_2(tmp_path: Path, stuck: str) -> None:
    assert run(stuck, "--at", "1", "--frame", "2").exit_code == 2
    assert run(str(tmp_path / "missing.jsonl")).exit_code == 2
    (tmp_path / "junk.jsonl").write_text("hello\n")
    bad = run(str(tmp_path / "junk.jsonl"))
    assert bad.exit_code == 2 and "not an rpcspy recording" in bad.output


def test_help_has_examples() -> None:
    result = run("--help")
    assert result.exit_code == 0 and "Examples:" in result.output and "--client-timeout" in result.output


# ---- live: `rpcspy why PID` over the control socket ----------------------------------------------

def _why_live(env: dict[str, str], pid: int, want: int) -> dict:
    """Ask until the proxy's observer has seen the frames (exit status ``want``); the last answer."""
    import subprocess
    import time

    from tests.cli.proxied import RPCSPY

    deadline = time.monotonic() + 30
    while True:
        done = subprocess.run([*RPCSPY, "why", str(pid), "--format", "json"], env=env, capture_output=True,
                              text=True, timeout=60)
        if done.returncode == want or time.monotonic() > deadline:
            assert done.returncode == want, done.stderr + done.stdout
            return json.loads(done.stdout)
        time.sleep(0.1)


def test_live_session_answers_why(tmp_path: Path) -> None:
    from tests.cli.proxied import control_env, proxied
    from tests.pump.proxyrun import fake

    env = control_env(tmp_path)
    with proxied(fake("pid"), env, tmp_path / "r.jsonl") as proc:  # an agent that never answers
        assert proc.stdin is not None
        proc.stdin.write(b'{"id":"p1","type":"prompt","message":"hi"}\n')
        proc.stdin.flush()
        obj = _why_live(env, proc.pid, 1)
        assert [i["kind"] for i in obj["outstanding"]] == ["command"]
        assert "`prompt` (id 'p1', frame" in obj["outstanding"][0]["text"]
        proc.communicate(b"", timeout=30)


def test_live_why_needs_a_live_session(tmp_path: Path) -> None:
    from tests.cli.proxied import control_env

    result = CliRunner().invoke(main, ["why", "999999"], env=control_env(tmp_path))
    assert result.exit_code == 2 and "no live rpcspy session with pid 999999" in result.output


# ---- watch shows the outstanding list -----------------------------------------------------------

def test_watch_shows_what_a_recording_ended_waiting_on(stuck: str) -> None:
    result = CliRunner().invoke(main, ["watch", "--no-follow", "--width", "120", stuck], env={"COLUMNS": "120"})
    assert result.exit_code == 0, result.output
    panel = result.output[result.output.index("why: waiting on"):]
    assert "the run started at frame 3" in panel and "`confirm` dialog 'Go on?'" in panel
    clean = CliRunner().invoke(main, ["watch", "--no-follow", str(REPO / "recordings" / "pi-0.87.1-basic.jsonl")])
    assert "why:" not in clean.output
    off = CliRunner().invoke(main, ["watch", "--no-follow", "--no-why", stuck])
    assert "why:" not in off.output


def test_transcript_notes_tell_eof_and_exit() -> None:
    result = run(str(REPO / "tests" / "golden" / "inputs" / "pi087_05_null_frame_crash.jsonl"), "--format", "json")
    obj = json.loads(result.output)
    assert result.exit_code == 1
    assert [i["kind"] for i in obj["pitfalls"]] == ["pitfall.null_frame"]
    assert obj["context"][0] == "the agent exited with code 1 (frame 16)"
