"""Interleaved rounds of whole-process runs: wall time and peak RSS, medians and ranges.

Each round runs every variant once, in the same order (A B C A B C ...), so drift on a
shared machine hits them alike. Ratios are taken inside a round (variant / baseline of
the same round) and then summarised, which is what makes them comparable. A process that
runs an rpcspy tree gets :func:`tree_env`: its bytecode compiled once, as installed.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable


def run(cmd: list[str], **kw) -> tuple[float, int]:
    """(wall seconds, peak RSS KiB) of one process run to its end; fails on a bad exit."""
    secs, _, rss = run_cpu(cmd, **kw)
    return secs, rss


def run_cpu(cmd: list[str], **kw) -> tuple[float, float, int]:
    """(wall seconds, CPU seconds (user + system), peak RSS KiB) of one process run to its end."""
    ok = kw.pop("ok", (0,))
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, **kw)
    _, status, usage = os.wait4(proc.pid, 0)
    secs = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode not in ok:
        raise SystemExit(f"FAIL: {' '.join(cmd)} exited {proc.returncode}")
    return secs, usage.ru_utime + usage.ru_stime, usage.ru_maxrss


def tree_env(tree: str, pycache: str) -> dict[str, str]:
    """The environment of a process running the rpcspy in ``tree`` as an installed package runs: its bytecode
    compiled once, into the private directory ``pycache`` (PYTHONPYCACHEPREFIX, written whatever
    PYTHONDONTWRITEBYTECODE says, so a baseline tree is not recompiled at every run; a first uncounted run
    writes it: ``rounds(..., warm_up=True)``)."""
    env = {**os.environ, "PYTHONPATH": tree, "PYTHONPYCACHEPREFIX": pycache}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def rounds(variants: dict[str, Callable[[], tuple[float, int]]], n: int, label: str = "", *,
           warm_up: bool = False) -> dict[str, list]:
    """Run each variant once per round, ``n`` rounds (after one uncounted run of each with ``warm_up``);
    {name: [(secs, rss), ...]}."""
    for fn in variants.values() if warm_up else ():
        fn()
    out: dict[str, list] = {k: [] for k in variants}
    for r in range(n):
        for name, fn in variants.items():
            got = fn()
            out[name].append(got)
            print(f"{label}round {r + 1}: {name:28s} {got[0]:7.3f} s {got[1] / 1024:7.1f} MiB", file=sys.stderr)
    return out


def spread(values: list[float], fmt: str = "{:.2f}") -> str:
    """``median (min-max)``."""
    return f"{fmt.format(statistics.median(values))} ({fmt.format(min(values))}-{fmt.format(max(values))})"


def ratios(num: list[float], den: list[float]) -> list[float]:
    return [a / b for a, b in zip(num, den, strict=True)]
