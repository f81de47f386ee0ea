"""Soak: gigabytes through side-by-side proxies with recording and checking on, a `watch` and an `inject`
attached to each. Minutes, not part of the suite.

    python bench/soak_proxy.py [--proxies 10] [--mb-each 512] [--tmp-dir DIR] [--tree DIR]

Each proxy runs a fake agent that writes a seeded mixed stream (tests/pump/streams.py)
over and over, in ~1 MiB writes ending on a line, and answers injected commands between
them. Its client reads everything and hashes it; `rpcspy watch PID` and
`rpcspy inject PID --once get_state` (every few seconds) are attached from outside.
Checked and printed: every client's sha256 against the agent's, the recording's bytes
plus its gap notes against what was forwarded, peak RSS of every rpcspy process,
peak disk use of tape and spool, fds and threads of each proxy after its start and at
its end, injections answered, watchers alive, and leftover processes and files; then the
gap share (gap bytes over the bytes forwarded) over the proxies, median (min-max), and how
many recorded whole. Exit 1 if any byte was lost or altered.

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
    peak_rss: dict[str, int] = field(default_factory=dict)
    peak_tape: int = 0
    peak_spool: int = 0
    first: tuple[int, int] | None = None
    last: tuple[int, int] | None = None
    injected: int = 0
    answered: int = 0
    watcher: subprocess.Popen[bytes] | None = None
    watching_at_end: bool | None = None
    """Whether the watch was still attached when the client had read everything."""


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


def _file_use(pids: list[int], prefix: str) -> int:
    """Disk used by the unlinked temporary files ``prefix``* that ``pids`` hold open (allocated blocks),
    each file counted once however many processes hold it."""
    seen: dict[tuple[int, int], int] = {}
    for pid in pids:
        try:
            fds = os.listdir(f"/proc/{pid}/fd")
        except OSError:
            continue
        for fd in fds:
            try:
                if prefix in os.readlink(f"/proc/{pid}/fd/{fd}"):
                    st = os.stat(f"/proc/{pid}/fd/{fd}")
                    seen[(st.st_dev, st.st_ino)] = st.st_blocks * 512
            except OSError:
                pass
    return sum(seen.values())


def _sample(run: Run) -> None:
    pids = [p for p in _tree(run.proc.pid) if _is_rpcspy(p)]
    for n, pid in enumerate(pids):
        role = ("proxy", "observer", "drain")[min(n, 2)]
        run.peak_rss[role] = max(run.peak_rss.get(role, 0), _status(pid, "VmRSS"))
    run.peak_tape = max(run.peak_tape, _file_use(pids, "rpcspy-tape-"))
    run.peak_spool = max(run.peak_spool, _file_use(pids, "rpcspy-spool-"))
    now = _fds_threads(run.proc.pid)
    if run.first is None and run.got:
        run.first = now
    if now != (0, 0):
        run.last = now


def _client(run: Run) -> None:
    h = hashlib.sha256()
    assert run.proc.stdout is not None
    while chunk := run.proc.stdout.read1(1 << 20):
        h.update(chunk)
        run.got += len(chunk)
    run.digest = h.hexdigest()


def _injector(run: Run, stop: threading.Event, every: float) -> None:
    while not stop.wait(every):
        if run.proc.poll() is not None:
            return
        run.injected += 1
        done = subprocess.run([*RPCSPY, "inject", str(run.proc.pid), "--once", '{"type":"get_state"}',
                               "--timeout", "30"], capture_output=True, timeout=120)
        run.answered += done.returncode == 0


def _recorded(rec: Path) -> tuple[int, int]:
    """(a2c bytes in frames, a2c bytes in gap notes) of a recording."""
    from rpcspy.recording import open_recording
    from rpcspy.recording.format import NoteEntry

    recording = open_recording(rec)
    frames = sum(len(f.raw()) for f in recording.frames() if f.dir == "a2c" and not getattr(f, "injected", False))
    gaps = sum(e.dropped_bytes for e in open_recording(rec).entries()
               if isinstance(e, NoteEntry) and e.dropped_bytes and e.dir == "a2c")
    return frames, gaps


def gap_summary(shares: list[float]) -> str:
    """One line on the gap share of each proxy (gap bytes / bytes forwarded): median (min-max), whole ones."""
    whole = sum(share == 0 for share in shares)
    return (f"gap share per proxy: {spread([100 * x for x in shares], '{:.1f}')} % over {len(shares)} proxies; "
            f"recorded whole: {whole} of {len(shares)}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--proxies", type=int, default=10)
    ap.add_argument("--mb-each", type=int, default=512)
    ap.add_argument("--tmp-dir", help="--tmp-dir for the proxies (tape and spool)")
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
    tmp_opts = ["--tmp-dir", args.tmp_dir] if args.tmp_dir else []
    runs: list[Run] = []
    t0 = time.monotonic()
    for i in range(args.proxies):
        rec = work / f"r{i}.jsonl"
        proc = subprocess.Popen([*RPCSPY, "-o", str(rec), *tmp_opts, "--", *fake("soak", str(work / "block"),
                                 str(repeat))], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=open(work / f"err{i}", "wb"))
        runs.append(Run(i, rec, proc, expected.hexdigest(), repeat * len(block)))
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
        for run, thread in zip(runs, threads, strict=False):
            _sample(run)
            if not thread.is_alive() and run.watching_at_end is None and run.watcher is not None:
                run.watching_at_end = run.watcher.poll() is None
        time.sleep(0.5)
    for run in runs:
        if run.watching_at_end is None and run.watcher is not None:
            run.watching_at_end = run.watcher.poll() is None
    stop.set()
    for run in runs:
        assert run.proc.stdin is not None
        run.proc.stdin.close()
        run.proc.wait(600)
    elapsed = time.monotonic() - t0
    bad = 0
    total = sum(r.got for r in runs)
    shares: list[float] = []
    print(f"{args.proxies} proxies, {total / 1e9:.2f} GB forwarded in {elapsed:.0f}s "
          f"({total / elapsed / 1e6:.0f} MB/s in all), recording and checking on, tmp-dir {args.tmp_dir or '$TMPDIR'}, "
          f"rpcspy of {args.tree or 'this tree'}")
    for run in runs:
        ok = run.digest == run.expected and run.got == run.size
        frames, gaps = _recorded(run.rec)
        accounted = frames + gaps == run.size
        shares.append(gaps / run.got if run.got else 0.0)
        bad += not ok or not accounted
        watcher = {True: "attached to the end", False: "gone before the end", None: "?"}[run.watching_at_end]
        print(f"  #{run.index}: client {'sha256 ok' if ok else 'DIFFERENT'} ({run.got} B), recording "
              f"{frames} B + gaps {gaps} B {'= forwarded' if accounted else '!= forwarded'}; peak RSS KiB "
              f"{run.peak_rss}; peak tape {run.peak_tape >> 20} MiB, spool {run.peak_spool >> 20} MiB; "
              f"fds/threads {run.first} -> {run.last}; injections {run.answered}/{run.injected} answered; "
              f"watch {watcher}; exit {run.proc.returncode}")
        if run.watcher and run.watcher.poll() is None:
            run.watcher.terminate()
            run.watcher.wait(10)
    print(gap_summary(shares))
    time.sleep(1)
    left = [p for p in set(os.listdir("/proc")) - before_procs if p.isdigit() and _is_rpcspy(int(p))
            and str(work).encode() in _cmdline(int(p))]  # ours: proxies, observers, drains (not other runs)
    print(f"leftover rpcspy processes: {len(left)}; recordings in {work} (delete when done)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
