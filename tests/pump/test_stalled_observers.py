"""Observers that stop (SIGSTOP) for longer than --gap-after, die, or whose disk is full never hold forwarding up
for longer than that; the recording says what it lacks. Observers stopped for less lose nothing: the writer waits."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from rpcspy.events import Exit, Finding, Note
from rpcspy.recording import open_recording
from tests.pump.proxyrun import RPCSPY, fake, spawn
from tests.pump.smallfs import fill, tiny_tmpfs

pytestmark = pytest.mark.skipif(not hasattr(os, "splice"), reason="Linux proxy internals")


def _children(pid: int) -> list[int]:
    kids: list[int] = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        kids += [int(k) for k in (task / "children").read_text().split()]
    return kids


def _observer_tree(proxy: int) -> list[int]:
    """The observer process (not the agent): forked, it shares the proxy's command line. Only once the agent
    has started (a child with another command line): until its exec, the agent's fork shares it too."""
    own = Path(f"/proc/{proxy}/cmdline").read_bytes()
    kids = {kid: Path(f"/proc/{kid}/cmdline").read_bytes() for kid in _children(proxy)}
    same = [kid for kid, cmdline in kids.items() if cmdline == own]
    if len(same) == 1 and len(kids) > 1:
        return same
    raise AssertionError("no observer process (or the agent has not started yet)")


def _wait_for_observer_tree(proxy: int) -> list[int]:
    """The observer process, once it has started."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            if len(tree := _observer_tree(proxy)) >= 1:
                return tree
        except (AssertionError, OSError):
            pass
        time.sleep(0.01)
    raise AssertionError("the observer process never started")


def _stop_observers(proxy: int) -> list[int]:
    """SIGSTOP the observer process once it runs; its pid in a list (for SIGCONT)."""
    stopped = _wait_for_observer_tree(proxy)
    for pid in stopped:
        os.kill(pid, signal.SIGSTOP)
    return stopped


def _read_to_end(stream) -> tuple[bytearray, threading.Thread]:  # type: ignore[no-untyped-def]
    """Read ``stream`` to its end in a thread: what it got, and the thread (to join)."""
    got = bytearray()
    reader = threading.Thread(target=lambda: got.extend(stream.read()), daemon=True)
    reader.start()
    return got, reader


def _gaps(rec: Path) -> list[Note]:
    return [e for e in open_recording(rec).entries() if isinstance(e, Note) and e.dropped_bytes]


def _send_until_recorded(proc, rec: Path) -> bytes:  # type: ignore[no-untyped-def]
    """Send numbered lines until one of them shows up in the recording; return it."""
    deadline = time.monotonic() + 60
    n = 0
    while time.monotonic() < deadline:
        n += 1
        line = b'{"type":"after","n":%d}\n' % n
        proc.stdin.write(line)
        proc.stdin.flush()
        assert proc.stdout.readline() == line
        time.sleep(0.05)
        if b'"n":%d}' % n in rec.read_bytes():
            return line
    raise AssertionError("the recording never went on after the observers came back")


def test_stopped_observers_do_not_stop_forwarding(tmp_path: Path) -> None:
    rec = tmp_path / "r.jsonl"
    proc = spawn(rec, fake("echo"))
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(b'{"type":"before"}\n')
    proc.stdin.flush()
    assert proc.stdout.readline() == b'{"type":"before"}\n'
    stopped = _wait_for_observer_tree(proc.pid)
    for pid in stopped:
        os.kill(pid, signal.SIGSTOP)
    try:
        line = b'{"type":"during","x":"' + b"z" * 32000 + b'"}\n'
        for _ in range((100 << 20) // len(line)):  # far more than the pipe and what is held in memory
            proc.stdin.write(line)
            proc.stdin.flush()
            assert proc.stdout.readline() == line  # forwarded while the observers are stopped
    finally:
        for pid in stopped:
            os.kill(pid, signal.SIGCONT)
    resumed = _send_until_recorded(proc, rec)  # once the observers run again, the recording goes on
    proc.stdin.close()
    assert proc.stdout.read() == b""
    assert proc.wait(60) == 0
    assert b"the observers stalled" in proc.stderr.read()  # type: ignore[union-attr]
    gaps = _gaps(rec)
    assert gaps and all("forwarded but not recorded" in g.text for g in gaps)
    assert {g.dir for g in gaps} <= {"c2a", "a2c"} and sum(g.dropped_bytes for g in gaps) > 0
    frames = [f.raw() for f in open_recording(rec).frames()]
    assert b'{"type":"before"}\n' in frames and resumed in frames
    findings = [e for e in open_recording(rec).entries() if isinstance(e, Finding) and e.rule == "checker.gap"]
    more = sum(f.extra.get("more", 0) for f in findings)  # past 1,000 a rule's findings are counted in one
    stopped = any(isinstance(e, Note) and e.text.endswith("`rpcspy check` covers the rest")
                  for e in open_recording(rec).entries())  # or the live check fell behind and said so
    assert len(findings) - (1 if more else 0) + more == len(gaps) or stopped  # the live check flags each gap
    rest = [e for e in open_recording(rec).entries() if not isinstance(e, Finding)]
    assert isinstance(rest[-1], Exit)  # end-of-session findings (the count past the cap) may follow it


def test_a_full_tmpdir_costs_nothing(tmp_path: Path) -> None:
    """TMPDIR (and --tmp-dir) on a really full file system (a tiny tmpfs): rpcspy keeps nothing there, so
    every byte is forwarded and recorded, with no gap and no word of the disk."""
    with tiny_tmpfs(tmp_path / "fs") as fs:
        fill(fs)
        rec = tmp_path / "r.jsonl"
        data = os.urandom(12 << 20).replace(b"\n", b"n") + b"\n"
        src = tmp_path / "out.bin"
        src.write_bytes(data)
        proc = spawn(rec, fake("file", str(src)), "--tmp-dir", str(fs), env={**os.environ, "TMPDIR": str(fs)})
        proc.stdin.close()  # type: ignore[union-attr]
        got = proc.stdout.read()  # type: ignore[union-attr]
        assert proc.wait(60) == 0
        err = proc.stderr.read()  # type: ignore[union-attr]
        assert got == data
        assert b"No space" not in err and b"stalled" not in err and b"Traceback" not in err, err
        entries = list(open_recording(rec).entries())
        assert isinstance(entries[-1], Exit)
        assert _gaps(rec) == []
        assert b"".join(f.raw() for f in open_recording(rec).frames() if f.dir == "a2c") == data


def test_observers_stopped_for_less_than_gap_after_slow_the_client_and_lose_nothing(tmp_path: Path) -> None:
    """A client flooding commands while the observers are stopped is held back (its writes block), not recorded
    with holes: once they run again every frame of both directions is recorded."""
    rec = tmp_path / "r.jsonl"
    proc = spawn(rec, fake("echo"), "--gap-after", "120")
    assert proc.stdin is not None and proc.stdout is not None
    lines = [b'{"type":"during","n":%d,"x":"%s"}\n' % (n, b"z" * 32000) for n in range(1300)]  # 40 MiB
    got, reader = _read_to_end(proc.stdout)
    stopped = _stop_observers(proc.pid)

    def flood() -> None:
        for line in lines:
            proc.stdin.write(line)  # type: ignore[union-attr]
        proc.stdin.close()  # type: ignore[union-attr]

    writer = threading.Thread(target=flood, daemon=True)
    writer.start()
    try:
        writer.join(1.0)
        held_back = writer.is_alive()  # 80 MiB to record, 17 MiB of room: the client waits
    finally:
        for pid in stopped:
            os.kill(pid, signal.SIGCONT)
    writer.join(120)
    reader.join(120)
    assert proc.wait(120) == 0
    assert held_back
    assert bytes(got) == b"".join(lines)
    assert _gaps(rec) == []
    frames = list(open_recording(rec).frames())
    assert [f.raw() for f in frames if f.dir == "c2a"] == lines
    assert b"".join(f.raw() for f in frames if f.dir == "a2c") == b"".join(lines)


def test_a_killed_observer_process_costs_the_recording_not_forwarding(tmp_path: Path) -> None:
    """SIGKILL of the observer process mid-burst: the proxy's next write to the pipe fails, and it forwards
    the rest at full speed, byte-exact, and exits with the agent."""
    data = os.urandom(48 << 20).replace(b"\n", b"n") + b"\n"
    src = tmp_path / "out.bin"
    src.write_bytes(data)
    proc = spawn(tmp_path / "r.jsonl", fake("file", str(src)))
    proc.stdin.close()  # type: ignore[union-attr]
    tree = _wait_for_observer_tree(proc.pid)
    os.kill(tree[0], signal.SIGKILL)  # the observer process
    got = proc.stdout.read()  # type: ignore[union-attr]
    assert proc.wait(60) == 0
    assert got == data
    err = proc.stderr.read()  # type: ignore[union-attr]
    assert b"observer process gone" in err and b"Traceback" not in err, err


def test_a_relay_waiting_for_observers_is_waited_for_after_the_agent_exits(tmp_path: Path) -> None:
    """With a --gap-after longer than the 5 s the proxy gives its relays after the agent exits, the relay
    holding the agent's last stderr (observers stopped) is still waited for: it cuts a gap, forwards the
    rest and ends; the recording has no false "still open" note (before: one, and the relay cut off). The
    observer process, still stopped at the end, is ended, and the recording says so (the proxy's own note)."""
    rec = tmp_path / "r.jsonl"
    agent = [sys.executable, "-c", "import os, sys; sys.stdin.readline(); "
             "[os.write(2, b'e' * 65536) for _ in range(288)]"]  # 18 MiB: fits in the pipes and the hold, then exit
    proc = subprocess.Popen([*RPCSPY, "-o", str(rec), "--gap-after", "6", "--", *agent], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdin is not None and proc.stderr is not None
    err, reader = _read_to_end(proc.stderr)
    stopped = _stop_observers(proc.pid)
    try:
        proc.stdin.write(b"go\n")
        proc.stdin.close()
        time.sleep(9)  # past the stall time and the old 5 s: the relay has cut its gap and ended by now
    finally:
        for pid in stopped:
            try:
                os.kill(pid, signal.SIGCONT)
            except ProcessLookupError:
                pass  # ended by the proxy (stopped at the end of the session)
    assert proc.wait(120) == 0
    reader.join(60)
    agent_err = re.sub(rb"rpcspy: [^\n]*\n", b"", bytes(err))  # rpcspy's own lines go between chunks
    assert agent_err == b"e" * (18 << 20)  # the user's terminal got all of the agent's stderr
    notes = [e.text for e in open_recording(rec).entries() if isinstance(e, Note)]
    assert not any("still open" in n for n in notes), notes
    assert any("observer process was stopped (SIGSTOP)" in n for n in notes), notes  # what is missing, and why
    assert b"took nothing for 6 s" in bytes(err)  # the gap was cut after --gap-after (said on stderr)
    assert isinstance(list(open_recording(rec).entries())[-1], Exit)
