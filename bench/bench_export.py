"""Benchmark `rpcspy export --format html` against `rpcspy check` on the same recordings.

Generates pi-like recordings (bench_check's generator: pi 0.73 frames carrying the whole
partial message twice, or pi 0.84 delta-only frames) of several sizes, then runs, in
interleaved rounds, `python -m rpcspy check --format json FILE` and
`python -m rpcspy export FILE -o PAGE` as separate processes, and reports per size:

* the speed ratio export / check (check's time over export's; >= 0.5 is the target), median
  and range over the rounds, by wall time and by CPU time (user + system: steadier on a busy
  machine);
* export's peak RSS (ru_maxrss of the process; target < 64 MiB and flat in the size);
* the page's size over the recording's (target <= 1.5);
* with --chromium, the time headless Chromium takes to load the page and run its script
  (`--dump-dom`), minus the time it takes on an empty page (its own start-up).

Usage: python bench/bench_export.py [--mb 12.5,25,50] [--rounds 5] [--dialect pi-0.73|pi-0.84|both] [--chromium]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

from bench_check import generate  # noqa: E402

ENV = {**os.environ, "PYTHONPATH": str(ROOT)}


def run(argv: list[str]) -> tuple[float, float, int]:
    """Wall seconds, CPU seconds (user + system) and peak RSS (KiB) of one process."""
    start = time.perf_counter()
    proc = subprocess.Popen(argv, cwd=ROOT, env=ENV, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) not in (0, 1):
        raise SystemExit(f"{argv} failed with {status}")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss


def chromium_load(browser: str, page: Path, profile: Path) -> float:
    start = time.perf_counter()
    subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                    "--disable-component-update", "--no-first-run", f"--user-data-dir={profile}", "--dump-dom",
                    page.as_uri()], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True, timeout=300)
    return time.perf_counter() - start


def spread(values: list[float]) -> str:
    return f"{statistics.median(values):.2f} ({min(values):.2f}-{max(values):.2f})"


def measure(style: str, mib: float, rounds: int, browser: str | None, tmp: Path) -> str:
    rec = tmp / f"{style}-{mib:g}.jsonl"
    page = tmp / f"{style}-{mib:g}.html"
    size = generate(str(rec), int(mib * 1024 * 1024), style == "pi-0.84")
    check_argv = [sys.executable, "-m", "rpcspy", "check", "--format", "json", str(rec)]
    export_argv = [sys.executable, "-m", "rpcspy", "export", str(rec), "-o", str(page)]
    ratios, cpu_ratios, rss, export_s, check_s = [], [], [], [], []
    run(check_argv)  # warm the page cache
    for _ in range(rounds):
        c, c_cpu, _ = run(check_argv)
        e, e_cpu, r = run(export_argv)
        ratios.append(c / e)
        cpu_ratios.append(c_cpu / e_cpu)
        rss.append(r / 1024)
        export_s.append(e)
        check_s.append(c)
    cells = [f"{style} {size / 2**20:.1f} MiB", spread(check_s), spread(export_s), spread(ratios), spread(cpu_ratios),
             f"{max(rss):.1f}", f"{page.stat().st_size / size:.2f}"]
    if browser:
        profile = tmp / "profile"
        blank = tmp / "blank.html"
        blank.write_text("<!DOCTYPE html><html><body></body></html>")
        loads = []
        for _ in range(max(1, rounds // 2)):
            base = chromium_load(browser, blank, profile)
            loads.append(chromium_load(browser, page, profile) - base)
        cells.append(spread(loads))
    return "| " + " | ".join(cells) + " |"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--mb", default="12.5,25,50", help="recording sizes in MiB, comma-separated")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--dialect", choices=["pi-0.73", "pi-0.84", "both"], default="both")
    ap.add_argument("--chromium", action="store_true", help="also time loading the page in headless Chromium")
    args = ap.parse_args()
    browser = (shutil.which("chromium") or shutil.which("chromium-browser")) if args.chromium else None
    if args.chromium and browser is None:
        raise SystemExit("chromium is not installed")
    styles = ["pi-0.73", "pi-0.84"] if args.dialect == "both" else [args.dialect]
    head = ["recording", "check s", "export s", "export speed / check (wall)", "(CPU time)", "export peak RSS MiB",
            "page / recording"]
    if browser:
        head.append("Chromium load + script s")
    print(f"{args.rounds} interleaved rounds; median (min-max)\n")
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    with tempfile.TemporaryDirectory(prefix="bench_export_") as tmp:
        for style in styles:
            for mib in (float(x) for x in args.mb.split(",")):
                print(measure(style, mib, args.rounds, browser, Path(tmp)), flush=True)


if __name__ == "__main__":
    main()
