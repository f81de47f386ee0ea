"""Offline commands against `check` and a bare msgspec decode: `check`, `diff A A'`, `fixture`.

Generates pi-like recordings (bench_check.py: pi 0.84 delta-only small frames, pi 0.73
frames carrying the whole partial message twice) and a copy A' of each with a few edits
(every tenth of the way a frame changed, dropped or doubled), then runs, as whole processes
over interleaved rounds:

* baseline: `python -c` reading the file and `msgspec.json.decode`-ing every line;
* `rpcspy check --format json A`;
* `rpcspy diff A A'` (reads both: its throughput counts the bytes of both);
* `rpcspy fixture A -o F`;
* with `--baseline-tree DIR`, `rpcspy check` and `rpcspy fixture` of the rpcspy in DIR too.

Throughput ratios are taken inside each round, then given as median (min-max). A
scaling table runs `diff` on recordings of N and 4N frames: linear work shows as a
time ratio near 4 and a flat RSS. Every tree's bytecode is compiled once, into a private
cache, by an uncounted first round (``rounds.tree_env``), as an installed package has it.

Usage: python bench/bench_offline.py [--mb 40] [--rounds 5] [--dialect pi-0.84|pi-0.73|both] [--write-docs]
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT))

from bench_check import BARE_SCRIPT, generate  # noqa: E402
from rounds import ratios, rounds, run, spread, tree_env  # noqa: E402

PY = sys.executable
RPCSPY = [PY, "-m", "rpcspy"]
PYCACHE: list[str] = []
"""The private bytecode cache of this run (set by :func:`main`)."""


def _env(tree: str) -> dict[str, str]:
    return tree_env(tree, PYCACHE[0])


def edited_copy(src: str, dst: str, every: int = 20_000) -> None:
    """A' of A: a frame changed every ``every`` lines, one dropped and one doubled per 3 ``every``."""
    with open(src, "rb") as f, open(dst, "wb") as out:
        for i, line in enumerate(f):
            if i and i % every == 0 and b'"delta":"' in line:
                line = line.replace(b'"delta":"', b'"delta":"X', 1)
            elif i and i % (3 * every) == every // 2:
                continue
            out.write(line)
            if i and i % (3 * every) == every // 3:
                out.write(line)


def offline_table(style: str, mb: float, n: int, tmp: str, baseline: str | None = None) -> str:
    a, b, fx = (os.path.join(tmp, f"{style}.{x}.jsonl") for x in ("a", "b", "fixture"))
    size_a = generate(a, int(mb * 1024 * 1024), style == "pi-0.84", delta_len=4 if style == "pi-0.84" else 24)
    with open(a, "rb") as f:
        lines = sum(1 for _ in f)
    every = max(100, lines // 10)
    edited_copy(a, b, every)
    size_b = os.path.getsize(b)
    root = str(ROOT)  # `python -m` looks in the cwd first: each tree runs from its own
    got = rounds({
        "bare decode": lambda: run([PY, "-c", BARE_SCRIPT, a], env=_env(root), cwd=root),
        "check": lambda: run([*RPCSPY, "check", "--format", "json", a], ok=(0, 1), env=_env(root), cwd=root),
        "diff A A'": lambda: run([*RPCSPY, "diff", a, b], ok=(1,), env=_env(root), cwd=root),
        "fixture": lambda: run([*RPCSPY, "fixture", a, "-o", fx, "--force"], env=_env(root), cwd=root),
        **({"check (baseline)": lambda: run([*RPCSPY, "check", "--format", "json", a], ok=(0, 1), cwd=baseline,
                                            env=_env(baseline))} if baseline else {}),
        **({"fixture (baseline)": lambda: run([*RPCSPY, "fixture", a, "-o", fx, "--force"], cwd=baseline,
                                              env=_env(baseline))} if baseline else {}),
    }, n, f"{style} ", warm_up=True)
    secs = {k: [s for s, _ in v] for k, v in got.items()}
    rss = {k: [r / 1024 for _, r in v] for k, v in got.items()}
    mbs = {k: [size_a / 2**20 / s for s in v] for k, v in secs.items()}
    mbs["diff A A'"] = [(size_a + size_b) / 2**20 / s for s in secs["diff A A'"]]
    rows = [
        ("`python -c` decoding every line (baseline)", "bare decode", "1.00x", "", ""),
        ("`rpcspy check --format json A`", "check", spread(ratios(mbs["check"], mbs["bare decode"])) + " bare",
         ">= 0.6x bare" if style == "pi-0.84" else "keep", ""),
        ("`rpcspy diff A A'` (bytes of A and A')", "diff A A'",
         spread(ratios(mbs["diff A A'"], mbs["check"])) + " check", ">= 0.5x check", ""),
        ("`rpcspy fixture A -o F`", "fixture", spread(ratios(mbs["fixture"], mbs["check"])) + " check",
         ">= 0.5x check", ""),
    ]
    if baseline:
        rows.insert(2, ("`rpcspy check --format json A`, baseline tree", "check (baseline)",
                        spread(ratios(mbs["check (baseline)"], mbs["bare decode"])) + " bare", "", ""))
        rows.append(("`rpcspy fixture A -o F`, baseline tree (vs this tree's check)", "fixture (baseline)",
                     spread(ratios(mbs["fixture (baseline)"], mbs["check"])) + " check", "", ""))
    out = [f"**{style}**: A {size_a / 2**20:.1f} MiB, {lines:,} lines; A' the same with a delta changed every "
           f"{every:,} lines and a frame dropped and one doubled every {3 * every:,}. "
           f"{n} interleaved rounds, median (min-max).", "",
           "| command | s | MiB/s | throughput ratio | target | peak RSS MiB |", "|---|---:|---:|---:|---|---:|"]
    for name, key, ratio, target, _ in rows:
        out.append(f"| {name} | {spread(secs[key])} | {spread(mbs[key], '{:.0f}')} | {ratio} | {target} | "
                   f"{spread(rss[key], '{:.0f}')} |")
    return "\n".join(out)


def scaling_table(frames: int, n: int, tmp: str, baseline: str | None) -> str:
    """`diff A A'` on delta-only recordings of about ``frames`` and 4x ``frames`` frames (and on a baseline tree)."""
    trees = {"": str(ROOT)} | ({" (baseline)": baseline} if baseline else {})
    variants = {}
    counts = {}
    for mult in (1, 4):
        a, b = os.path.join(tmp, f"scale{mult}.a.jsonl"), os.path.join(tmp, f"scale{mult}.b.jsonl")
        generate(a, frames * mult * 300, True, delta_len=4)  # ~300 bytes a frame
        with open(a, "rb") as f:
            counts[mult] = sum(1 for _ in f)
        edited_copy(a, b, max(100, counts[mult] // 10))
        for label, tree in trees.items():
            env = _env(tree)  # run from tmp: `python -m` looks in the cwd first
            variants[f"{mult}x{label}"] = (lambda a=a, b=b, env=env: run([*RPCSPY, "diff", a, b], ok=(1,), env=env,
                                                                         cwd=tmp))
    got = rounds(variants, n, "scaling ", warm_up=True)
    secs = {k: [s for s, _ in v] for k, v in got.items()}
    rss = {k: [r / 1024 for _, r in v] for k, v in got.items()}
    out = [f"`diff A A'` on delta-only recordings of {counts[1]:,} and {counts[4]:,} frames, {n} interleaved rounds: "
           "linear work takes about 4x the time for 4x the frames"
           + (f"; baseline: the rpcspy in `{baseline}`." if baseline else "."), "",
           "| rpcspy | frames | s | s per million frames | peak RSS MiB |", "|---|---:|---:|---:|---:|"]
    for label in trees:
        for mult in (1, 4):
            k = f"{mult}x{label}"
            out.append(f"| {label.strip(' ()') or 'this tree'} | {counts[mult]:,} | {spread(secs[k])} | "
                       f"{spread([s / counts[mult] * 1e6 for s in secs[k]])} | {spread(rss[k], '{:.0f}')} |")
    out.append("")
    for label in trees:
        out.append(f"Time ratio 4x/1x{label}: {spread(ratios(secs['4x' + label], secs['1x' + label]))}.")
    return "\n".join(out)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--mb", type=float, default=40.0, help="size of A in MiB (default 40)")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--dialect", choices=["pi-0.73", "pi-0.84", "both"], default="both")
    ap.add_argument("--scale-frames", type=int, default=100_000, help="frames of the small scaling recording")
    ap.add_argument("--baseline-tree", metavar="DIR",
                    help="also time `check` and the scaling diffs with the rpcspy in DIR "
                         "(`git archive OLD rpcspy | tar -x -C DIR`)")
    ap.add_argument("--write-docs", action="store_true")
    args = ap.parse_args()
    styles = ["pi-0.84", "pi-0.73"] if args.dialect == "both" else [args.dialect]
    PYCACHE[:] = [tempfile.mkdtemp(prefix="bench_offline_pycache_")]
    try:
        with tempfile.TemporaryDirectory() as tmp:
            tables = [offline_table(s, args.mb, args.rounds, tmp, args.baseline_tree) for s in styles]
            for name in os.listdir(tmp):
                os.unlink(os.path.join(tmp, name))
            if args.scale_frames:
                tables.append(scaling_table(args.scale_frames, args.rounds, tmp, args.baseline_tree))
    finally:
        shutil.rmtree(PYCACHE[0], ignore_errors=True)
    command = f"python bench/bench_offline.py --mb {args.mb:g} --rounds {args.rounds} --scale-frames {args.scale_frames}"
    if args.baseline_tree:
        command += f" --baseline-tree {args.baseline_tree}"
    body = "\n\n".join(tables) + f"\n\nCommand: `{command}`."
    print(body)
    if args.write_docs:
        from perfdoc import write_section

        write_section("offline commands", body)


if __name__ == "__main__":
    main()
