"""AgentProcess against tiny Python children: LF-only framing, requests, timeouts, cleanup."""

from __future__ import annotations

import os
import signal
import sys
import threading
import time

import pytest

from tests.support.driver import AgentProcess, is_response, is_type, parse

ECHO = r"""
import json, sys
sys.stderr.write("echo ready\n"); sys.stderr.flush()
for line in sys.stdin.buffer:
    try:
        cmd = json.loads(line)
    except ValueError:
        cmd = {}
    sys.stdout.buffer.write(json.dumps({"type": "event", "n": 1}).encode() + b"\n")
    sys.stdout.buffer.write(json.dumps({"type": "response", "id": cmd.get("id"), "raw": line.decode("utf-8", "replace")}).encode() + b"\n")
    sys.stdout.flush()
sys.exit(3)
"""


def child(code: str, grace: float = 5.0) -> AgentProcess:
    return AgentProcess([sys.executable, "-c", code], grace=grace)


def test_stdout_split_on_lf_only() -> None:
    code = r"""import sys; sys.stdout.buffer.write(b'{"a":"x\xe2\x80\xa8y"}\r\nplain\rtext\xe2\x80\xa9\n\xff\xfe\npartial')"""
    with child(code) as ap:
        lines = ap.read_rest(timeout=10)
        assert ap.wait(10) == 0
    assert lines == ap.frames == [
        b'{"a":"x\xe2\x80\xa8y"}\r', b"plain\rtext\xe2\x80\xa9", b"\xff\xfe", b"partial"
    ]
    assert ap.trailing_newline is False
    assert bytes(ap.stdout) == b"\n".join(lines)
    assert parse(lines[0]) == {"a": "x\u2028y"} and parse(lines[2]) == {}


def test_request_read_until_and_exit_code() -> None:
    with child(ECHO) as ap:
        resp = ap.request({"id": "r1", "type": "get_state"}, timeout=10)
        assert resp["id"] == "r1" and resp["type"] == "response"
        ap.send(b"raw bytes\r\n")
        seen = ap.read_until(is_type("response"), timeout=10)
        assert [m["type"] for m in seen] == ["event", "response"]
        assert seen[-1]["raw"] == "raw bytes\r\n" and seen[-1]["id"] is None
        ap.send('{"id": 7}\n')
        assert ap.read_until(is_response(7), timeout=10)[-1]["id"] == 7
        assert ap.sent == [b'{"id": "r1", "type": "get_state"}\n', b"raw bytes\r\n", b'{"id": 7}\n']
        assert ap.finish(timeout=10) == 3
    assert "echo ready" in ap.stderr
    assert len(ap.frames) == 6


def test_timeout_and_eof_errors_carry_context() -> None:
    with child(ECHO) as ap:
        ap.send({"id": "x"})
        with pytest.raises(TimeoutError, match="condition not met") as info:
            ap.read_until(is_type("never"), timeout=1.0)
        assert "last frames" in str(info.value) and '"id":"x"' in str(info.value).replace(" ", "")
        ap.close_stdin()
        with pytest.raises(EOFError, match="stdout closed"):
            ap.read_until(is_type("never"), timeout=10)
        assert ap.next_line(0.1) is None  # stays at EOF


def test_context_exit_kills_a_child_that_ignores_eof() -> None:
    """A child that ignores EOF, with a child of its own, both sleeping ten minutes: leaving the context
    kills the whole process group after the grace instead of waiting for them."""
    code = ("import subprocess, sys, time; p = subprocess.Popen(['sleep', '600']); "
            "print(p.pid, flush=True); time.sleep(600)")
    left = threading.Event()
    used: list[AgentProcess] = []

    def use() -> None:
        with child(code, grace=0.2) as ap:
            used.append(ap)
            line = ap.next_line(120)  # it has spawned the grandchild
            assert line is not None
        left.set()

    user = threading.Thread(target=use, daemon=True)
    user.start()
    user.join(120)  # hang guards, not speed checks: without the kill this takes the ten minutes
    assert left.is_set(), "leaving the context waited for the child"
    (ap,) = used
    assert ap.proc.returncode == -signal.SIGKILL
    deadline = time.monotonic() + 120
    while True:  # the whole process group, grandchild included, is gone
        try:
            os.killpg(ap.proc.pid, 0)
        except ProcessLookupError:
            break
        assert time.monotonic() < deadline, "process group still alive"
        time.sleep(0.05)