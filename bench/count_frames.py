"""Frames recorded vs frames sent: `rpcspy -o REC -- cat STREAM >/dev/null` floods, counted.

Generates the stream bench_proxy.py uses (bench/stream_gen.py: pi 0.73 lines that grow, or with
`--small` delta-only frames of ~280 bytes), then runs the proxy over it `--runs` times with `cat`
as the agent and the client's end on /dev/null (nothing waits for the client: the observers are
the only slow party). Each recording is read back with this tree's reader: its agent frames, its
gap notes and the bytes they account for. With `--tree DIR` (repeatable) the rpcspy in DIR runs
too, interleaved (`git archive OLD rpcspy | tar -x -C DIR`). Exit 1 if a recording's frames plus
its gap bytes are not the bytes sent.

    python bench/count_frames.py                      # 300 MB of large frames, 5 runs
    python bench/count_frames.py --small --size 550e6 --runs 3 --tree /tmp/base
    python bench/count_frames.py --small --size 50e6 --runs 3 --busy 8   # under CPU contention

With ``--busy N``, N processes spinning on the CPU run beside every flood (issue 20's loaded machine:
observers starved at nice 19 recorded 0.36 of a flood's frames).
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
sys.path.insert(0, str(ROOT))

from stream_gen import generate  # noqa: E402

from rpcspy.events import Exit, Note  # noqa: E402
from rpcspy.recording import open_recording  # noqa: E402


def counted(rec: str) -> tuple[int, int, int, int]:
    """(agent frames, their bytes with line ends, gap notes, gap bytes) of the agent's side of a recording."""
    frames = size = notes = gap = 0
    for f in open_recording(rec).frames():
        if f.dir == "a2c":
            frames += 1
            size += len(f.raw())
    for e in open_recording(rec).entries():
        if isinstance(e, Note) and e.dir == "a2c" and e.dropped_bytes:
            notes += 1
            gap += e.dropped_bytes
    return frames, size, notes, gap


def flood(tree: str, stream: str, rec: str, extra: list[str]) -> float:
    """Seconds of one `rpcspy -o REC -- cat STREAM` of the rpcspy in ``tree``, stdin and stdout /dev/null."""
    Path(rec).unlink(missing_ok=True)  # an older tree may not know --overwrite
    start = time.perf_counter()
    subprocess.run(["env", f"PYTHONPATH={tree}", sys.executable, "-P", "-m", "rpcspy", "-o", rec, *extra, "--",
                    "cat", stream], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, check=True)
    return time.perf_counter() - start


def table(rows: list[tuple[str, int, int, int, int, int, float]]) -> str:
    """Markdown rows: (rpcspy, run, frames sent, frames recorded, gap notes, gap bytes, seconds)."""
    out = ["| rpcspy | run | frames sent | frames recorded | share | gap notes | gap bytes | s |",
           "|---|---:|---:|---:|---:|---:|---:|---:|"]
    out += [f"| {name} | {run} | {sent:,} | {got:,} | {got / sent:.3f} | {notes} | {gap:,} | {secs:.2f} |"
            for name, run, sent, got, notes, gap, secs in rows]
    return "\n".join(out)


def summary(rows: list[tuple[str, int, int, int, int, int, float]]) -> list[str]:
    """Per rpcspy: whole recordings out of runs, and the fewest frames recorded."""
    out = []
    for name in dict.fromkeys(r[0] for r in rows):
        mine = [r for r in rows if r[0] == name]
        whole = sum(r[3] == r[2] for r in mine)
        out.append(f"{name}: recorded {min(r[3] for r in mine):,} to {max(r[3] for r in mine):,} of "
                   f"{mine[0][2]:,} frames; whole in {whole} of {len(mine)} runs")
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--size", type=float, default=300e6, help="stream size in bytes (default 300e6)")
    ap.add_argument("--small", action="store_true", help="delta-only frames of ~280 bytes instead of growing lines")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--tree", action="append", default=[], metavar="DIR", help="also run the rpcspy in DIR")
    ap.add_argument("--gap-after", metavar="SECONDS", help="pass --gap-after to every rpcspy")
    ap.add_argument("--busy", type=int, default=0, metavar="N", help="N busy processes beside each flood")
    args = ap.parse_args()
    spinners = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(args.busy)]
    try:
        return _run(args)
    finally:
        for spinner in spinners:
            spinner.kill()
            spinner.wait()


def _run(args: argparse.Namespace) -> int:
    trees = {"this tree": str(ROOT)} | {t: t for t in args.tree}
    extra = ["--gap-after", args.gap_after] if args.gap_after is not None else []
    rows = []
    bad = 0
    with tempfile.TemporaryDirectory() as tmp:
        stream, rec = os.path.join(tmp, "stream.jsonl"), os.path.join(tmp, "rec.jsonl")
        size = generate(stream, int(args.size), small=args.small)
        with open(stream, "rb") as f:
            sent = sum(chunk.count(b"\n") for chunk in iter(lambda: f.read(1 << 20), b""))
        for run in range(1, args.runs + 1):
            for name, tree in trees.items():
                secs = flood(tree, stream, rec, extra)
                got, got_bytes, notes, gap = counted(rec)
                exit_t = next((e.t for e in open_recording(rec).entries() if isinstance(e, Exit)), None)
                bad += got_bytes + gap != size
                rows.append((name, run, sent, got, notes, gap, secs))
                after = f", exit {secs - exit_t:.2f} s after the agent's (start-up included)" if exit_t else ""
                print(f"run {run}: {name}: {got:,} of {sent:,} frames, {notes} gap notes, {secs:.2f} s{after}"
                      f"{'' if got_bytes + gap == size else ' FRAMES + GAPS != SENT'}", file=sys.stderr)
    shape = "delta-only frames of ~280 bytes" if args.small else "pi 0.73 lines (growing)"
    print(f"`rpcspy -o REC -- cat STREAM >/dev/null`: {size / 1e6:.0f} MB, {sent:,} {shape}; {args.runs} interleaved "
          f"runs. Command: `python bench/count_frames.py{' --small' if args.small else ''} --size {args.size:g} "
          f"--runs {args.runs}{''.join(f' --tree {t}' for t in args.tree)}"
          f"{f' --gap-after {args.gap_after}' if extra else ''}{f' --busy {args.busy}' if args.busy else ''}`"
          f"{f'; {args.busy} busy processes beside each flood' if args.busy else ''}; load average at the end: "
          f"{os.getloadavg()[0]:.1f}.\n")
    print(table(rows))
    print()
    print("\n".join(summary(rows)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
