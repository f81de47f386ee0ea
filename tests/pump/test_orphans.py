"""No orphans: the agent's whole process group goes when rpcspy is killed, and forwarded signals reach it all."""

from __future__ import annotations

import json
import os
import signal
import time
from pathlib import Path

from tests.pump.proxyrun import fake, spawn


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return False
    return state not in ("Z", "X")  # a zombie has ended, whoever is to reap it


def _gone(pids: list[int], within: float = 20.0) -> bool:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        if not any(_alive(p) for p in pids):
            return True
        time.sleep(0.05)
    return False


def _start_family(tmp_path: Path):  # type: ignore[no-untyped-def]
    proc = spawn(tmp_path / "r.jsonl", fake("family"))
    pids = json.loads(proc.stdout.readline())  # type: ignore[union-attr]
    return proc, [pids["agent"], pids["child"]]


def test_kill_9_of_rpcspy_takes_the_agents_children_too(tmp_path: Path) -> None:
    proc, pids = _start_family(tmp_path)
    try:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(10)
        assert _gone(pids), f"still running after rpcspy was killed: {[p for p in pids if _alive(p)]}"
    finally:
        for pid in pids:
            if _alive(pid):
                os.kill(pid, signal.SIGKILL)


def test_a_forwarded_signal_reaches_the_agents_process_group(tmp_path: Path) -> None:
    proc, pids = _start_family(tmp_path)
    try:
        os.kill(proc.pid, signal.SIGTERM)
        assert proc.wait(20) == 128 + signal.SIGTERM
        assert _gone(pids[1:]), "the agent's child did not get the forwarded SIGTERM"
    finally:
        for pid in pids:
            if _alive(pid):
                os.kill(pid, signal.SIGKILL)


def test_kill_9_of_rpcspy_is_said_in_the_recording(tmp_path: Path) -> None:
    """The agent's child outlives rpcspy's kill -9 (only the agent gets SIGTERM from the kernel) until
    the observer process ends the group; the recording, finished by the observer process, says so,
    naming the group, after every frame the agent sent."""
    from rpcspy.events import Note
    from rpcspy.recording import RecordingError, open_recording

    proc, pids = _start_family(tmp_path)
    rec = tmp_path / "r.jsonl"
    try:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(10)
        assert _gone(pids)
        deadline = time.monotonic() + 30  # the observer process writes it after rpcspy died: a hang guard
        note = None
        while note is None and time.monotonic() < deadline:
            try:
                entries = list(open_recording(rec).entries())
            except RecordingError:
                entries = []
            notes = [e for e in entries if isinstance(e, Note) and "ended before the agent" in e.text]
            note = notes[0] if notes else None
            time.sleep(0.05)
        assert note is not None, "no note that rpcspy ended before the agent"
        assert note.level == "warning" and note.text == (
            "rpcspy ended before the agent did (killed?): the observer process ended the agent's process "
            f"group {pids[0]}")
        frames = list(open_recording(rec).frames())
        assert [json.loads(f.data) for f in frames if f.dir == "a2c"] == [{"agent": pids[0], "child": pids[1]}]
        assert note.seq > frames[-1].seq
    finally:
        for pid in pids:
            if _alive(pid):
                os.kill(pid, signal.SIGKILL)
