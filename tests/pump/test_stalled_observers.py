"""Observers that stop (SIGSTOP) or whose disk is full never hold forwarding up; the recording says what it lacks."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import pytest

from rpcspy.recording import open_recording
from rpcspy.recording.format import ExitEntry, FindingEntry, NoteEntry
from tests.pump.proxyrun import fake, spawn
from tests.pump.smallfs import fill, tiny_tmpfs

pytestmark = pytest.mark.skipif(not hasattr(os, "splice"), reason="Linux proxy internals")


def _children(pid: int) -> list[int]:
    kids: list[int] = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        kids += [int(k) for k in (task / "children").read_text().split()]
    return kids


def _observer_tree(proxy: int) -> list[int]:
    """The observer process and its drain process (not the agent)."""
    for kid in _children(proxy):
        if Path(f"/proc/{kid}/cmdline").read_bytes().split(b"\0")[1:3] == [b"-m", b"rpcspy"]:
            return [kid, *_children(kid)]
    raise AssertionError("no observer process")


def _gaps(rec: Path) -> list[NoteEntry]:
    return [e for e in open_recording(rec).entries() if isinstance(e, NoteEntry) and e.dropped_bytes]


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
    while len(_observer_tree(proc.pid)) < 2:
        time.sleep(0.01)
    stopped = _observer_tree(proc.pid)
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
    assert b"the observers fell behind" in proc.stderr.read()  # type: ignore[union-attr]
    gaps = _gaps(rec)
    assert gaps and all("forwarded but not recorded" in g.text for g in gaps)
    assert {g.dir for g in gaps} <= {"c2a", "a2c"} and sum(g.dropped_bytes for g in gaps) > 0
    frames = [f.raw() for f in open_recording(rec).frames()]
    assert b'{"type":"before"}\n' in frames and resumed in frames
    findings = [e for e in open_recording(rec).entries() if isinstance(e, FindingEntry) and e.rule == "checker.gap"]
    assert len(findings) == len(gaps)  # the live check flags each gap
    assert isinstance(list(open_recording(rec).entries())[-1], ExitEntry)


def test_a_full_tmpdir_costs_recording_not_forwarding(tmp_path: Path) -> None:
    """Tape and spool on a really full file system (a tiny tmpfs): every byte forwarded, gaps recorded."""
    with tiny_tmpfs(tmp_path / "fs") as fs:
        fill(fs)
        rec = tmp_path / "r.jsonl"
        data = os.urandom(12 << 20).replace(b"\n", b"n") + b"\n"
        src = tmp_path / "out.bin"
        src.write_bytes(data)
        proc = spawn(rec, fake("file", str(src)), "--tmp-dir", str(fs))
        proc.stdin.close()  # type: ignore[union-attr]
        got = proc.stdout.read()  # type: ignore[union-attr]
        assert proc.wait(60) == 0
        err = proc.stderr.read()  # type: ignore[union-attr]
        assert got == data
        assert b"Traceback" not in err, err
        assert err.count(b"the tape failed (No space left on device)") == 1, err  # each said once
        assert err.count(b"spool could not be written (No space left on device)") == 1, err
        entries = list(open_recording(rec).entries())
        assert isinstance(entries[-1], ExitEntry)
        notes = [e.text for e in entries if isinstance(e, NoteEntry)]
        assert any("No space left on device" in n for n in notes)
        recorded = sum(len(f.raw()) for f in open_recording(rec).frames() if f.dir == "a2c")
        assert recorded + sum(g.dropped_bytes for g in _gaps(rec) if g.dir == "a2c") == len(data)  # none unsaid
