"""Adversarial clients under every mode of the proxy (issue 20): what each side sent, the other got, byte
for byte (sha256), however the client reads; rpcspy exits with the agent, says no traceback, leaves no
process behind, and the recording (if any) ends with the exit.

Six clients per mode run at once (a session each): a reader of single bytes, one that stalls 5 s then
drains, a slow line reader, a bursty reader, one that closes early, and one that floods the agent while
it reads (both directions at once). The agent (fake_agent.py ``serve``) writes 9 MiB of mixed lines when
told "go" and echoes everything else. The "inject" mode first has `rpcspy inject` send a command whose
answer the proxy keeps from the client (the diverting relays are in use from then on).
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import threading
import time
from pathlib import Path

import pytest

from rpcspy.events import Exit
from rpcspy.pump.observers.control_client import ControlClient
from rpcspy.recording import open_recording
from tests.pump import adversaries
from tests.pump.proxyrun import fake, spawn
from tests.pump.streams import mixed_stream

MODES = {
    "default": (True, ()),
    "no-record": (False, ()),
    "no-check": (True, ("--no-check",)),
    "no-control": (True, ("--no-control",)),
    "bare": (False, ("--no-check", "--no-control")),
    "inject": (True, ()),
}
"""Proxy modes: (records?, options)."""
READERS: dict[str, adversaries.Reader] = {
    "one-byte": adversaries.one_byte,
    "stall-5s": adversaries.stall_then_drain,
    "slow-lines": adversaries.slow_lines,
    "bursty": adversaries.bursty,
    "closes-early": adversaries.closes_early,
    "floods-both-ways": adversaries.bursty,
}
GO = b'{"type":"go"}\n'


@pytest.fixture(scope="module")
def stream(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("stream") / "out.jsonl"
    path.write_bytes(mixed_stream(20, 9 << 20, biggest=3 << 20) + b"\n")  # past 8 MiB (the old tape's release step)
    return path


def _flood(seed: int) -> bytes:
    rng = random.Random(seed)
    return b"".join(b'{"type":"prompt","n":%d,"x":"%s"}\n' % (n, b"q" * rng.randint(10, 40000))
                    for n in range(400))  # about 8 MB


def _inject(sock: Path) -> None:
    """Inject a command through the control socket; its answer goes to us, not to the client."""
    deadline = time.monotonic() + 60  # a hang guard
    while not sock.exists():
        assert time.monotonic() < deadline, "no control socket"
        time.sleep(0.01)
    with ControlClient(str(sock)) as client:
        ack = client.inject({"type": "get_state"}, timeout=60)
        assert ack["ok"] is True, ack
        answer = client.wait_response(ack["ref"], 60)
    assert answer["response"]["type"] == "response", answer


class Session:
    """One proxied session with one client behaviour."""

    def __init__(self, tmp: Path, stream: Path, mode: str, reader: str) -> None:
        records, opts = MODES[mode]
        self.dir = tmp / reader
        self.dir.mkdir()
        self.src = self.dir / "out.jsonl"  # the session's own path: its processes are found by it
        os.link(stream, self.src)
        self.rec = self.dir / "r.jsonl" if records else None
        self.mode, self.reader = mode, reader
        self.sent = GO + (_flood(len(reader)) if reader == "floods-both-ways" else b"")
        self.expected = stream.read_bytes() + self.sent[len(GO):]
        self.got = b""
        self.errors: list[BaseException] = []
        env = {**os.environ, "XDG_RUNTIME_DIR": str(self.dir)}
        self.proc = spawn(self.rec, fake("serve", str(self.src)), *opts, env=env)

    def run(self) -> None:
        try:
            assert self.proc.stdin is not None and self.proc.stdout is not None
            if self.mode == "inject":
                _inject(self.dir / "rpcspy" / f"{self.proc.pid}.sock")
            writer = threading.Thread(target=self._write, daemon=True)
            writer.start()
            self.got = READERS[self.reader](self.proc.stdout)
            writer.join(180)
        except BaseException as exc:  # noqa: BLE001 - reported by the test
            self.errors.append(exc)

    def _write(self) -> None:
        assert self.proc.stdin is not None
        try:
            self.proc.stdin.write(self.sent)
            self.proc.stdin.close()
        except BrokenPipeError:
            pass


@pytest.mark.parametrize("mode", list(MODES))
def test_adversarial_clients_get_every_byte(tmp_path: Path, stream: Path, mode: str) -> None:
    sessions = [Session(tmp_path, stream, mode, reader) for reader in READERS]
    threads = [threading.Thread(target=s.run, daemon=True) for s in sessions]
    for t in threads:
        t.start()
    for t in threads:
        t.join(300)  # a hang guard
    for s in sessions:
        code, err = adversaries.finish(s.proc)
        what = f"{mode}/{s.reader}"
        assert not s.errors, (what, s.errors)
        assert code == 0, (what, code, err)
        assert b"Traceback" not in err, (what, err)
        if s.reader == "closes-early":
            assert s.got == s.expected[:len(s.got)] and len(s.got) == 100 << 10, what
        else:
            if hashlib.sha256(s.got).digest() != hashlib.sha256(s.expected).digest():
                first_bad = next(i for i in range(0, len(s.got), 4096) if s.got[i:i + 4096] != s.expected[i:i + 4096])
                pytest.fail(f"{what}: {len(s.got)} of {len(s.expected)} bytes, first altered 4 KiB block at "
                            f"{first_bad}: {s.got[first_bad:first_bad + 4096].count(0)} NUL there")
        assert adversaries.leftovers(str(s.src)) == [], what
        if s.rec is not None:
            entries = list(open_recording(s.rec).entries())
            assert isinstance(entries[-1], Exit), what
            frames = list(open_recording(s.rec).frames())
            a2c = b"".join(f.raw() for f in frames if f.dir == "a2c" and not f.injected)
            assert a2c == s.expected, what  # the recording agrees with the client
            if mode == "inject":
                injected = [(f.dir, json.loads(f.data)["id"]) for f in frames if f.injected]
                assert injected == [("c2a", "rpcspy-inject-1"), ("a2c", "rpcspy-inject-1")], what
