"""`rpcspy inject` into a live ACP session: pi-acp 0.0.34 (on pi 1.6.0 against rpcspy's model server) behind
the proxy. The injected request gets an id the client never uses and its response is kept from the client."""

from __future__ import annotations

import json
import os
import select
import subprocess
import time
from pathlib import Path

import pytest

from rpcspy.recording import open_recording
from tests.cli.proxied import RPCSPY, control_env, proxied
from tests.conftest import _installed
from tests.support.homes import agent_env


def read_line(proc: subprocess.Popen[bytes], timeout: float = 60) -> dict:
    """The client's next line from the proxy's stdout (a hang guard, not a timing assertion)."""
    assert proc.stdout is not None
    fd, buf, deadline = proc.stdout.fileno(), b"", time.monotonic() + timeout
    while not buf.endswith(b"\n"):
        assert time.monotonic() < deadline, f"no line from the agent within {timeout} s: {buf!r}"
        ready, _, _ = select.select([fd], [], [], 0.5)
        if ready:
            chunk = os.read(fd, 1)
            assert chunk, "the proxy closed its stdout"
            buf += chunk
    return json.loads(buf)


def response(proc: subprocess.Popen[bytes], timeout: float = 120) -> dict:
    """The next response the client reads (notifications such as session/update skipped)."""
    while "method" in (msg := read_line(proc, timeout)):
        pass
    return msg


def send(proc: subprocess.Popen[bytes], message: dict) -> None:
    assert proc.stdin is not None
    proc.stdin.write(json.dumps(message).encode() + b"\n")
    proc.stdin.flush()


@pytest.mark.agents
def test_inject_a_session_new_into_a_live_pi_acp_session(request: pytest.FixtureRequest, agent_home: Path,
                                                        tmp_path: Path) -> None:
    specs = request.getfixturevalue("_agent_specs")
    adapter, pi = _installed("pi-acp-0.0.34", specs), _installed("pi-1.6.0", specs)
    wrapper = tmp_path / "pi"
    wrapper.write_text("#!/bin/sh\nexec " + " ".join(pi.argv_prefix) + ' "$@" --provider fake --model fake-model\n')
    wrapper.chmod(0o755)
    env = {**agent_env(agent_home, adapter.environ()), **control_env(tmp_path)}
    env["PI_ACP_PI_COMMAND"] = str(wrapper)
    env["HOME"] = str(agent_home)
    rec = tmp_path / "r.jsonl"
    cwd = str(agent_home / "project")
    with proxied(adapter.argv_prefix, env, rec) as proc:
        send(proc, {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": 1}})
        assert response(proc)["id"] == 0
        injected = subprocess.run(
            [*RPCSPY, "inject", str(proc.pid), "--once",
             json.dumps({"jsonrpc": "2.0", "id": 0, "method": "session/new", "params": {"cwd": cwd, "mcpServers": []}})],
            env=env, capture_output=True, text=True, timeout=120)
        assert injected.returncode == 0, injected.stderr
        answer = json.loads(injected.stdout)
        assert answer["id"] == 0 and isinstance(answer["result"]["sessionId"], str)  # the injector's own id back
        refused = subprocess.run([*RPCSPY, "inject", str(proc.pid), "--once", '!{"jsonrpc":"1.0","method":"x"}'],
                                 env=env, capture_output=True, text=True, timeout=60)
        assert refused.returncode == 1 and '"jsonrpc":"2.0"' in refused.stderr
        send(proc, {"jsonrpc": "2.0", "id": 1, "method": "session/new", "params": {"cwd": cwd, "mcpServers": []}})
        mine = response(proc)
        assert mine["id"] == 1 and mine["result"]["sessionId"] != answer["result"]["sessionId"]
        rest, _ = proc.communicate(b"", timeout=60)  # EOF: pi-acp ends
    assert b"rpcspy-inject" not in rest  # the client never saw the injected request's answer
    frames = [(f.dir, f.injected, json.loads(f.data)) for f in open_recording(rec).frames() if f.dir != "err"]
    marked = [(d, m.get("id"), m.get("method")) for d, inj, m in frames if inj]
    assert marked == [("c2a", "rpcspy-inject-1", "session/new"), ("a2c", "rpcspy-inject-1", None)]
    assert [m.get("id") for d, inj, m in frames if d == "a2c" and not inj and "result" in m] == [0, 1]
