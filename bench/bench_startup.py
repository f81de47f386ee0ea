"""Start-up: `rpcspy -- cat </dev/null` and every command's `--help`, against a bare interpreter.

Baselines run in the same rounds: `python -c pass` (a bare interpreter), `python -c
"import click"` (the floor of any click command line) and bench/minimal_relay.py
proxying the same `cat`. Rounds are interleaved; median (min-max) over rounds, ratios
to the bare interpreter taken inside each round.

    python bench/bench_startup.py [--rounds 15] [--write-docs]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT))

from perfdoc import write_section  # noqa: E402
from rounds import ratios, rounds, run, spread  # noqa: E402

from rpcspy.cli import COMMANDS  # noqa: E402

PY = sys.executable


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=15)
    ap.add_argument("--write-docs", action="store_true")
    args = ap.parse_args()
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    with tempfile.TemporaryDirectory() as tmp:
        def proc(*cmd: str, **kw):
            return lambda: run(list(cmd), stdin=open(os.devnull, "rb"), env=env, **kw)

        variants = {
            "bare interpreter (`python -c pass`)": proc(PY, "-c", "pass"),
            "`python -c \"import click\"`": proc(PY, "-c", "import click"),
            "minimal relay -- cat": proc(PY, str(HERE / "minimal_relay.py"), os.path.join(tmp, "m.rec"), "cat"),
            "`rpcspy -- cat` (record + check)": proc(PY, "-m", "rpcspy", "--overwrite", "-o", os.path.join(tmp, "r.rec"), "--",
                                                      "cat"),
            "`rpcspy --no-check -- cat`": proc(PY, "-m", "rpcspy", "--no-check", "--overwrite", "-o", os.path.join(tmp, "n.rec"),
                                               "--", "cat"),
            "`rpcspy --help`": proc(PY, "-m", "rpcspy", "--help"),
        }
        for name in COMMANDS:
            variants[f"`rpcspy {name} --help`"] = proc(PY, "-m", "rpcspy", name, "--help")
        got = rounds(variants, args.rounds)
    ms = {k: [s * 1000 for s, _ in v] for k, v in got.items()}
    bare = ms["bare interpreter (`python -c pass`)"]
    lines = [f"{args.rounds} interleaved rounds, median (min-max) in ms; the ratio to the bare interpreter is "
             f"taken inside each round. Command: `python bench/bench_startup.py --rounds {args.rounds}`.", "",
             "| what | ms | vs bare interpreter | target |", "|---|---:|---:|---|"]
    helps = []
    for name, values in ms.items():
        target = "<= 60 ms" if name.startswith("`rpcspy -- cat`") else "<= 50 ms" if "--help" in name else ""
        if "--help" in name:
            helps.append(statistics.median(values))
        lines.append(f"| {name} | {spread(values, '{:.0f}')} | {spread(ratios(values, bare))}x | {target} |")
    lines.append(f"\nSlowest `--help` median: {max(helps):.0f} ms.")
    body = "\n".join(lines)
    print(body)
    if args.write_docs:
        write_section("start-up", body)


if __name__ == "__main__":
    main()
