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

from rpcspy.recording import open_recording
from rpcspy.recording.format import ExitEntry, FindingEntry, NoteEntry
from tests.pump.proxyrun import RPCSPY, fake, spawn
from tests.pump.smallfs import fill, tiny_tmpfs

pytestmark = pytest.mark.skipif(not hasattr(os, "splice"), reason="Linux proxy internals")


def _children(pid: int) -> list[int]:
    kids: list[int] = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        kids += [int(k) for k in (task / "children").read_text().split()]
    return kids


def _observer_tree(proxy: int) -> list[int]:
    """The observer process and its drain process (not the agent): forked, they share the proxy's command line."""
    own = Path(f"/proc/{proxy}/cmdline").read_bytes()
    for kid in _children(proxy):
        if Path(f"/proc/{kid}/cmdline").read_bytes() == own:
            return [kid, *_children(kid)]
    raise AssertionError("no observer process")


def _wait_for_observer_tree(proxy: int) -> list[int]:
    """The observer process and its drain process, once both have started."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            if len(tree := _observer_tree(proxy)) >= 2:
                return tree
        except (AssertionError, OSError):
            pass
        time.sleep(0.01)
    raise AssertionError("the observer process and its drain process never started")


def _stop_observers(proxy: int) -> list[int]:
    """SIGSTOP the observer process and its drain process once both run; their pids (for SIGCONT)."""
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
    assert b"the observers stalled" in proc.stderr.read()  # type: ignore[union-attr]
    gaps = _gaps(rec)
    assert gaps and all("forwarded but not recorded" in g.text for g in gaps)
    assert {g.dir for g in gaps} <= {"c2a", "a2c"} and sum(g.dropped_bytes for g in gaps) > 0
    frames = [f.raw() for f in open_recording(rec).frames()]
    assert b'{"type":"before"}\n' in frames and resumed in frames
    findings = [e for e in open_recording(rec).entries() if isinstance(e, FindingEntry) and e.rule == "checker.gap"]
    more = sum(f.extra.get("more", 0) for f in findings)  # past 1,000 a rule's findings are counted in one
    stopped = any(isinstance(e, NoteEntry) and e.text.endswith("`rpcspy check` covers the rest")
                  for e in open_recording(rec).entries())  # or the live check fell behind and said so
    assert len(findings) - (1 if more else 0) + more == len(gaps) or stopped  # the live check flags each gap
    rest = [e for e in open_recording(rec).entries() if not isinstance(e, FindingEntry)]
    assert isinstance(rest[-1], ExitEntry)  # end-of-session findings (the count past the cap) may follow it


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
    """SIGKILL of the observer process mid-burst: its drain process leaves too, the proxy's next write to the
    pipe fails, and it forwards the rest at full speed, byte-exact, and exits with the agent."""
    data = os.urandom(48 << 20).replace(b"\n", b"n") + b"\n"
    src = tmp_path / "out.bin"
    src.write_bytes(data)
    proc = spawn(tmp_path / "r.jsonl", fake("file", str(src)))
    proc.stdin.close()  # type: ignore[union-attr]
    tree = _wait_for_observer_tree(proc.pid)
    os.kill(tree[0], signal.SIGKILL)  # the observer process; its drain process is tree[1]
    got = proc.stdout.read()  # type: ignore[union-attr]
    assert proc.wait(60) == 0
    assert got == data
    err = proc.stderr.read()  # type: ignore[union-attr]
    assert b"observer process gone" in err and b"Traceback" not in err, err


def test_a_relay_waiting_for_observers_is_waited_for_after_the_agent_exits(tmp_path: Path) -> None:
    """With a --gap-after longer than the 5 s the proxy gives its relays after the agent exits, the relay
    holding the agent's last stderr (observers stopped) is still waited for: it cuts a gap, forwards the
    rest and ends; the recording has no false "still open" note (before: one, and the relay cut off)."""
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
            os.kill(pid, signal.SIGCONT)
    assert proc.wait(120) == 0
    reader.join(60)
    agent_err = re.sub(rb"rpcspy: [^\n]*\n", b"", bytes(err))  # rpcspy's own lines go between chunks
    assert agent_err == b"e" * (18 << 20)  # the user's terminal got all of the agent's stderr
    notes = [e.text for e in open_recording(rec).entries() if isinstance(e, NoteEntry)]
    assert not any("still open" in n for n in notes), notes
    assert _gaps(rec) and any("took nothing for 6 s" in n for n in notes)  # what they missed is said, and why


SMALL_TAPE = [sys.executable, "-c", "import sys; import rpcspy.pump.tape as t; t.BACKLOG_BOUND = 4 << 20; "
              "sys.argv[0] = 'rpcspy'; from rpcspy.cli import main; main()"]
"""rpcspy with a 4 MiB tape bound, so the agent's stdout reaches it in a test."""


@pytest.mark.parametrize("gap_after", ["3", "0"])
def test_gap_after_reaches_the_tape_relay(tmp_path: Path, gap_after: str) -> None:
    """The agent's bulk stdout (the tape path) with the observers stopped: the relay waits --gap-after at
    the tape's bound, then cuts a gap that names that stall time (0: cuts at once, says no wait); the
    client gets every byte either way."""
    data = os.urandom(24 << 20).replace(b"\n", b"n") + b"\n"
    src = tmp_path / "out.bin"
    src.write_bytes(data)
    rec = tmp_path / "r.jsonl"
    proc = subprocess.Popen([*SMALL_TAPE, "-o", str(rec), "--gap-after", gap_after, "--", *fake("file", str(src))],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdin is not None and proc.stdout is not None
    got, reader = _read_to_end(proc.stdout)
    stopped = _stop_observers(proc.pid)
    try:
        proc.stdin.close()
        reader.join(60)  # forwarding goes on while they are stopped
    finally:
        for pid in stopped:
            os.kill(pid, signal.SIGCONT)
    assert proc.wait(120) == 0
    assert bytes(got) == data
    tape_gaps = [g.text for g in _gaps(rec) if g.dir == "a2c" and "tape was full" in g.text]
    assert tape_gaps, [g.text for g in _gaps(rec)]
    if gap_after == "0":  # never waited: the reason says no stall time
        assert not any("took nothing" in text for text in tape_gaps), tape_gaps
    else:
        assert all(f"took nothing for {gap_after} s" in text for text in tape_gaps), tape_gaps


class _Burst:
    """The agent writes ``count`` JSON lines of 64 KiB to stdout (the tape path) through rpcspy --gap-after 60."""

    def __init__(self, tmp_path: Path, count: int) -> None:
        self.lines = [b'{"type":"x","n":%d,"pad":"%s"}\n' % (n, b"z" * 65000) for n in range(count)]
        src = tmp_path / "out.jsonl"
        src.write_bytes(b"".join(self.lines))
        self.rec = tmp_path / "r.jsonl"
        self.proc = spawn(self.rec, fake("file", str(src)), "--gap-after", "60")
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.got, self._reader = _read_to_end(self.proc.stdout)

    def paused(self, observers: list[int], seconds: float) -> int:
        """Stop ``observers`` (SIGSTOP) for ``seconds``; the bytes the client had by then."""
        for pid in observers:
            os.kill(pid, signal.SIGSTOP)
        try:
            time.sleep(seconds)
            return len(self.got)
        finally:
            for pid in observers:
                os.kill(pid, signal.SIGCONT)

    def held_while_paused(self, observers: list[int], steady: float = 0.5, within: float = 30) -> int:
        """Stop ``observers`` until the client's bytes stop growing for ``steady`` s (or all came);
        the bytes the client had then. Far below --gap-after 60: nothing is cut meanwhile."""
        total = sum(map(len, self.lines))
        for pid in observers:
            os.kill(pid, signal.SIGSTOP)
        try:
            deadline = time.monotonic() + within
            seen, since = -1, time.monotonic()
            while time.monotonic() < deadline:
                now = len(self.got)
                if now != seen:
                    seen, since = now, time.monotonic()
                elif now == total or time.monotonic() - since >= steady:
                    break
                time.sleep(0.02)
            return len(self.got)
        finally:
            for pid in observers:
                os.kill(pid, signal.SIGCONT)

    def assert_all_recorded(self) -> None:
        """The client got every byte, and the recording every frame, with no gap."""
        self.proc.stdin.close()  # type: ignore[union-attr]
        self._reader.join(120)
        assert self.proc.wait(120) == 0
        assert bytes(self.got) == b"".join(self.lines)
        assert _gaps(self.rec) == []
        assert [f.raw() for f in open_recording(self.rec).frames() if f.dir == "a2c"] == self.lines


def test_the_tape_holds_about_their_work_not_256_mib(tmp_path: Path) -> None:
    """The agent's bulk stdout with the observers stopped from the start (for less than --gap-after): the relay
    stops at the tape's bound, which is BOUND_START (32 MiB) before their rate is measured, not the 256 MiB
    ceiling, so the agent is held back early; once they run again the bound follows their rate, and every
    frame is recorded, no gap (the bound never reaches zero: the floor, and their progress, let the relay go)."""
    burst = _Burst(tmp_path, 2000)  # 124 MiB
    held_at = burst.held_while_paused(_wait_for_observer_tree(burst.proc.pid))  # not a timed guess: the plateau
    burst.assert_all_recorded()
    assert held_at < 64 << 20, held_at  # the 256 MiB bound would have let all 124 MiB through


def test_observers_stopped_mid_burst_after_their_rate_was_measured_lose_nothing(tmp_path: Path) -> None:
    """SIGSTOP in the middle of a burst, once the observers have measured their rate: the stop counts as one
    very slow window, so the tape's bound drops (the smoothed rate halves: 129 -> 40 MiB in a traced run) while
    the relay waits; after SIGCONT the bound climbs back within a few windows (to 158 MiB and more) and the rest
    flows, no deadlock at a shrunken bound, every frame recorded, no gap. It passes on the fixed-bound tree too:
    it guards the measured bound's path."""
    burst = _Burst(tmp_path, 3000)  # 186 MiB
    tree = _wait_for_observer_tree(burst.proc.pid)
    deadline = time.monotonic() + 60
    while len(burst.got) < 48 << 20 and time.monotonic() < deadline:  # the observers have worked on some of it
        time.sleep(0.005)
    burst.paused(tree, 1.5)
    burst.assert_all_recorded()
