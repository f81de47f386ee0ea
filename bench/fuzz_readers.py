"""Mutation fuzz of every reading command, by the ten thousand (the suite runs a few hundred).

Each case takes a seed recording (rpcspy/data/demo.jsonl, recordings/*.jsonl, the bundled
scenarios, a raw and a structured transcript), damages it with one to three random mutations
(flipped and inserted bytes, invalid UTF-8, lines deleted, duplicated or swapped, values replaced
by hostile ones: nesting 50 to 100,000 levels deep, lists where strings belong, huge numbers and
strings, wrong entry fields, whole-file garbage; and structured ones: a value of the wrong type,
size or range at a random JSON path of a random line, the header included (integers beyond 64
bits, 1e308, lone surrogates, controls, objects, lists), duplicate keys, two lines glued with
``],[`` and a value split over two lines, transcript records with surrogates and odd ``t``), and
runs one of check, show, show --raw, stats, export, fixture, diff, replay, why, watch, browse (its
model) and replay --client (against ``cat``) on it in process (tests/support/fuzz_readers.py).
A failure is a Python traceback or no answer within the time limit; a clean error with a
non-zero status is what damaged input should get.

Usage: python bench/fuzz_readers.py [--cases 10000] [--seed 0] [--limit 20]
Exit status 1 when any case failed; each failing case is printed with its seed, so that
`--cases 1 --seed N` reproduces it.
"""

from __future__ import annotations

import argparse
import collections
import random
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.support.fuzz_readers import COMMANDS, SEEDS, mutate, run_command  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=0, help="first case's seed; case i uses seed+i")
    parser.add_argument("--limit", type=float, default=20.0, help="seconds before a case counts as a hang")
    parser.add_argument("--verbose", action="store_true", help="print each failure's whole traceback")
    args = parser.parse_args(argv)
    failures: collections.Counter[tuple[str, str]] = collections.Counter()
    first: dict[tuple[str, str], tuple[int, str]] = {}
    per_command: collections.Counter[str] = collections.Counter()
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="rpcspy-fuzz-") as tmp:
        work = Path(tmp)
        for i in range(args.cases):
            seed = args.seed + i
            rng = random.Random(seed)
            source = rng.choice(SEEDS)
            path = work / "mutated.jsonl"
            path.write_bytes(mutate(source.read_bytes(), rng))
            command = COMMANDS[seed % len(COMMANDS)]
            per_command[command] += 1
            outcome = run_command(command, str(path), work, seed=str(source), limit=args.limit)
            if not outcome.ok:
                assert outcome.traceback is not None
                key = (command, outcome.traceback.strip().splitlines()[-1][:160])
                failures[key] += 1
                first.setdefault(key, (seed, outcome.traceback))
            if (i + 1) % 1000 == 0:
                print(f"{i + 1} cases, {sum(failures.values())} failures, {time.monotonic() - started:.0f} s",
                      file=sys.stderr)
    for key, count in failures.most_common():
        seed, tb = first[key]
        print(f"{count:5} x {key[0]}: {key[1]}  (first: --seed {seed})")
        if args.verbose:
            print(tb)
    elapsed = time.monotonic() - started
    print(f"{args.cases} cases ({', '.join(f'{c} {n}' for c, n in per_command.items())}) in {elapsed:.0f} s: "
          f"{sum(failures.values())} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
