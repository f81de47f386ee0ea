"""An injection while the client does not read (its stdout pipe full, the proxy's relay of the agent's
output stuck writing to it on the tape path): refused unsent, never leaked; the client's input flows.

Real processes: ``rpcspy`` (observer process, control socket), an agent that logs every line it
reads (tests/pump/fake_agent.py ``logged``), a control client, and a client that reads nothing.
"""

from __future__ import annotations

import fcntl
import json
import os
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from rpcspy.injection.ledger import PREFIX
from rpcspy.pump import tape as tape_module
from rpcspy.pump.control_client import ControlClient
from rpcspy.pump.tape import pipe_holds
from rpcspy.recording import open_recording
from tests.pump.proxyrun import fake, spawn

pytestmark = pytest.mark.skipif(not tape_module.AVAILABLE, reason="the tape path is Linux-only")

F_GETPIPE_SZ = 1032
FLOOD = 8 << 20


def _wait_for(cond, what: str) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + 60  # a hang guard, not a speed check
    while not cond():
        assert time.monotonic() < deadline, what
        time.sleep(0.01)


def test_an_injection_while_the_client_reads_nothing_is_refused_unsent_and_never_leaks(
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

        # The relay now waits for the client, which reads nothing: an injection cannot be armed.
        reply: dict[str, Any] = {}
        log_at_reply: list[bytes] = []

        def inject() -> None:
            with ControlClient(str(sock)) as client:
                reply.update(client.inject({"type": "get_state"}, timeout=60))
            log_at_reply.append(log.read_bytes())

        injector = threading.Thread(target=inject)
        injector.start()
        time.sleep(0.5)  # the divert is asked for; the client goes on writing meanwhile
        proc.stdin.write(b'{"id":"p1","type":"ping"}\n')
        proc.stdin.flush()
        _wait_for(lambda: b'"p1"' in log.read_bytes(), "the client's line did not reach the agent")
        injector.join(60)
        assert not injector.is_alive()
        assert reply["ok"] is False and "could not arm the divert" in reply["error"], reply
        assert b'"p1"' in log_at_reply[0], "the client's input waited for the divert"
        assert PREFIX.encode() not in log.read_bytes(), "nothing is written to the agent"

        # Once the client reads, the relay leaves the tape path: the next injection is armed and sent,
        # and its answer goes to the injector only.
        got = bytearray()
        reader = threading.Thread(target=lambda: got.extend(proc.stdout.read()))  # type: ignore[union-attr]
        reader.start()
        with ControlClient(str(sock)) as client:
            ack = client.inject({"id": "mine", "type": "get_state"}, timeout=60)
            assert ack["ok"] is True, ack
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
    assert injected == [("c2a", "rpcspy-inject-2"), ("a2c", "rpcspy-inject-2")]
    assert log.read_bytes().count(PREFIX.encode()) == 1


def test_the_divert_is_armed_only_once_the_relay_left_the_tape_path_and_asking_never_waits(
        tmp_path: Path) -> None:
    """The relay is stuck sending taped bytes to a client that reads nothing: divert_ids returns at once
    without arming (the injection would be refused); once the client reads, the relay arms, tells
    whoever asked (once each), and an answer after that is kept from the client."""
    from rpcspy.pump.spawn import F_SETPIPE_SZ
    from rpcspy.pump.splice import AgentRelay
    from rpcspy.pump.tape import Tape
    from tests.pump.test_tape import TapeSink, _read_all, _write_all

    src_r, src_w = os.pipe()
    fcntl.fcntl(src_w, F_SETPIPE_SZ, 1 << 20)
    out_r, out_w = os.pipe()
    sink = TapeSink(Tape(str(tmp_path)))
    relay = AgentRelay("a2c", src_r, out_w, sink, lambda: 0.0)  # type: ignore[arg-type]
    relay.start()
    bulk = b'{"type":"x","pad":"' + b"p" * 900_000 + b'"}\n'
    _write_all(src_w, bulk)
    full = fcntl.fcntl(out_w, F_GETPIPE_SZ)
    _wait_for(lambda: pipe_holds(out_r) >= full, "the client's pipe did not fill")
    told: list[str] = []
    relay.divert_ids(PREFIX.encode(), lambda: told.append("first"))
    relay.divert_ids(PREFIX.encode(), lambda: told.append("second"))
    assert not relay.armed.is_set() and told == []  # stuck in the send: not armed, and nobody waited
    got = bytearray()
    reader = threading.Thread(target=lambda: got.extend(_read_all(out_r)))
    reader.start()
    _wait_for(relay.armed.is_set, "the relay did not arm once the client read")
    assert told == ["first", "second"]
    relay.divert_ids(PREFIX.encode(), lambda: told.append("armed already"))
    assert told == ["first", "second", "armed already"]
    answer = b'{"id":"rpcspy-inject-1","type":"response","success":true}\n'
    _write_all(src_w, answer + b'{"id":"c","type":"response"}\n')
    os.close(src_w)
    relay.join(60)
    os.close(out_w)
    reader.join(60)
    assert bytes(got) == bulk + b'{"id":"c","type":"response"}\n'
