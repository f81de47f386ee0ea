"""``rpcspy inject``: --once against proxied stand-in agents, the attached REPL through a pty, refusals."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from rpcspy.recording import open_recording
from tests.cli.proxied import RPCSPY, control_env, proxied
from tests.interactive.terminal import Terminal
from tests.paths import REPO
from tests.pump.proxyrun import fake


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    return control_env(tmp_path)


def inject(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*RPCSPY, "inject", *args], env=env, check=False, capture_output=True, text=True, timeout=60)


def test_once_answers_the_injector_only(env: dict[str, str], tmp_path: Path) -> None:
    rec = tmp_path / "r.jsonl"
    with proxied(fake("respond"), env, rec) as proc:
        assert proc.stdin is not None
        proc.stdin.write(b'{"id":"c1","type":"get_state"}\n')
        proc.stdin.flush()
        first = inject(env, "--once", "get_state")
        assert first.returncode == 0, first.stderr
        assert json.loads(first.stdout) == {"type": "response", "command": "get_state", "success": True}
        mine = inject(env, str(proc.pid), "--once", '!{"id": 7, "type": "prompt", "message": "hi"}')  # any id comes back
        assert json.loads(mine.stdout) == {"id": 7, "type": "response", "command": "prompt", "success": True}
        out, _ = proc.communicate(b'{"id":"c2","type":"get_state"}\n', timeout=30)
    client = [json.loads(line) for line in out.splitlines()]
    assert [m.get("id") for m in client if m.get("type") == "response"] == ["c1", "c2"]
    assert [m["of"] for m in client if m.get("type") == "seen"] == ["get_state", "get_state", "prompt", "get_state"]
    injected = [json.loads(f.data) for f in open_recording(rec).frames() if f.injected]
    assert [(m.get("id"), m["type"]) for m in injected] == [
        ("rpcspy-inject-1", "get_state"), ("rpcspy-inject-1", "response"),
        ("rpcspy-inject-2", "prompt"), ("rpcspy-inject-2", "response")]


def test_once_sends_a_dialog_answer_as_it_is(env: dict[str, str], tmp_path: Path) -> None:
    rec = tmp_path / "r.jsonl"
    with proxied(fake("pid"), env, rec) as proc:  # an agent that never answers, as pi never answers answers
        answer = inject(env, "--once", "extension_ui_response d1 value=A")
        assert (answer.returncode, answer.stdout) == (0, ""), "an answer expects no response"
        proc.communicate(b"", timeout=30)
    (frame,) = [f for f in open_recording(rec).frames() if f.dir == "c2a"]
    assert frame.injected and json.loads(frame.data) == {"type": "extension_ui_response", "id": "d1", "value": "A"}


def test_once_reports_a_failure_response_with_status_1(env: dict[str, str], tmp_path: Path) -> None:
    transcript = REPO / "tests" / "golden" / "inputs" / "pi087_01_basic_text_prompt.jsonl"
    with proxied([*RPCSPY, "replay", "--speed", "0", str(transcript)], env, tmp_path / "r.jsonl") as proc:
        ok = inject(env, "--once", "get_state")
        assert ok.returncode == 0 and json.loads(ok.stdout)["data"]["model"]["id"] == "fake-model"
        unmatched = inject(env, "--once", "bash echo never-recorded")
        assert unmatched.returncode == 1
        assert json.loads(unmatched.stdout)["success"] is False
        proc.communicate(b"", timeout=30)


def test_once_refuses_what_validation_refuses(env: dict[str, str], tmp_path: Path) -> None:
    with proxied(fake("respond"), env, tmp_path / "r.jsonl") as proc:
        refused = inject(env, "--once", "set_thinking_level ultra", "--dialect", "pi-0.73")
        assert refused.returncode == 2 and "invalid value 'ultra'" in refused.stderr
        assert inject(env, "--once", "!set_thinking_level ultra").returncode == 0
        raw = inject(env, "--once", "!not json")
        assert raw.returncode == 2 and "only a JSON object or a command can be injected" in raw.stderr
        proc.communicate(b"", timeout=30)


def test_once_gives_up_after_the_timeout(env: dict[str, str], tmp_path: Path) -> None:
    with proxied(fake("pid"), env, tmp_path / "r.jsonl") as proc:
        silent = inject(env, "--once", "get_state", "--timeout", "0.5")
        assert silent.returncode == 1 and "no response within 0.5 s (injected as rpcspy-inject-1)" in silent.stderr
        proc.communicate(b"", timeout=30)


def test_no_session_and_no_terminal(env: dict[str, str]) -> None:
    none = inject(env, "--once", "get_state")
    assert none.returncode == 1 and "no live rpcspy session" in none.stderr
    bad = inject(env, "abc", "--once", "get_state")
    assert bad.returncode == 1 and "'abc' is not a session" in bad.stderr


def test_the_repl_attaches_injects_and_detaches(env: dict[str, str], tmp_path: Path) -> None:
    rec = tmp_path / "r.jsonl"
    with proxied(fake("respond"), env, rec) as proc:
        assert proc.stdin is not None
        proc.stdin.write(b'{"id":"c1","type":"get_state"}\n')
        proc.stdin.flush()
        t = Terminal.rpcspy("inject", str(proc.pid), env=env)
        try:
            shown = t.wait_for("inject>", "→ get_state #c1", "✓ get_state #c1")  # the backlog
            assert f"injecting into session {proc.pid}" in shown
            t.set_mark()
            t.line("get_state")
            t.wait_for("→ get_state (injected) #rpcspy-inject-1", "✓ get_state (injected) #rpcspy-inject-1")
            t.set_mark()
            proc.stdin.write(b'{"id":"c2","type":"get_state"}\n')  # the client goes on; we watch it
            proc.stdin.flush()
            t.wait_for("→ get_state #c2", "✓ get_state #c2")
            t.key("c-d")
            t.wait_for("detached")
            assert t.wait_exit() == 0
        finally:
            t.close()
        out, _ = proc.communicate(b'{"id":"c3","type":"get_state"}\n', timeout=30)
    assert proc.returncode == 0, "detaching leaves the session running"
    assert [m.get("id") for m in map(json.loads, out.splitlines()) if m.get("type") == "response"] == ["c1", "c2",
                                                                                                      "c3"]


def test_the_repl_ends_with_the_session(env: dict[str, str], tmp_path: Path) -> None:
    with proxied(fake("respond"), env, tmp_path / "r.jsonl") as proc:
        t = Terminal.rpcspy("inject", env=env)
        try:
            t.wait_for("inject>")
            t.set_mark()
            proc.communicate(b"", timeout=30)
            t.wait_for("exit 0", "the session ended")
            assert t.wait_exit() == 0
        finally:
            t.close()
