"""Forwarding CPU per small frame: rpcspy's forwarding process against bench/minimal_relay.py.

Counted: user + system CPU (``/proc/<pid>/stat`` utime + stime, all threads) of the
process that forwards, between two points while it is running. For rpcspy that is
the process the client started (its relays); its observer process (the forked
child that records and checks) and the agent are not counted. For the minimal
relay it is the relay (two threads of os.read/os.write that also write the raw
chunks to a file, 1 MiB pipes, as rpcspy's).

Two loads, the same in every variant and round:

- ``one at a time``: round trips through ``bench/responder.py``: the client writes one
  small command, waits for the one-line response. Every frame is a chunk of its own
  (the worst case for per-chunk work); a round trip forwards two frames. Measured
  from after a warm-up to after the last answer; p50 and p99 round trips are printed too.
- ``burst``: the agent writes ~280-byte delta frames (bench/stream_gen.py --small),
  one ``write`` each, as fast as it can; the client reads them all. Frames may meet
  in the pipe, so this is the cost per frame when output pours. Measured from the
  first byte the client gets to the last.

The agent stays alive until the client closes its stdin, so the forwarding process
is still there to be read after the last frame.

    python bench/bench_forward_cpu.py [--rounds 5] [--pings 20000] [--frames 1000000] [--write-docs]
"""

from __future__ import annotations

import argparse
import mmap
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from perfdoc import write_section  # noqa: E402
from rounds import ratios, spread  # noqa: E402
from stream_gen import generate  # noqa: E402

PY = sys.executable
TICK = os.sysconf("SC_CLK_TCK")
WARMUP = 200
BURST_AGENT = ("import os, sys\n"
               "for line in open(sys.argv[1], 'rb'):\n"
               "    os.write(1, line)\n"
               "sys.stdin.buffer.read()\n")
"""Writes the file line by line, one system call a frame, then waits for the client's EOF."""


def cpu_seconds(pid: int) -> float:
    """User + system CPU of process ``pid`` (all its threads, living or ended), in seconds."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def variants(tmp: str, extra: list[str]) -> dict[str, list[str]]:
    out = {
        "minimal relay": [PY, str(HERE / "minimal_relay.py"), os.path.join(tmp, "minimal.rec")],
        "rpcspy": [PY, "-m", "rpcspy", "--overwrite", "-o", os.path.join(tmp, "rpcspy.rec"), "--"],
    }
    for tree in extra:  # -P: that tree's rpcspy, not the current directory's
        out[f"rpcspy {Path(tree).name}"] = ["env", f"PYTHONPATH={tree}", PY, "-P", "-m", "rpcspy", "--overwrite",
                                            "-o", os.path.join(tmp, f"{Path(tree).name}.rec"), "--"]
    return out


def one_at_a_time(prefix: list[str], pings: int) -> tuple[float, float, float]:
    """(CPU seconds per frame, p50 s, p99 s) over ``pings`` round trips after a warm-up."""
    proc = subprocess.Popen([*prefix, PY, str(HERE / "responder.py")], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert proc.stdin is not None and proc.stdout is not None
    cmd = b'{"id":"x","type":"get_state"}\n'
    rtts = []
    cpu0 = 0.0
    for i in range(WARMUP + pings):
        if i == WARMUP:
            cpu0 = cpu_seconds(proc.pid)
        t = time.perf_counter()
        proc.stdin.write(cmd)
        proc.stdin.flush()
        if not proc.stdout.readline().startswith(b'{"id":"x","type":"response"'):
            raise SystemExit(f"FAIL: {prefix} garbled a response")
        if i >= WARMUP:
            rtts.append(time.perf_counter() - t)
    cpu = cpu_seconds(proc.pid) - cpu0
    proc.stdin.close()
    if proc.wait() != 0:
        raise SystemExit(f"FAIL: {prefix} exited {proc.returncode}")
    rtts.sort()
    return cpu / (2 * pings), rtts[len(rtts) // 2], rtts[min(len(rtts) - 1, int(0.99 * len(rtts)))]


def burst(prefix: list[str], path: str, frames: int) -> float:
    """CPU seconds per frame forwarded while the agent writes ``path`` frame by frame."""
    proc = subprocess.Popen([*prefix, PY, "-c", BURST_AGENT, path], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert proc.stdin is not None and proc.stdout is not None
    fd = proc.stdout.fileno()
    with open(path, "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as expected:
        size, pos, same = len(expected), 0, True
        cpu0 = None
        while pos < size:
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                break
            if cpu0 is None:
                cpu0 = cpu_seconds(proc.pid)
            same = same and expected[pos:pos + len(chunk)] == chunk
            pos += len(chunk)
    cpu = cpu_seconds(proc.pid) - (cpu0 or 0.0)
    proc.stdin.close()
    rest = proc.stdout.read()
    if proc.wait() != 0 or rest or not same or pos != size:
        raise SystemExit(f"FAIL: {prefix} did not deliver the frames byte for byte")
    return cpu / frames


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--pings", type=int, default=20000, help="round trips per variant and round")
    ap.add_argument("--frames", type=int, default=1_000_000, help="frames per burst (about 280 bytes each)")
    ap.add_argument("--tree", action="append", default=[], metavar="DIR",
                    help="also measure the rpcspy in DIR (e.g. `git archive 582dc98 rpcspy | tar -x -C DIR`)")
    ap.add_argument("--write-docs", action="store_true")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "frames.jsonl")
        generate(path, args.frames * 280, small=True)
        with open(path, "rb") as f:
            frames = sum(chunk.count(b"\n") for chunk in iter(lambda: f.read(1 << 20), b""))
        var = variants(tmp, args.tree)
        ping: dict[str, list[tuple[float, float, float]]] = {k: [] for k in var}
        pour: dict[str, list[float]] = {k: [] for k in var}
        for r in range(args.rounds):
            for name, prefix in var.items():
                ping[name].append(one_at_a_time(prefix, args.pings))
                pour[name].append(burst(prefix, path, frames))
                print(f"round {r + 1}: {name:16s} {ping[name][-1][0] * 1e6:6.1f} us a frame one at a time "
                      f"(p50 {ping[name][-1][1] * 1e6:.0f} us, p99 {ping[name][-1][2] * 1e6:.0f} us), "
                      f"{pour[name][-1] * 1e6:6.1f} us a frame in a burst", file=sys.stderr)
    table = render(ping, pour, frames, args)
    print(table)
    if args.write_docs:
        write_section("forwarding CPU", table)


def render(ping: dict[str, list[tuple[float, float, float]]], pour: dict[str, list[float]], frames: int,
           args: argparse.Namespace) -> str:
    trees = "".join(f" --tree {t}" for t in args.tree)
    lines = [f"CPU (user + system, `/proc/<pid>/stat`) of the forwarding process only, per small frame forwarded: "
             f"{args.pings} round trips (two frames each, every frame a chunk of its own) and a burst of "
             f"{frames:,} frames of ~280 bytes written one `write` each; {args.rounds} interleaved rounds, "
             "median (min-max), ratios taken inside each round. rpcspy records and checks (its observer process "
             f"is not counted). Command: `python bench/bench_forward_cpu.py --rounds {args.rounds} --pings "
             f"{args.pings} --frames {args.frames}{trees}`.", "",
             "| forwarding process | us a frame, one at a time | vs minimal relay | round trip p50 / p99 (us) "
             "| vs minimal relay p50 / p99 | us a frame, burst | vs minimal relay |",
             "|---|---:|---:|---:|---:|---:|---:|"]
    base = "minimal relay"
    for name in ping:
        cpu = [p[0] * 1e6 for p in ping[name]]
        p50 = [p[1] * 1e6 for p in ping[name]]
        p99 = [p[2] * 1e6 for p in ping[name]]
        b50 = [p[1] * 1e6 for p in ping[base]]
        b99 = [p[2] * 1e6 for p in ping[base]]
        cpu_b = [p[0] * 1e6 for p in ping[base]]
        pour_us = [v * 1e6 for v in pour[name]]
        pour_b = [v * 1e6 for v in pour[base]]
        lines.append(f"| {name} | {spread(cpu, '{:.1f}')} | {spread(ratios(cpu, cpu_b))}x | "
                     f"{spread(p50, '{:.0f}')} / {spread(p99, '{:.0f}')} | "
                     f"{spread(ratios(p50, b50))}x / {spread(ratios(p99, b99))}x | "
                     f"{spread(pour_us, '{:.1f}')} | {spread(ratios(pour_us, pour_b))}x |")
    lines.append("\nTargets (issue 16): <= 10 us of forwarding CPU per small frame; round trip p50 <= 1.15x, "
                 "p99 <= 1.3x the minimal relay.")
    return "\n".join(lines)


if __name__ == "__main__":
    main()
