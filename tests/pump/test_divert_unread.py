"""An injection while the client does not read (its stdout pipe full, the proxy's relay of the agent's
output stuck writing to it): sent, its answer never leaked; the client's input flows.

Real processes: ``rpcspy`` (observer process, control socket), an agent that logs every line it
reads (tests/pump/commands/fake_agent.py ``logged``), a control client, and a client that reads nothing.
"""

from __future__ import annotations

import fcntl
import json
import os
import struct
import termios
import threading
import time
from pathlib import Path

import pytest

from rpcspy.injection.ledger import PREFIX
from rpcspy.pump.observers.control_client import ControlClient
from rpcspy.recording import open_recording
from tests.pump.proxyrun import fake, spawn

pytestmark = pytest.mark.skipif(not hasattr(fcntl, "F_SETPIPE_SZ") and os.uname().sysname != "Linux",
                                reason="pipe sizes are Linux-only")

F_GETPIPE_SZ = 1032
FLOOD = 8 << 20


def pipe_holds(fd: int) -> int:
    """How many bytes pipe ``fd`` holds now (FIONREAD)."""
    return struct.unpack("i", fcntl.ioctl(fd, termios.FIONREAD, b"\0\0\0\0"))[0]


def _wait_for(cond, what: str) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + 60  # a hang guard, not a speed check
    while not cond():
        assert time.monotonic() < deadline, what
        time.sleep(0.01)


def test_an_injection_while_the_client_reads_nothing_is_sent_and_its_answer_never_leaks(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path))
    log, rec = tmp_path / "agent-stdin.log", tmp_path / "r.jsonl"
    log.touch()
    proc = spawn(rec, fake("logged", str(log)))
    sock = tmp_path / "rpcspy" / f"{proc.pid}.sock"
    try:
        assert proc.stdin is not None and proc.stdout is not None
        out = proc.stdout.fileno()
        _wait_for(sock.exists, "no control socket")
        proc.stdin.write(json.dumps({"id": "f", "type": "flood", "bytes": FLOOD}).encode() + b"\n")
        proc.stdin.flush()
        full = fcntl.fcntl(out, F_GETPIPE_SZ)
        _wait_for(lambda: pipe_holds(out) >= full, "the client's stdout pipe did not fill")

        # The relay waits for the client, which reads nothing; the divert is armed all the same (the relay
        # sees every line itself), so the injection is sent, the client's input flows, and the answer waits
        # behind the flood in the agent's pipe, to be kept from the client once it reads.
        got = bytearray()
        reader = threading.Thread(target=lambda: got.extend(proc.stdout.read()))  # type: ignore[union-attr]
        with ControlClient(str(sock)) as client:
            ack = client.inject({"id": "mine", "type": "get_state"}, timeout=60)
            assert ack["ok"] is True, ack
            _wait_for(lambda: PREFIX.encode() in log.read_bytes(), "the injection did not reach the agent")
            proc.stdin.write(b'{"id":"p1","type":"ping"}\n')
            proc.stdin.flush()
            _wait_for(lambda: b'"p1"' in log.read_bytes(), "the client's line did not reach the agent")
            reader.start()
            answer = client.wait_response(ack["ref"], 60)
        assert answer["response"] == {"id": "mine", "type": "response", "command": "get_state", "success": True}
        proc.stdin.close()
        reader.join(60)
        assert proc.wait(60) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    lines = bytes(got).splitlines()
    assert PREFIX.encode() not in bytes(got), "an answer to an injection reached the client"
    assert [json.loads(x)["id"] for x in lines if b'"response"' in x] == ["f", "p1"]
    big = len(b'{"type":"message_update","x":"' + b"y" * 1000 + b'"}\n')  # as the agent writes them
    assert sum(len(x) + 1 for x in lines if b"message_update" in x) == FLOOD // (1 << 20) * ((1 << 20) // big * big)
    injected = [(f.dir, json.loads(f.data)["id"]) for f in open_recording(rec).frames() if f.injected]
    assert injected == [("c2a", "rpcspy-inject-1"), ("a2c", "rpcspy-inject-1")]
    assert log.read_bytes().count(PREFIX.encode()) == 1
