"""Injection into a live proxied session of the real pi, while a scripted client runs it.

The client (``python -m rpcspy -o REC -- pi ...``) streams a slow reply; meanwhile
``rpcspy inject --once`` sends ``get_state`` and a ``steer``. The client must see
no response it did not ask for, get every response it did ask for, and see the
steer's effect (events reach both); the recording marks the injected frames.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

from rpcspy.recording import open_recording
from tests.support.agents import REPO_ROOT
from tests.support.driver import AgentProcess
from tests.support.scenarios import idle_event, is_idle


def control_env(base: dict[str, str], run: Path) -> dict[str, str]:
    run.mkdir(exist_ok=True)
    env = {**base, "XDG_RUNTIME_DIR": str(run)}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO_ROOT), env.get("PYTHONPATH")]))
    return env


def wait_registered(run: Path, pid: int, timeout: float = 20) -> None:
    sock = run / "rpcspy" / f"{pid}.sock"
    deadline = time.monotonic() + timeout
    while not sock.exists():
        assert time.monotonic() < deadline, f"no control socket {sock}"
        time.sleep(0.05)


def inject(env: dict[str, str], pid: int, command: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "rpcspy", "inject", str(pid), "--once", command, "--timeout", "30"],
                          env=env, check=False, capture_output=True, text=True, timeout=60)


def test_injected_commands_never_reach_the_client(pi_agent, fake_llm, tmp_path: Path) -> None:
    rec = tmp_path / "session.jsonl"
    env = control_env(pi_agent.env, tmp_path / "run")
    with AgentProcess([sys.executable, "-m", "rpcspy", "-o", str(rec), "--", *pi_agent.argv], env=env,
                      cwd=pi_agent.cwd) as ap:
        wait_registered(tmp_path / "run", ap.proc.pid)
        ap.request({"id": "s1", "type": "get_state"}, timeout=60)
        ap.send({"id": "p1", "type": "prompt", "message": "slow: 100"})
        ap.read_until(lambda m: m.get("assistantMessageEvent", {}).get("type") == "text_delta", timeout=60)

        state = inject(env, ap.proc.pid, "get_state")
        assert state.returncode == 0, state.stderr
        state_response = json.loads(state.stdout)
        assert state_response["command"] == "get_state" and state_response["success"] is True
        assert "id" not in state_response, "no id given, none comes back"
        assert state_response["data"]["isStreaming"] is True

        steer = inject(env, ap.proc.pid, '{"id": "mine-1", "type": "steer", "message": "steer from outside"}')
        assert steer.returncode == 0, steer.stderr
        steered_response = json.loads(steer.stdout)
        data = steered_response.pop("data", None)  # pi >= 0.99 says what became of it
        assert steered_response == {"id": "mine-1", "type": "response", "command": "steer", "success": True}
        assert data in (None, {"disposition": "queued"})

        run = ap.read_until(is_idle(pi_agent.dialect), timeout=60)
        steered = [m for m in run if m.get("type") == "message_start" and m["message"].get("role") == "user"
                   and "steer from outside" in json.dumps(m["message"])]
        assert steered, "the steer's effect (its user message) reaches the client"
        ap.request({"id": "s2", "type": "get_state"}, timeout=30)
        code = ap.finish(timeout=30)
    assert code == 0

    client_view = [json.loads(line) for line in ap.frames]
    responses = [m for m in client_view if m.get("type") == "response"]
    assert [r.get("id") for r in responses] == ["s1", "p1", "s2"], "every own response, and nothing else"
    assert not any(str(m.get("id", "")).startswith("rpcspy-inject-") for m in client_view)

    frames = list(open_recording(rec).frames())
    injected = [(f.dir, json.loads(f.data)) for f in frames if f.injected]
    assert [(d, o.get("id"), o.get("type"), o.get("command")) for d, o in injected] == [
        ("c2a", "rpcspy-inject-1", "get_state", None),
        ("a2c", "rpcspy-inject-1", "response", "get_state"),
        ("c2a", "rpcspy-inject-2", "steer", None),
        ("a2c", "rpcspy-inject-2", "response", "steer"),
    ]
    assert [f.data for f in frames if f.dir == "a2c" and not f.injected] == ap.frames, "the client got the rest, exactly"
    assert b"".join(f.raw() for f in frames if f.dir == "c2a" and not f.injected) == b"".join(ap.sent)
    assert any(json.loads(f.data).get("type") == idle_event(pi_agent.dialect) for f in frames if f.dir == "a2c")
    assert not (tmp_path / "run" / "rpcspy" / f"{ap.proc.pid}.sock").exists(), "the socket goes with the session"


def test_sessions_and_watch_follow_a_live_session(pi_agent, fake_llm, tmp_path: Path) -> None:
    rec = tmp_path / "watched.jsonl"
    env = control_env(pi_agent.env, tmp_path / "run")
    with AgentProcess([sys.executable, "-m", "rpcspy", "-o", str(rec), "--", *pi_agent.argv], env=env,
                      cwd=pi_agent.cwd) as ap:
        wait_registered(tmp_path / "run", ap.proc.pid)
        ap.request({"id": "s1", "type": "get_state"}, timeout=60)
        # the observer process counts frames after they are forwarded: the client may hold the reply first
        deadline = time.monotonic() + 60
        while True:
            listed = subprocess.run([sys.executable, "-m", "rpcspy", "sessions", "--json"], env=env, check=False,
                                    capture_output=True, text=True, timeout=30)
            (session,) = json.loads(listed.stdout)
            if session["info"]["frames"]["a2c"] >= 1 or time.monotonic() > deadline:
                break
            time.sleep(0.1)
        assert session["pid"] == ap.proc.pid and session["argv"] == pi_agent.argv
        assert session["record_path"] == str(rec) and session["info"]["frames"]["c2a"] == 1
        assert session["info"]["frames"]["a2c"] >= 1
        table = subprocess.run([sys.executable, "-m", "rpcspy", "sessions"], env={**env, "COLUMNS": "200"},
                               check=False, capture_output=True, text=True, timeout=30).stdout
        assert str(ap.proc.pid) in table and "watched.jsonl" in table

        watcher = subprocess.Popen([sys.executable, "-m", "rpcspy", "watch", str(ap.proc.pid), "--width", "160"],
                                   env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            time.sleep(1.5)  # subscribed (the backlog holds the start anyway)
            ap.send({"id": "p1", "type": "prompt", "message": "hello"})
            ap.read_until(is_idle(pi_agent.dialect), timeout=60)
            ap.request({"id": "s2", "type": "get_state"}, timeout=30)
            ap.finish(timeout=30)
            out, err = watcher.communicate(timeout=30)
        finally:
            watcher.kill()
    assert watcher.returncode == 0, err
    assert f"watching session {ap.proc.pid}" in out
    for needle in ("→ get_state #s1", "→ prompt #p1", "✓ prompt #p1", "Hello \\u2028world!", "✓ get_state #s2",
                   "exit 0", "the session ended"):
        assert needle in out, f"{needle!r} not in watch output:\n{out}"
    assert out.index("→ get_state #s1") < out.index("→ prompt #p1") < out.index("exit 0")
