"""The observer process's work, in process: per-frame cost on small frames and memory over long sessions.

Per-frame cost: the frames of a delta-only stream (bench/stream_gen.py --small) are fed
in 64 KiB chunks to the observers' Dispatcher (rpcspy/pump/hub.py) with no observer,
with the Recorder, with the live checker, with the control socket (nobody connected), with
recorder and checker, and with all three (what the observer process of `rpcspy run` does),
against a bare baseline that splits the same chunks on LF and `msgspec.json.decode`s every
line. From the per-frame cost of "all three" follows the backlog the observers have to catch
up on after a fast stream: frames x cost, minus what they did while it poured in.

Memory: a Checker fed a session of small commands, each answered (`set_auto_retry`),
RSS of this process at checkpoints (the checker's answered-command table is the only
structure that grows with the number of commands, up to its documented bound).

    python bench/bench_observers.py [--frames 400000] [--rounds 5] [--commands 600000] [--write-docs]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, os.environ.get("RPCSPY_BENCH_TREE") or str(ROOT))  # --baseline-tree: another rpcspy

import msgspec  # noqa: E402
from perfdoc import write_section  # noqa: E402
from rounds import ratios, spread  # noqa: E402
from stream_gen import small_lines  # noqa: E402


def stream(frames: int) -> bytes:
    out = []
    run = n = 0
    while n < frames:
        lines = list(small_lines(run, 200))
        out += lines
        n += len(lines)
        run += 1
    return b"".join(out[:frames])


def observers(kind: str, tmp: str) -> list:
    from rpcspy.pump.check_observer import CheckObserver, CheckOptions
    from rpcspy.pump.recorder import Recorder
    from rpcspy.recording.writer import RecordingWriter, make_header

    out: list = []
    if kind in ("recorder", "both", "all three"):
        out.append(Recorder(RecordingWriter(os.path.join(tmp, "obs.rec"), make_header(["x"]), warn=print)))
    if kind in ("checker", "both", "all three"):
        out.append(CheckObserver(CheckOptions(dialect="auto", strict_fields=False, ignore=frozenset(), report=None,
                                              min_severity="error", unanswered_after=None)))
    if kind in ("control", "all three"):  # the control socket with nobody connected, as in every proxy
        from rpcspy.pump.control import ControlServer
        from rpcspy.pump.observer_process import ChildSession

        out.append(ControlServer(ChildSession(-1, ["x"], None, "proxy", os.getpid(), 0.0), directory=tmp))
    return out


def feed(kind: str, chunks: list[bytes], tmp: str) -> float:
    if kind == "bare":
        decode = msgspec.json.decode
        start = time.perf_counter()
        for chunk in chunks:  # the same chunks, split on LF and decoded (lines cut by a chunk end skipped)
            for line in chunk.split(b"\n")[1:-1]:
                decode(line)
        return time.perf_counter() - start
    from rpcspy.pump.hub import Dispatcher

    obs = observers("" if kind == "dispatch only" else kind, tmp)
    hub = Dispatcher(obs, warn=print)
    start = time.perf_counter()
    for chunk in chunks:
        hub.data("a2c", 1.0, chunk)
        for o in obs:
            o.flush()
    elapsed = time.perf_counter() - start
    for o in obs:
        o.close()
    return elapsed


def cost_table(frames: int, rounds: int) -> str:
    data = stream(frames)
    chunks = [data[i:i + 65536] for i in range(0, len(data), 65536)]
    kinds = ["bare", "dispatch only", "recorder", "checker", "control", "both", "all three"]
    secs: dict[str, list[float]] = {k: [] for k in kinds}
    with tempfile.TemporaryDirectory() as tmp:
        feed("both", chunks[:20], tmp)  # warm up: schemas are built on first use
        for r in range(rounds):
            for k in kinds:
                secs[k].append(feed(k, chunks, tmp))
                print(f"round {r + 1}: {k:14s} {secs[k][-1]:.3f} s", file=sys.stderr)
    us = {k: [s / frames * 1e6 for s in v] for k, v in secs.items()}
    lines = [f"{frames:,} delta-only frames of ~280 bytes fed in 64 KiB chunks, {rounds} interleaved rounds, "
             "median (min-max).", "",
             "| observers | us per frame | vs bare decode | 2 M frames take |", "|---|---:|---:|---:|"]
    for k in kinds:
        lines.append(f"| {k} | {spread(us[k])} | {spread(ratios(us[k], us['bare']))}x | "
                     f"{spread([u * 2 for u in us[k]], '{:.1f}')} s |")
    return "\n".join(lines)


def rss_mib() -> float:
    return int(open("/proc/self/statm").read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def memory_table(commands: int) -> str:
    from rpcspy.checker import Checker
    from rpcspy.events import Frame
    from rpcspy.protocol.pairing import ANSWERED_CAP

    checker = Checker(dialect="pi-0.84")
    marks = sorted(m for m in {1000, 16384, 65536, 131072, commands // 2, commands} if 0 < m <= commands)
    rows = []
    found = 0
    start = time.perf_counter()
    base = rss_mib()
    for i in range(1, commands + 1):
        cid = b"req-%d" % i
        found += len(checker.feed(Frame(2 * i - 1, i * 1e-3, "c2a",
                                        b'{"id":"%s","type":"set_auto_retry","enabled":true}' % cid)))
        found += len(checker.feed(Frame(2 * i, i * 1e-3, "a2c",
                                        b'{"id":"%s","type":"response","command":"set_auto_retry","success":true}'
                                        % cid)))
        if i in marks:
            rows.append(f"| {i:,} | {rss_mib():.1f} | {len(checker._corr.pairing._answered):,} | "
                        f"{(time.perf_counter() - start) / i * 1e6:.1f} |")
    return "\n".join([f"A Checker fed {commands:,} small commands, each answered ({found} findings); RSS of the "
                      f"process ({base:.1f} MiB before the first command). Answered ids are kept up to "
                      f"ANSWERED_CAP = {ANSWERED_CAP:,}.", "",
                      "| commands | RSS MiB | answered ids held | us per command so far |",
                      "|---:|---:|---:|---:|", *rows])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--frames", type=int, default=400_000)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--commands", type=int, default=600_000)
    ap.add_argument("--memory-only", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--baseline-tree", metavar="DIR",
                    help="also run the memory table on the rpcspy in DIR (e.g. `git archive OLD rpcspy | tar -x -C DIR`)")
    ap.add_argument("--write-docs", action="store_true")
    args = ap.parse_args()
    if args.memory_only:
        print(memory_table(args.commands))
        return
    # the memory table in a fresh process: its RSS is not the cost table's leftovers
    def memory_of(tree: str | None) -> str:
        env = {**os.environ, "RPCSPY_BENCH_TREE": tree or ""}
        return subprocess.run([sys.executable, __file__, "--memory-only", "--commands", str(args.commands)],
                              check=True, capture_output=True, text=True, env=env).stdout.strip()

    memory = memory_of(None)
    if args.baseline_tree:
        memory += f"\n\nThe same on the baseline tree ({args.baseline_tree}):\n\n" + memory_of(args.baseline_tree)
    body = cost_table(args.frames, args.rounds) + "\n\n" + memory + (
        f"\n\nCommand: `python bench/bench_observers.py --frames {args.frames} --rounds {args.rounds} "
        f"--commands {args.commands}{' --baseline-tree ' + args.baseline_tree if args.baseline_tree else ''}`.")
    print(body)
    if args.write_docs:
        write_section("observers", body)


if __name__ == "__main__":
    main()
