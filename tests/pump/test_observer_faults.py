"""Faults of rpcspy's own processes at seeded random moments (issue 20, decision 5): the observer process
killed (SIGKILL), stopped for good (SIGSTOP), or stopped and resumed, while both directions flood; the
recording's disk full. Forwarding stays byte-exact, rpcspy exits with the agent (hang guards, no timed
assertions), no traceback reaches the terminal, no process is left, and the recording ends with a note
that says why it is incomplete (then the exit), or is complete.

The observer process is the proxy's only process besides the agent (there is no drain process any more).
"""

from __future__ import annotations

import hashlib
import os
import random
import signal
import threading
import time
from pathlib import Path

import pytest

from rpcspy.events import Exit, Note
from rpcspy.recording import open_recording
from tests.pump import adversaries
from tests.pump.proxyrun import fake, spawn
from tests.pump.smallfs import fill, tiny_tmpfs
from tests.pump.test_stalled_observers import _wait_for_observer_tree

FAULTS = ("kill", "stop", "stop-and-resume", "kill-no-record")


def _lines(seed: int, count: int) -> bytes:
    rng = random.Random(seed)
    return b"".join(b'{"type":"prompt","n":%d,"x":"%s"}\n' % (n, b"q" * rng.randint(10, 60000)) for n in range(count))


class Faulted:
    """An echo session flooded both ways by a bursty client; ``fault`` hits the observer process at a
    seeded moment of the flood."""

    def __init__(self, tmp: Path, fault: str, seed: int) -> None:
        self.fault, self.rng = fault, random.Random(seed)
        self.dir = tmp / f"{fault}-{seed}"
        self.dir.mkdir()
        self.rec = None if fault.endswith("no-record") else self.dir / "r.jsonl"
        self.sent = _lines(seed, 400)  # about 12 MB each way
        self.marker = str(self.dir / "agent-marker")
        agent = fake("echo", self.marker)  # echo ignores its argument: it only marks the session's processes
        self.proc = spawn(self.rec, agent, "--gap-after", "1")
        self.got = b""
        self.faulted = threading.Event()
        """Set once the fault is delivered: the client keeps its input open until then, so the fault always
        lands in a live session (a fast machine may have forwarded the whole flood by the seeded moment)."""

    def run(self) -> None:
        observer = _wait_for_observer_tree(self.proc.pid)[0]
        writer = threading.Thread(target=self._write, daemon=True)
        reader = threading.Thread(target=self._read, daemon=True)
        writer.start()
        reader.start()
        time.sleep(self.rng.uniform(0.05, 0.8))
        if self.fault.startswith("kill"):
            os.kill(observer, signal.SIGKILL)
        else:
            os.kill(observer, signal.SIGSTOP)
        self.faulted.set()
        if self.fault == "stop-and-resume":
            time.sleep(self.rng.uniform(0.1, 1.5))
            try:
                os.kill(observer, signal.SIGCONT)
            except ProcessLookupError:
                pass  # ended by the proxy meanwhile (the session ended while it was stopped)
        writer.join(180)
        reader.join(180)  # hang guards

    def _write(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(self.sent)
        self.faulted.wait(60)
        self.proc.stdin.close()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        self.got = adversaries.bursty(self.proc.stdout, seed=len(self.sent))


@pytest.mark.parametrize("fault", FAULTS)
def test_a_fault_of_the_observer_process_costs_the_recording_never_forwarding(tmp_path: Path, fault: str) -> None:
    sessions = [Faulted(tmp_path, fault, seed) for seed in (1, 2)]
    threads = [threading.Thread(target=s.run, daemon=True) for s in sessions]
    for t in threads:
        t.start()
    for t in threads:
        t.join(300)
    for s in sessions:
        code, err = adversaries.finish(s.proc)
        what = f"{fault}/{s.dir.name}"
        assert code == 0, (what, err)
        assert hashlib.sha256(s.got).digest() == hashlib.sha256(s.sent).digest(), (what, len(s.got), len(s.sent))
        assert b"Traceback" not in err, (what, err)
        assert adversaries.leftovers(s.marker) == [], what
        if s.rec is None:  # nothing recorded: said on stderr only
            assert b"the observer process was killed (SIGKILL); forwarding was not affected" in err, (what, err)
            continue
        entries = list(open_recording(s.rec).entries())
        assert isinstance(entries[-1], Exit), (what, entries[-3:])
        notes = [e.text for e in entries if isinstance(e, Note)]
        incomplete = [n for n in notes if n.startswith("the recording is incomplete from here")]
        if fault == "kill":
            assert len(incomplete) == 1 and "killed (SIGKILL)" in incomplete[0], (what, notes)
        elif fault == "stop":
            assert len(incomplete) == 1 and "stopped (SIGSTOP)" in incomplete[0], (what, notes)
        else:  # resumed: complete, or with gaps that say how much is missing, or (if stopped at the end) the note
            recorded = b"".join(f.raw() for f in open_recording(s.rec).frames() if f.dir == "c2a")
            gaps = sum(e.dropped_bytes for e in entries if isinstance(e, Note) and e.dir == "c2a")
            assert incomplete or len(recorded) + gaps == len(s.sent), (what, notes)


def test_a_full_recording_disk_costs_the_recording_never_forwarding(tmp_path: Path) -> None:
    """The recording on a really full file system (a tiny tmpfs): every byte forwarded both ways, one warning,
    no traceback, a bounded exit, nothing left running."""
    with tiny_tmpfs(tmp_path / "fs") as fs:
        rec = fs / "r.jsonl"
        fill(fs)
        sent = _lines(3, 200)
        marker = str(tmp_path / "agent-marker")
        proc = spawn(rec, fake("echo", marker))
        got: list[bytes] = []
        reader = threading.Thread(target=lambda: got.append(adversaries.bursty(proc.stdout)), daemon=True)  # type: ignore[arg-type]
        reader.start()
        assert proc.stdin is not None
        proc.stdin.write(sent)
        proc.stdin.close()
        reader.join(180)
        code, err = adversaries.finish(proc)
        assert code == 0, err
        assert got and hashlib.sha256(got[0]).digest() == hashlib.sha256(sent).digest()
        assert b"Traceback" not in err, err
        assert b"No space left on device" in err, err
        assert adversaries.leftovers(marker) == []
