"""The real pi 1.6.0 flooded by rpcspy's scripted model: does rpcspy keep pace with a real agent at its top speed?

The model server (``rpcspy model-server --slow-delay 0``) answers the prompt ``slow:N`` with N text
chunks at once; pi turns each into a ``message_update`` frame as fast as it can (about 11-14 k frames/s
sustained on 2 cores, faster in bursts). The same pi, HOME and prompt run directly (a pipe), through
bench/minimal_relay.py (two threads of os.read/os.write that also record, 1 MiB pipes to the agent), and
through rpcspy (recording, live check and control socket: the defaults), in interleaved rounds.

Per run, the client (this script) timestamps every read and counts the message updates in it:
``sustained`` is the updates over the time from the first to the last, ``burst`` the most updates that
arrived in one 100 ms window (times 10, in frames/s). For rpcspy, ``recorded`` is the share of the
frames the client saw and sent that the recording holds (1.000: complete).

    RPCSPY_AGENTS_DIR=/work/main/.cache/agents python bench/bench_pi_flood.py [--frames 100000] [--rounds 3] [--write-docs]
"""

from __future__ import annotations

import argparse
import json
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
from perfdoc import write_section  # noqa: E402
from rounds import ratios, spread  # noqa: E402

from rpcspy.modelserver.config import agent_args, agent_env, make_home  # noqa: E402

PY = sys.executable
AGENT = "pi-1.6.0"
UPDATE = b'{"type":"message_update"'
END = b'{"type":"agent_end"'
WINDOW = 0.1
"""Seconds per window of the burst rate."""


def pi_argv() -> tuple[list[str], dict[str, str]]:
    """pi 1.6.0's command line and environment (installed in $RPCSPY_AGENTS_DIR or .cache/agents)."""
    from tests.support.agents import ensure_agent

    spec = ensure_agent(AGENT)
    return [*spec.argv_prefix, *agent_args(spec.dialect)], spec.environ()


def start_model_server(home: Path) -> tuple[subprocess.Popen[bytes], str]:
    proc = subprocess.Popen([PY, "-m", "rpcspy", "model-server", "--port", "0", "--config", "none",
                             "--slow-delay", "0"], stdout=subprocess.PIPE, cwd=ROOT)
    assert proc.stdout is not None
    first = proc.stdout.readline().decode()
    if not first.startswith("# model server:"):
        raise SystemExit(f"FAIL: the model server said {first!r}")
    url = first.split(":", 1)[1].strip()
    make_home(home, url)
    return proc, url


def flood(prefix: list[str], argv: list[str], env: dict[str, str], cwd: Path, frames: int) -> dict[str, float]:
    """One prompt of ``frames`` text chunks through ``prefix`` (or directly): rates and counts."""
    proc = subprocess.Popen([*prefix, *argv], stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env, cwd=cwd)
    assert proc.stdin is not None and proc.stdout is not None
    sent = json.dumps({"id": "flood", "type": "prompt", "message": f"slow:{frames}"}).encode() + b"\n"
    proc.stdin.write(sent)
    proc.stdin.flush()
    fd = proc.stdout.fileno()
    carry = b""
    stamps: list[tuple[float, int]] = []
    lines = 0
    ended = False
    while not ended and (chunk := os.read(fd, 1 << 20)):
        now = time.perf_counter()
        *whole, carry = (carry + chunk).split(b"\n")
        lines += len(whole)
        n = sum(line.startswith(UPDATE) for line in whole)
        if n:
            stamps.append((now, n))
        ended = any(line.startswith(END) for line in whole)
    proc.stdin.close()
    while chunk := os.read(fd, 1 << 20):
        lines += chunk.count(b"\n")
    proc.wait()
    if not ended:
        raise SystemExit(f"FAIL: {prefix or 'direct'}: pi never ended its run (exit {proc.returncode})")
    updates = sum(n for _, n in stamps)
    first, last = stamps[0][0], stamps[-1][0]
    bins: dict[int, int] = {}
    for at, n in stamps:
        key = int((at - first) / WINDOW)
        bins[key] = bins.get(key, 0) + n
    return {"updates": updates, "sustained": updates / max(last - first, 1e-9), "burst": max(bins.values()) / WINDOW,
            "lines": lines + 1}


def recorded_frames(path: str) -> int:
    with open(path, "rb") as f:
        return sum(b'"kind":"frame"' in line[:40] for line in f)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--frames", type=int, default=100_000, help="text chunks in the reply (at most 100000)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--write-docs", action="store_true")
    args = ap.parse_args()
    argv, base_env = pi_argv()
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp, "home")
        server, _ = start_model_server(home)
        env = agent_env(home, base_env)
        env["PYTHONPATH"] = str(ROOT)
        rec = os.path.join(tmp, "rpcspy.rec")
        variants = {"direct": [], "minimal relay": [PY, str(HERE / "minimal_relay.py"), os.path.join(tmp, "m.rec")],
                    "rpcspy": [PY, "-m", "rpcspy", "--overwrite", "-o", rec, "--"]}
        got: dict[str, list[dict[str, float]]] = {k: [] for k in variants}
        complete: list[float] = []
        try:
            for r in range(args.rounds):
                for name, prefix in variants.items():
                    out = flood(prefix, argv, env, home / "project", args.frames)
                    got[name].append(out)
                    if name == "rpcspy":
                        complete.append(recorded_frames(rec) / out["lines"])
                    print(f"round {r + 1}: {name:14s} {out['updates']:.0f} updates, sustained "
                          f"{out['sustained'] / 1e3:5.1f} k/s, burst {out['burst'] / 1e3:5.1f} k/s"
                          + (f", recorded {complete[-1]:.3f}" if name == "rpcspy" else ""), file=sys.stderr)
        finally:
            server.terminate()
            server.wait()
    rate = {k: [g["sustained"] / 1e3 for g in v] for k, v in got.items()}
    burst = {k: [g["burst"] / 1e3 for g in v] for k, v in got.items()}
    rows = [
        ("sustained, direct pipe", f"{spread(rate['direct'], '{:.1f}')} k frames/s", "baseline"),
        ("sustained, minimal relay", f"{spread(rate['minimal relay'], '{:.1f}')} k frames/s",
         f"{spread(ratios(rate['minimal relay'], rate['direct']))}x direct"),
        ("sustained, rpcspy", f"{spread(rate['rpcspy'], '{:.1f}')} k frames/s",
         f"{spread(ratios(rate['rpcspy'], rate['minimal relay']))}x minimal relay (target >= 1.0), "
         f"{spread(ratios(rate['rpcspy'], rate['direct']))}x direct"),
        ("burst (most in 100 ms), direct / minimal relay / rpcspy",
         " / ".join(spread(burst[k], "{:.1f}") for k in variants) + " k frames/s",
         f"rpcspy {spread(ratios(burst['rpcspy'], burst['minimal relay']))}x minimal relay (target >= 1.0)"),
        ("frames in rpcspy's recording", spread(complete, "{:.3f}"), "1.000 is complete"),
    ]
    table = "\n".join([
        f"pi 1.6.0 answering `slow:{args.frames}` from `rpcspy model-server --slow-delay 0` ({args.frames:,} "
        f"`message_update` frames as fast as pi makes them); {args.rounds} interleaved rounds, median (min-max). "
        f"Command: `python bench/bench_pi_flood.py --frames {args.frames} --rounds {args.rounds}`.", "",
        "| measure | value | compared |", "|---|---|---|", *[f"| {a} | {b} | {c} |" for a, b, c in rows]])
    print(table)
    if args.write_docs:
        write_section("real pi flood", table)


if __name__ == "__main__":
    main()
