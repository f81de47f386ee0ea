"""Replay benchmark: ``rpcspy replay --speed 0`` of a ~300 MB pi-like recording vs the direct pipe.

The recording holds one ``prompt`` and the agent's answer: runs of growing
``message_update`` lines (bench/stream_gen.py, raw U+2028 included). A client sends
the prompt and reads until it has every byte; it gets the same bytes from
``cat`` of the recorded agent output (the direct pipe: the fastest an agent could
deliver them) and from the replay, and checks they are identical. Runs are
interleaved; median (min-max) reported, ratios taken inside each round; start-up to
the first byte is timed too.

    python bench/bench_replay.py                       # ~300 MB, 5 rounds
    python bench/bench_replay.py --size 50e6 --rounds 1
    python bench/bench_replay.py --write-docs          # update docs/performance.md "## replay"
"""

from __future__ import annotations

import argparse
import hashlib
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT))
from perfdoc import write_section
from rounds import ratios, spread
from stream_gen import run_lines

from rpcspy.events import Eof, Exit, Frame
from rpcspy.recording.format import encode_entry, encode_frame
from rpcspy.recording.writer import event_line, make_header

PROMPT = b'{"id":"p1","type":"prompt","message":"stream please"}'
RESPONSE = b'{"id":"p1","type":"response","command":"prompt","success":true}'


def generate(tmp: Path, size: float) -> tuple[Path, Path, int]:
    """Write the recording and the raw agent stdout it holds; return their paths and the stdout size."""
    rec, raw = tmp / "bench.rec.jsonl", tmp / "agent.stdout"
    seq, t, written, run = 1, 0.5, 0, 0
    with open(rec, "wb") as fr, open(raw, "wb") as fa:
        fr.write(encode_entry(make_header(["pi", "--mode", "rpc"])))
        fr.write(encode_frame(Frame(seq, t, "c2a", PROMPT)))
        lines = [RESPONSE + b"\n"]
        while written < size:
            if lines is None:
                lines = run_lines(run, 200, 40)
                run += 1
            for line in lines:
                seq += 1
                t += 0.0001
                fr.write(encode_frame(Frame(seq, t, "a2c", line[:-1])))
                fa.write(line)
                written += len(line)
            lines = None
        fr.write(event_line(Eof(seq + 1, t, "c2a")))
        fr.write(event_line(Exit(seq + 2, t, 0)))
    return rec, raw, written


def client(argv: list[str], expect: int) -> tuple[float, float, str]:
    """Spawn, send the prompt, read ``expect`` bytes: (total seconds, seconds to first byte, digest)."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    proc.stdin.write(PROMPT + b"\n")
    proc.stdin.flush()
    fd = proc.stdout.fileno()
    h = hashlib.blake2b(digest_size=16)
    got, first = 0, None
    while got < expect:
        chunk = os.read(fd, 1 << 20)
        if not chunk:
            break
        if first is None:
            first = time.perf_counter() - t0
        h.update(chunk)
        got += len(chunk)
    total = time.perf_counter() - t0
    proc.stdin.close()
    proc.stdout.close()
    proc.wait()
    if got != expect:
        raise SystemExit(f"{argv[0]}: got {got} bytes, expected {expect}")
    return total, first or total, h.hexdigest()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--size", type=float, default=300e6, help="bytes of agent output (default 300e6)")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--write-docs", action="store_true")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="rpcspy-bench-replay-") as d:
        tmp = Path(d)
        t = time.perf_counter()
        rec, raw, size = generate(tmp, args.size)
        print(f"generated {size / 1e6:.0f} MB of agent output ({rec.stat().st_size / 1e6:.0f} MB recording) "
              f"in {time.perf_counter() - t:.1f} s", file=sys.stderr)
        variants = {
            "direct pipe (cat)": ["cat", str(raw)],
            "rpcspy replay --speed 0": [sys.executable, "-m", "rpcspy", "replay", "--speed", "0", str(rec)],
        }
        results: dict[str, list[tuple[float, float]]] = {k: [] for k in variants}
        digests: set[str] = set()
        for _ in range(args.rounds):
            for name, argv in variants.items():
                total, first, digest = client(argv, size)
                results[name].append((total, first))
                digests.add(digest)
        if len(digests) != 1:
            raise SystemExit("the replay did not deliver the recorded bytes")
    direct = [size / total / 1e6 for total, _ in results["direct pipe (cat)"]]
    replay = [size / total / 1e6 for total, _ in results["rpcspy replay --speed 0"]]
    firsts = {k: [first * 1000 for _, first in v] for k, v in results.items()}
    rows = [
        ("throughput, direct pipe (cat)", f"{spread(direct, '{:.0f}')} MB/s", "baseline"),
        ("throughput, rpcspy replay --speed 0", f"{spread(replay, '{:.0f}')} MB/s",
         f"{spread(ratios(replay, direct))}x direct (target >= 0.5x)"),
        ("first byte after spawn, cat / replay", f"{spread(firsts['direct pipe (cat)'], '{:.0f}')} / "
         f"{spread(firsts['rpcspy replay --speed 0'], '{:.0f}')} ms", "replay target < 200 ms"),
    ]
    table = "| measure | value | compared |\n|---|---|---|\n" + "\n".join(f"| {a} | {b} | {c} |" for a, b, c in rows)
    body = (f"Recording: one prompt answered by {size / 1e6:.0f} MB of pi-like `message_update` lines (raw U+2028), "
            f"{args.rounds} interleaved rounds, median (min-max), ratios taken inside each round; the client reads "
            f"every byte and checks they are identical. Command: `python bench/bench_replay.py --rounds "
            f"{args.rounds}`.\n\n{table}")
    print(table)
    if args.write_docs:
        write_section("replay", body)
    ratio = statistics.median(ratios(replay, direct))
    ok = ratio >= 0.5
    print(f"replay/direct = {ratio:.2f} ({'ok' if ok else 'BELOW TARGET'})")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
