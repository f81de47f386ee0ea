"""Soak: gigabytes through side-by-side proxies with recording and checking on, a `watch` and an `inject`
attached to each. Minutes, not part of the suite.

    python bench/soak_proxy.py [--proxies 10] [--mb-each 512] [--tree DIR]

Each proxy runs a fake agent that writes a seeded mixed stream (tests/pump/streams.py)
over and over, in ~1 MiB writes ending on a line, and answers injected commands between
them. Its client reads everything and hashes it; `rpcspy watch PID` and
`rpcspy inject PID --once get_state` (every few seconds) are attached from outside.
Checked and printed, for each proxy: its client's sha256 against the agent's; the frames the
recording holds against the frames the agent sent, and its bytes plus its gap notes against what
was forwarded; whether it ends with the agent's ``exit`` entry or says it is incomplete; how long
rpcspy took to exit after its client's EOF; peak RSS of every rpcspy process; fds and threads of
the proxy after its start and at its end; injections answered; watchers alive. Then, over the
proxies: the gap share (gap bytes over the bytes forwarded) and how many recorded whole, the exit
times, and leftover processes. Exit 1 if any byte was lost or altered, or a recording does not
account for every byte and frame, or lacks its ``exit`` entry.

``--tree DIR`` runs the proxies, watches and injections of the rpcspy in DIR (`git archive OLD
rpcspy | tar -x -C DIR`) instead of this tree's: alternate runs with and without it to compare.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from itertools import pairwise
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

sys.path.insert(0, str(ROOT / "bench"))

from rounds import spread  # noqa: E402

from tests.pump.proxyrun import fake  # noqa: E402
from tests.pump.streams import mixed_stream  # noqa: E402


def rpcspy_command(tree: Path | str = ROOT) -> list[str]:
    """`python -m rpcspy` of the rpcspy in ``tree`` (-P: not the current directory's)."""
    return ["env", f"PYTHONPATH={tree}", sys.executable, "-P", "-m", "rpcspy"]


RPCSPY = rpcspy_command()


@dataclass
class Run:
    index: int
    rec: Path
    proc: subprocess.Popen[bytes]
    expected: str
    size: int
    got: int = 0
    digest: str = ""
    sent_frames: int = 0
    """Frames (LF-ended lines) the agent writes."""
    peak_rss: dict[str, int] = field(default_factory=dict)
    first: tuple[int, int] | None = None
    last: tuple[int, int] | None = None
    injected: int = 0
    answered: int = 0
    watcher: subprocess.Popen[bytes] | None = None
    watching_at_end: bool | None = None
    """Whether the watch was still attached when the client had read everything."""
    read_all: bool = False
    """The client has read everything (rpcspy closed its stdout)."""
    exit_after: float | None = None
    """Seconds from the client's EOF (it read everything, then closed its end) to rpcspy's exit."""


@dataclass(frozen=True)
class Recorded:
    """What a recording holds of the agent's stream (injections and their answers left out)."""

    frames: int
    frame_bytes: int
    gap_notes: int
    gap_bytes: int
    ended: bool
    """It ends with the agent's ``exit`` entry."""
    incomplete: bool
    """It has the proxy's note that the recording is incomplete (its writer died or stopped)."""


def _tree(pid: int) -> list[int]:
    out = [pid]
    try:
        for task in os.listdir(f"/proc/{pid}/task"):
            kids = Path(f"/proc/{pid}/task/{task}/children").read_text().split()
            for kid in kids:
                out += _tree(int(kid))
    except OSError:
        pass
    return out


def runs_rpcspy(cmdline: bytes) -> bool:
    """Whether a /proc cmdline is a Python running ``-m rpcspy`` (with or without options before it)."""
    return (b"-m", b"rpcspy") in pairwise(cmdline.split(b"\0")[1:])


def _is_rpcspy(pid: int) -> bool:
    return runs_rpcspy(_cmdline(pid))


def _cmdline(pid: int) -> bytes:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return b""


def _status(pid: int, key: str) -> int:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(key + ":"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def _fds_threads(pid: int) -> tuple[int, int]:
    try:
        return len(os.listdir(f"/proc/{pid}/fd")), _status(pid, "Threads")
    except OSError:
        return 0, 0


def _sample(run: Run) -> None:
    pids = [p for p in _tree(run.proc.pid) if _is_rpcspy(p)]
    for n, pid in enumerate(pids):
        role = ("proxy", "observer", "other")[min(n, 2)]
        run.peak_rss[role] = max(run.peak_rss.get(role, 0), _status(pid, "VmRSS"))
    now = _fds_threads(run.proc.pid)
    if run.first is None and run.got:
        run.first = now
    if now != (0, 0):
        run.last = now


def _client(run: Run) -> None:
    """Read everything and hash it, then close stdin (the client's EOF) and time rpcspy's exit."""
    h = hashlib.sha256()
    assert run.proc.stdout is not None and run.proc.stdin is not None
    while chunk := run.proc.stdout.read1(1 << 20):
        h.update(chunk)
        run.got += len(chunk)
    run.digest = h.hexdigest()
    run.read_all = True
    run.proc.stdin.close()
    eof = time.monotonic()
    run.proc.wait(600)
    run.exit_after = time.monotonic() - eof


def _injector(run: Run, stop: threading.Event, every: float) -> None:
    while not stop.wait(every):
        if run.proc.poll() is not None:
            return
        run.injected += 1
        done = subprocess.run([*RPCSPY, "inject", str(run.proc.pid), "--once", '{"type":"get_state"}',
                               "--timeout", "30"], capture_output=True, timeout=120)
        run.answered += done.returncode == 0


def recorded(rec: Path) -> Recorded:
    """What the recording at ``rec`` holds of the agent's stream."""
    from rpcspy.events import Exit, Note
    from rpcspy.recording import open_recording

    frames = frame_bytes = gap_notes = gap_bytes = 0
    ended = incomplete = False
    for entry in open_recording(rec).entries():
        ended = isinstance(entry, Exit)
        if isinstance(entry, Note):
            if entry.dropped_bytes and entry.dir == "a2c":
                gap_notes, gap_bytes = gap_notes + 1, gap_bytes + entry.dropped_bytes
            incomplete = incomplete or entry.text.startswith("the recording is incomplete")
    for frame in open_recording(rec).frames():
        if frame.dir == "a2c" and not getattr(frame, "injected", False):
            frames, frame_bytes = frames + 1, frame_bytes + len(frame.raw())
    return Recorded(frames, frame_bytes, gap_notes, gap_bytes, ended, incomplete)


def run_line(run: Run, rec: Recorded) -> str:
    """One proxy's line of the report."""
    ok = run.digest == run.expected and run.got == run.size
    accounted = rec.frame_bytes + rec.gap_bytes == run.size
    watcher = {True: "attached to the end", False: "gone before the end", None: "?"}[run.watching_at_end]
    end = "ends with exit" if rec.ended else "NO exit entry"
    end += ", says it is incomplete" if rec.incomplete else ""
    exit_after = "?" if run.exit_after is None else f"{run.exit_after:.2f}s"
    return (f"  #{run.index}: client {'sha256 ok' if ok else 'DIFFERENT'} ({run.got} B); recorded "
            f"{rec.frames} of {run.sent_frames} frames sent, {rec.frame_bytes} B + {rec.gap_notes} gaps "
            f"{rec.gap_bytes} B {'= forwarded' if accounted else '!= forwarded'}, {end}; exit {run.proc.returncode} "
            f"{exit_after} after the client's EOF; peak RSS KiB {run.peak_rss}; fds/threads {run.first} -> "
            f"{run.last}; injections {run.answered}/{run.injected} answered; watch {watcher}")


def exit_summary(seconds: list[float], bound: float = 2.0) -> str:
    """One line on how long rpcspy took to exit after its client's EOF, over the proxies."""
    late = sum(s > bound for s in seconds)
    return (f"exit after the client's EOF: {spread(seconds, '{:.2f}')} s over {len(seconds)} proxies; "
            f"over {bound:g} s: {late}")


def gap_summary(shares: list[float]) -> str:
    """One line on the gap share of each proxy (gap bytes / bytes forwarded): median (min-max), whole ones."""
    whole = sum(share == 0 for share in shares)
    return (f"gap share per proxy: {spread([100 * x for x in shares], '{:.1f}')} % over {len(shares)} proxies; "
            f"recorded whole: {whole} of {len(shares)}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--proxies", type=int, default=10)
    ap.add_argument("--mb-each", type=int, default=512)
    ap.add_argument("--inject-every", type=float, default=1.0)
    ap.add_argument("--tree", metavar="DIR", help="run the rpcspy in DIR instead of this tree's "
                    "(`git archive OLD rpcspy | tar -x -C DIR`)")
    args = ap.parse_args()
    global RPCSPY
    RPCSPY = rpcspy_command(args.tree or ROOT)
    work = Path(tempfile.mkdtemp(prefix="rpcspy-soak-"))
    block = mixed_stream(7, 32 << 20, biggest=4 << 20) + b"\n"
    (work / "block").write_bytes(block)
    repeat = max(1, (args.mb_each << 20) // len(block))
    expected = hashlib.sha256()
    for _ in range(repeat):
        expected.update(block)
    before_procs = set(os.listdir("/proc"))
    runs: list[Run] = []
    t0 = time.monotonic()
    for i in range(args.proxies):
        rec = work / f"r{i}.jsonl"
        proc = subprocess.Popen([*RPCSPY, "-o", str(rec), "--", *fake("soak", str(work / "block"), str(repeat))],
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=open(work / f"err{i}", "wb"))
        runs.append(Run(i, rec, proc, expected.hexdigest(), repeat * len(block),
                        sent_frames=repeat * block.count(b"\n")))
    stop = threading.Event()
    threads = []
    for run in runs:
        threads.append(threading.Thread(target=_client, args=(run,)))
        threads[-1].start()
    time.sleep(0.5)  # the control sockets are up
    for run in runs:
        run.watcher = subprocess.Popen([*RPCSPY, "watch", str(run.proc.pid), "--color", "never", "--width", "120"],
                                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        threading.Thread(target=_injector, args=(run, stop, args.inject_every), daemon=True).start()
    while any(t.is_alive() for t in threads):
        for run in runs:
            _sample(run)
            if run.read_all and run.watching_at_end is None and run.watcher is not None:
                run.watching_at_end = run.watcher.poll() is None
        time.sleep(0.5)
    for run in runs:
        if run.watching_at_end is None and run.watcher is not None:
            run.watching_at_end = run.watcher.poll() is None
    stop.set()
    elapsed = time.monotonic() - t0
    bad = 0
    total = sum(r.got for r in runs)
    shares: list[float] = []
    print(f"{args.proxies} proxies, {total / 1e9:.2f} GB forwarded in {elapsed:.0f}s "
          f"({total / elapsed / 1e6:.0f} MB/s in all), recording and checking on, "
          f"rpcspy of {args.tree or 'this tree'}")
    for run in runs:
        rec = recorded(run.rec)
        ok = run.digest == run.expected and run.got == run.size
        shares.append(rec.gap_bytes / run.got if run.got else 0.0)
        bad += (not ok or rec.frame_bytes + rec.gap_bytes != run.size or not rec.ended
                or (not rec.gap_notes and rec.frames != run.sent_frames))
        print(run_line(run, rec))
        if run.watcher and run.watcher.poll() is None:
            run.watcher.terminate()
            run.watcher.wait(10)
    print(gap_summary(shares))
    print(exit_summary([r.exit_after for r in runs if r.exit_after is not None]))
    time.sleep(1)
    left = [p for p in set(os.listdir("/proc")) - before_procs if p.isdigit() and _is_rpcspy(int(p))
            and str(work).encode() in _cmdline(int(p))]  # ours: proxies, observer processes (not other runs)
    print(f"leftover rpcspy processes: {len(left)}; recordings in {work} (delete when done)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
