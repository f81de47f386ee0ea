"""Start-up: the proxy's start, `rpcspy -- cat </dev/null` and every command's `--help`, against a bare interpreter.

The proxy's start is timed from launching `rpcspy -- cat` (its stdin and stdout pipes
held by this script) until a line written to its stdin at once has come back through
`cat`: the proxy is up, the agent runs, and the client's first byte has flowed both
ways. The observer process (recorder and checker, forked before the agent starts)
may still be importing then; forwarding does not wait for it. `rpcspy -- cat
</dev/null` is timed to the proxy's exit, so it includes the observer process's
whole life. Baselines run in the same rounds: `python -c pass` (a bare interpreter),
`python -c "import click"` (the floor of any click command line) and
bench/minimal_relay.py proxying the same `cat`. Rounds are interleaved; median
(min-max) over rounds, ratios to the bare interpreter taken inside each round. Every
variant runs once first, uncounted, to write its bytecode cache (to a private
PYTHONPYCACHEPREFIX, whatever PYTHONDONTWRITEBYTECODE says): an installed package is
compiled once, not at every start.

    python bench/bench_startup.py [--rounds 15] [--write-docs]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT))

from perfdoc import write_section  # noqa: E402
from rounds import ratios, rounds, run, spread, tree_env  # noqa: E402

from rpcspy.cli import COMMANDS  # noqa: E402

PY = sys.executable
LINE = b'{"type":"get_state","id":"start"}\n'


def first_echo(cmd: list[str], env: dict[str, str]) -> tuple[float, int]:
    """(seconds from launch until ``LINE`` came back through the ``cat`` at the end of ``cmd``, peak RSS KiB)."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
    assert proc.stdin is not None and proc.stdout is not None
    os.write(proc.stdin.fileno(), LINE)
    got = b""
    while len(got) < len(LINE) and (chunk := os.read(proc.stdout.fileno(), 4096)):
        got += chunk
    secs = time.perf_counter() - start
    proc.stdin.close()
    rest = proc.stdout.read()
    _, status, usage = os.wait4(proc.pid, 0)
    if got + rest != LINE or os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"FAIL: {' '.join(cmd)} did not echo the line")
    return secs, usage.ru_maxrss


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=15)
    ap.add_argument("--proxy-only", action="store_true", help="leave out the --help runs (a quick look)")
    ap.add_argument("--tree", metavar="DIR", help="also time the proxy of the rpcspy in DIR "
                    "(`git archive OLD rpcspy | tar -x -C DIR`)")
    ap.add_argument("--write-docs", action="store_true")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        # As an installed package: bytecode compiled once (here into a private cache, written by a
        # warm-up run of every variant that is not counted), not at every start.
        env = tree_env(str(ROOT), os.path.join(tmp, "pycache"))
        def proc(*cmd: str, **kw):
            return lambda: run(list(cmd), stdin=open(os.devnull, "rb"), env=env, **kw)

        def echo(*cmd: str):
            return lambda: first_echo(list(cmd), env)

        variants: dict[str, Callable[[], tuple[float, int]]] = {
            "bare interpreter (`python -c pass`)": proc(PY, "-c", "pass"),
            "`python -c \"import click\"`": proc(PY, "-c", "import click"),
            "minimal relay -- cat": proc(PY, str(HERE / "minimal_relay.py"), os.path.join(tmp, "m.rec"), "cat"),
            "`rpcspy -- cat </dev/null` (record + check), until exit": proc(PY, "-m", "rpcspy", "--overwrite", "-o", os.path.join(tmp, "r.rec"), "--",
                                                      "cat"),
            "`rpcspy --no-check -- cat </dev/null`, until exit": proc(PY, "-m", "rpcspy", "--no-check", "--overwrite", "-o", os.path.join(tmp, "n.rec"),
                                               "--", "cat"),
            "start: `cat` alone, first line back": echo("cat"),
            "start: minimal relay -- cat, first line back": echo(PY, str(HERE / "minimal_relay.py"),
                                                                 os.path.join(tmp, "m2.rec"), "cat"),
            "start: `rpcspy -- cat` (record + check), first line back": echo(
                PY, "-m", "rpcspy", "--overwrite", "-o", os.path.join(tmp, "r2.rec"), "--", "cat"),
            "`rpcspy --help`": proc(PY, "-m", "rpcspy", "--help"),
        }
        if args.tree:  # -P: that tree's rpcspy, not the current directory's
            old = ["env", f"PYTHONPATH={args.tree}", PY, "-P", "-m", "rpcspy", "--overwrite", "-o"]
            variants[f"`rpcspy -- cat </dev/null`, until exit, tree {args.tree}"] = proc(
                *old, os.path.join(tmp, "t.rec"), "--", "cat")
            variants[f"start: `rpcspy -- cat`, first line back, tree {args.tree}"] = echo(
                *old, os.path.join(tmp, "t2.rec"), "--", "cat")
        for name in () if args.proxy_only else COMMANDS:
            variants[f"`rpcspy {name} --help`"] = proc(PY, "-m", "rpcspy", name, "--help")
        got = rounds(variants, args.rounds, warm_up=True)
    ms = {k: [s * 1000 for s, _ in v] for k, v in got.items()}
    bare = ms["bare interpreter (`python -c pass`)"]
    lines = [f"{args.rounds} interleaved rounds after an uncounted warm-up run of each (bytecode cached, as "
             f"installed), median (min-max) in ms; the ratio to the bare interpreter is taken inside each round. "
             f"The proxy's start is timed until a line written to its stdin at once has come back through `cat`; "
             f"`until exit` rows include the observer process's whole life. Command: `python bench/bench_startup.py --rounds {args.rounds}"
             f"{' --proxy-only' if args.proxy_only else ''}{' --tree ' + args.tree if args.tree else ''}`.", "",
             "| what | ms | vs bare interpreter | target |", "|---|---:|---:|---|"]
    helps = []
    for name, values in ms.items():
        target = "<= 60 ms" if name.startswith("start: `rpcspy") else "<= 50 ms" if "--help" in name else ""
        if "--help" in name:
            helps.append(statistics.median(values))
        lines.append(f"| {name} | {spread(values, '{:.0f}')} | {spread(ratios(values, bare))}x | {target} |")
    if len(helps) > 1:
        lines.append(f"\nSlowest `--help` median: {max(helps):.0f} ms.")
    body = "\n".join(lines)
    print(body)
    if args.write_docs:
        write_section("start-up", body)


if __name__ == "__main__":
    main()
