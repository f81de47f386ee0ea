"""Injection (the relays of rpcspy.pump.forward.inject_relays): frames let in between client frames; answers to
them kept from the client."""

from __future__ import annotations

import json
import os
import select
import threading
import time
from pathlib import Path

import pytest

from rpcspy.pump.proxy import ProxyConfig, ProxySession
from rpcspy.recording import open_recording
from tests.pump.proxyrun import fake


class Harness:
    """A proxy session in a thread, its client side on pipes we hold."""

    def __init__(self, rec: Path, agent: list[str]) -> None:
        self.c_r, self.c_w = os.pipe()  # client -> proxy stdin
        self.o_r, self.o_w = os.pipe()  # proxy stdout -> client
        self.e_r, self.e_w = os.pipe()
        config = ProxyConfig(argv=agent, record_path=str(rec), stdin=self.c_r, stdout=self.o_w, stderr=self.e_w)
        self.session = ProxySession(config)
        self.code: int | None = None
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()
        while self.session.client_relay is None:
            time.sleep(0.01)
        self.buf = b""

    def _run(self) -> None:
        self.code = self.session.run()
        os.close(self.o_w)
        os.close(self.e_w)

    def send(self, data: bytes) -> None:
        os.write(self.c_w, data)

    def read_lines(self, n: int, timeout: float = 10) -> list[dict]:
        deadline = time.monotonic() + timeout
        while self.buf.count(b"\n") < n and time.monotonic() < deadline:
            self.buf += os.read(self.o_r, 65536)
        lines = self.buf.split(b"\n")
        self.buf = b"\n".join(lines[n:])
        return [json.loads(x) for x in lines[:n]]

    def finish(self) -> bytes:
        os.close(self.c_w)
        rest = self.buf
        while chunk := os.read(self.o_r, 65536):  # read while the proxy drains: it blocks on a full pipe
            rest += chunk
        self.thread.join(30)
        return rest


def test_injection_waits_for_the_clients_frame_to_end(tmp_path: Path) -> None:
    rec = tmp_path / "r.jsonl"
    h = Harness(rec, fake("respond"))
    assert h.session.divert_ids(b"rpcspy-inject-", 30)
    h.send(b'{"id":"c1","type":"get_')
    time.sleep(0.2)
    h.session.inject(b'{"id":"rpcspy-inject-1","type":"get_state"}\n')
    time.sleep(0.3)
    h.send(b'state"}\n')
    got = h.read_lines(3)
    assert got == [{"type": "seen", "of": "get_state"},
                   {"id": "c1", "type": "response", "command": "get_state", "success": True},
                   {"type": "seen", "of": "get_state"}]  # the injection's event reaches the client too
    h.send(b'{"id":"c2","type":"ping"}\n')
    got = h.read_lines(2)
    assert got[1]["id"] == "c2"  # and the injection's response never did
    assert b"rpcspy-inject" not in h.finish()
    assert h.code == 0
    frames = list(open_recording(rec).frames())
    c2a = [(f.data, f.injected) for f in frames if f.dir == "c2a"]
    assert c2a == [(b'{"id":"c1","type":"get_state"}', False),
                   (b'{"id":"rpcspy-inject-1","type":"get_state"}', True),
                   (b'{"id":"c2","type":"ping"}', False)]
    diverted = [f for f in frames if f.dir == "a2c" and f.injected]
    assert len(diverted) == 1 and b'"id":"rpcspy-inject-1"' in diverted[0].data


def test_idle_client_gets_injection_through_at_once(tmp_path: Path) -> None:
    rec = tmp_path / "r.jsonl"
    h = Harness(rec, fake("respond"))
    assert h.session.divert_ids(b"rpcspy-inject-", 30)
    h.session.inject(b'{"id":"rpcspy-inject-7","type":"get_state"}\n')
    assert h.read_lines(1) == [{"type": "seen", "of": "get_state"}]
    h.finish()
    assert any(f.injected and f.dir == "a2c" for f in open_recording(rec).frames())


def test_big_lines_pass_while_diverting(tmp_path: Path) -> None:
    rec = tmp_path / "r.jsonl"
    h = Harness(rec, fake("echo"))
    assert h.session.divert_ids(b"rpcspy-inject-", 30)
    big = b'{"type":"message_update","x":"' + b"y" * 300_000 + b'"}\n'
    h.send(big + b'{"id":"rpcspy-inject-2","type":"response"}\n' + b"tail without newline")
    out = h.finish()
    assert out == big + b"tail without newline"


def test_injection_from_the_observer_process_on_the_zero_copy_path(tmp_path: Path) -> None:
    """Process mode (observers in their own process), after megabytes of agent output: the answer to the
    injection is kept from the client and recorded as injected. (Named after the zero-copy path of
    before issue 20; every byte is a plain copy now.)"""
    import subprocess
    import sys

    rec = tmp_path / "r.jsonl"
    script = str(Path(__file__).parents[1] / "inject_session.py")
    proc = subprocess.Popen([sys.executable, script, str(rec), "--", *fake("respond")], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE)
    big = b'{"id":"warm","type":"x","pad":"' + b"p" * 3_000_000 + b'"}\n'  # several zero-copy chunks first
    proc.stdin.write(big + b'{"id":"go","type":"ping"}\n')  # type: ignore[union-attr]
    proc.stdin.flush()  # type: ignore[union-attr]
    lines = [proc.stdout.readline() for _ in range(5)]  # type: ignore[union-attr]
    proc.stdin.write(b'{"id":"after","type":"ping"}\n')  # type: ignore[union-attr]
    proc.stdin.close()  # type: ignore[union-attr]
    rest = proc.stdout.read()  # type: ignore[union-attr]
    assert proc.wait(30) == 0
    got = [json.loads(x) for x in lines + rest.splitlines()]
    ids = [g.get("id") for g in got if g.get("type") == "response"]
    assert ids == ["warm", "go", "after"]
    assert [g["of"] for g in got if g.get("type") == "seen"] == ["x", "ping", "get_state", "ping"]
    frames = list(open_recording(rec).frames())
    injected = [(f.dir, f.data[:41]) for f in frames if f.injected]
    assert injected == [("c2a", b'{"id":"rpcspy-inject-1","type":"get_state'),
                        ("a2c", b'{"id":"rpcspy-inject-1","type":"response"')]
    assert b"".join(f.raw() for f in frames if f.dir == "a2c" and not f.injected) == b"".join(
        line for line in lines) + rest


def test_the_agent_relay_executes_the_diverters_decisions(tmp_path: Path) -> None:
    """The relay keeps from the client exactly what rpcspy.injection.divert decides (tested there
    byte by byte): a spaced answer to an injection is kept; look-alikes reach the client."""
    rec = tmp_path / "r.jsonl"
    h = Harness(rec, fake("echo"))
    assert h.session.divert_ids(b"rpcspy-inject-", 30)
    spaced = b'{"type": "response", "id" : "rpcspy-inject-3"}\r\n'
    lookalikes = (b'{"id":"c","type":"response","data":{"id":"rpcspy-inject-4"}}\n'
                  b'{"id":"rpcspy-inject-me","type":"response"}\n')
    h.send(spaced + lookalikes)
    assert h.finish() == lookalikes
    diverted = [f.raw() for f in open_recording(rec).frames() if f.dir == "a2c" and f.injected]
    assert diverted == [spaced]


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_an_injection_made_while_bulk_output_flows_keeps_only_its_answer_from_the_client(
        tmp_path: Path, seed: int) -> None:
    """Process mode, an echoing agent, the client writing without pause: the observer diverts and
    injects in the middle of a stream of big lines (by tape) and small ones (copied), many of them
    carrying an answer-looking object past their first 4 KiB. The client gets exactly what it sent;
    only the echo of the injected line is kept from it, wherever the tape's chunks ended."""
    import random
    import subprocess
    import sys

    rng = random.Random(seed)
    lines = []
    for i in range(60):
        pad = b"p" * rng.choice([5000, 20_000, 70_000, 300_000]) + b"q" * rng.randrange(4096)
        lines.append(b'{"type":"update","n":%d,"content":["%s",{"id":"rpcspy-inject-1","type":"response"},"%s"]}\n'
                     % (i, pad, b"r" * rng.choice([10, 5000, 60_000])))
        if i == 20:
            lines.append(b'{"id":"go","type":"ping"}\n')
    sent = b"".join(lines)
    injected = b'{"id":"rpcspy-inject-1","type":"response"}'
    marker = b'{"type":"injected_after_it"}\n'  # not an answer: reaches the client, says the injection is done
    rec = tmp_path / "r.jsonl"
    script = str(Path(__file__).parents[1] / "inject_session.py")
    proc = subprocess.Popen([sys.executable, script, str(rec), "--", *fake("echo")], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, env={**os.environ, "INJECT_LINES": (injected + b"\n" + marker).decode()})
    out = bytearray()

    def read() -> None:
        while chunk := os.read(proc.stdout.fileno(), 1 << 16):  # type: ignore[union-attr]
            out.extend(chunk)

    reader = threading.Thread(target=read)
    reader.start()
    proc.stdin.write(sent)  # type: ignore[union-attr]
    proc.stdin.flush()  # type: ignore[union-attr]
    deadline = time.monotonic() + 120  # a hang guard, not a speed check
    while marker not in out and time.monotonic() < deadline:
        time.sleep(0.01)
    proc.stdin.close()  # type: ignore[union-attr]
    reader.join(120)
    assert proc.wait(120) == 0
    assert out.count(marker) == 1 and out.replace(marker, b"") == sent  # a line of its own; nothing else differs
    frames = list(open_recording(rec).frames())
    assert sorted((f.dir, f.data) for f in frames if f.injected) == [("a2c", injected), ("c2a", injected),
                                                                     ("c2a", marker[:-1])]


def _observer_process(pid: int) -> list[int]:
    """The observer process of the proxy ``pid`` (its child with its command line), once the agent has
    started (a child with another one): until its exec, the agent's fork shares the proxy's too."""
    kids = [int(c) for t in os.listdir(f"/proc/{pid}/task") for c in Path(f"/proc/{pid}/task/{t}/children").read_text().split()]
    own = Path(f"/proc/{pid}/cmdline").read_bytes()
    same = [k for k in kids if Path(f"/proc/{k}/cmdline").read_bytes() == own]
    return same if len(same) == 1 and len(kids) > 1 else []


def test_an_injection_reacting_to_a_frame_held_while_the_observers_pipe_was_full_still_happens(
        tmp_path: Path) -> None:
    """The observer process stopped while the client writes 3 MB and then "go": the observer
    pipe fills, the proxy holds the rest, including "go", and then every relay goes idle (the client
    waits for the injection's line). Once the observers resume, "go" must still reach them, and the
    observer injects: before the pipe sink handed over what waits by itself, this hung for good."""
    import signal
    import subprocess
    import sys

    script = str(Path(__file__).parents[1] / "inject_session.py")
    proc = subprocess.Popen([sys.executable, script, str(tmp_path / "r.jsonl"), "--", *fake("respond")],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    deadline = time.monotonic() + 60  # hang guards, not speed checks
    while not (drain := _observer_process(proc.pid)):
        assert time.monotonic() < deadline, "no observer process"
        time.sleep(0.01)
    os.kill(drain[0], signal.SIGSTOP)
    try:
        big = b'{"id":"warm","type":"x","pad":"' + b"p" * 3_000_000 + b'"}\n'
        proc.stdin.write(big + b'{"id":"go","type":"ping"}\n')  # type: ignore[union-attr]
        proc.stdin.flush()  # type: ignore[union-attr]
        lines = [proc.stdout.readline() for _ in range(4)]  # type: ignore[union-attr]
        assert b'"go"' in lines[3]  # the agent answered "go": the proxy has published it
    finally:
        os.kill(drain[0], signal.SIGCONT)
    try:
        out = b""
        while not out.endswith(b"\n"):
            ready = select.select([proc.stdout], [], [], 30)[0]
            assert ready, "the injection never happened: the frame it reacts to was never handed over"
            out += os.read(proc.stdout.fileno(), 1 << 16)  # type: ignore[union-attr]
        assert json.loads(out) == {"type": "seen", "of": "get_state"}
        proc.stdin.close()  # type: ignore[union-attr]
        assert proc.stdout.read() == b"" and proc.wait(60) == 0  # type: ignore[union-attr]
    finally:
        if proc.poll() is None:
            proc.kill()
