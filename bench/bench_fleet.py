"""Benchmark `rpcspy stats REC...` over a corpus of real sessions against `rpcspy check` over the same set.

The corpus: the sample recordings of real pi 0.73.1, 0.87.1, 1.5.2 and omp 18.2.3 sessions
(`recordings/*.jsonl`), copied round-robin to N files in a temporary directory. In interleaved
rounds, as whole processes:

* `rpcspy check --format json DIR/*.jsonl` (one process, the files one after another: the baseline);
* `rpcspy stats DIR/*.jsonl --format json -j 1` (one core, as check);
* `rpcspy stats DIR/*.jsonl --format json` (every core).

Reported: wall time of each and the ratio check/stats (>1: stats is faster), median and range;
and peak RSS of `stats -j 1` at N/4 and N recordings (memory flat in the number of recordings:
the ratio should stay near 1.0).

Usage: python bench/bench_fleet.py [--recordings 1000] [--rounds 5] [--write-docs]
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

from perfdoc import write_section  # noqa: E402
from rounds import ratios, rounds, run, spread, tree_env  # noqa: E402


def corpus(dest: Path, n: int) -> list[str]:
    samples = sorted((ROOT / "recordings").glob("*.jsonl"))
    out = []
    for i in range(n):
        path = dest / f"{i:05d}-{samples[i % len(samples)].name}"
        shutil.copyfile(samples[i % len(samples)], path)
        out.append(str(path))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--recordings", type=int, default=1000)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--write-docs", action="store_true")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="rpcspy-bench-fleet-") as tmp:
        files = corpus(Path(tmp), args.recordings)
        quarter = files[: max(1, len(files) // 4)]
        env = tree_env(str(ROOT), str(Path(tmp) / "pycache"))
        py = [sys.executable, "-m", "rpcspy"]
        variants = {
            "check": lambda: run([*py, "check", "--format", "json", *files], env=env, ok=(0, 1)),
            "stats -j 1": lambda: run([*py, "stats", "--format", "json", "-j", "1", *files], env=env),
            "stats (every core)": lambda: run([*py, "stats", "--format", "json", *files], env=env),
            "stats -j 1, N/4": lambda: run([*py, "stats", "--format", "json", "-j", "1", *quarter], env=env),
        }
        got = rounds(variants, args.rounds, warm_up=True)
    secs = {k: [s for s, _ in v] for k, v in got.items()}
    rss = {k: [r / 1024 for _, r in v] for k, v in got.items()}
    n = args.recordings
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    body = f"""`python bench/bench_fleet.py --recordings {n} --rounds {args.rounds}`: {n} copies of the real sessions in
`recordings/` (pi 0.73.1, 0.87.1, 1.5.2, 1.6.0, omp 18.2.3), whole processes, interleaved rounds; median (range).
Load average when it finished: {load} (2 cores; other work ran beside it).

| variant | wall s | check / variant | peak RSS MiB |
|---|---|---|---|
| `check --format json` (baseline) | {spread(secs['check'])} | 1.00 | {spread(rss['check'], '{:.1f}')} |
| `stats -j 1` | {spread(secs['stats -j 1'])} | {spread(ratios(secs['check'], secs['stats -j 1']))} | {spread(rss['stats -j 1'], '{:.1f}')} |
| `stats` (every core) | {spread(secs['stats (every core)'])} | {spread(ratios(secs['check'], secs['stats (every core)']))} | {spread(rss['stats (every core)'], '{:.1f}')} (parent) |

Memory flat in the number of recordings: peak RSS of `stats -j 1` over {n} recordings / over {n // 4}:
{spread(ratios(rss['stats -j 1'], rss['stats -j 1, N/4']))}.
"""
    print(body)
    if args.write_docs:
        write_section("stats over many recordings", body)


if __name__ == "__main__":
    main()
