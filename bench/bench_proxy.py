"""Proxy benchmarks: throughput, round-trip latency, peak memory, start-up time.

Every figure is measured in the same run against baselines: the direct pipe (no
proxy) and bench/minimal_relay.py (two threads of os.read/os.write that also write
the raw chunks to a file). Runs are interleaved (A B C A B C ...) so drift on a
noisy machine hits all variants alike; medians and ranges are reported, ratios taken
inside each round. The client side checks that it received byte-identical output and
the benchmark fails otherwise. The minimal relay sets 1 MiB pipes to the agent, as
rpcspy does.

    python bench/bench_proxy.py                 # ~300 MB stream, 5 rounds
    python bench/bench_proxy.py --small --size 200e6   # ~2 M small frames
    python bench/bench_proxy.py --size 50e6 --rounds 1   # quick look
    python bench/bench_proxy.py --write-docs    # also update docs/performance.md
"""

from __future__ import annotations

import argparse
import mmap
import os
import statistics
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


def variants(tmp: str, baseline: str | None = None) -> dict[str, list[str]]:
    out = {
        "direct": [],
        "minimal relay": [PY, str(HERE / "minimal_relay.py"), os.path.join(tmp, "minimal.rec")],
        "rpcspy": [PY, "-m", "rpcspy", "--overwrite", "-o", os.path.join(tmp, "rpcspy.rec"), "--"],
    }
    if baseline:  # -P: not the current directory's rpcspy, the one on PYTHONPATH
        out["baseline"] = ["env", f"PYTHONPATH={baseline}", PY, "-P", "-m", "rpcspy", "-o",
                           os.path.join(tmp, "baseline.rec"), "--"]
    return out


def _tree_hwm(pid: int) -> dict[int, int]:
    """Peak RSS (VmHWM, KiB) of ``pid`` and all its descendants (observer, drain...) but the agent `cat`."""
    out: dict[int, int] = {}
    todo = [pid]
    while todo:
        p = todo.pop()
        try:
            if open(f"/proc/{p}/comm").read().strip() == "cat":
                continue  # the agent, not the proxy
            for task in os.listdir(f"/proc/{p}/task"):
                todo += [int(c) for c in open(f"/proc/{p}/task/{task}/children").read().split()]
            for line in open(f"/proc/{p}/status"):
                if line.startswith("VmHWM:"):
                    out[p] = int(line.split()[1])
        except OSError:
            pass
    return out


def stream_once(prefix: list[str], path: str) -> tuple[float, float, int, float]:
    """Pump the file through ``prefix`` (or directly).

    Returns (seconds until the client had every byte, seconds until the proxy exited,
    peak RSS KiB of the proxy's own processes: the sum of the peaks of the proxy and every
    descendant (observer, drain), the agent `cat` excluded; polled from /proc while it runs,
    seconds from the first byte the client got to the last: streaming time, start-up excluded).
    """
    start = time.perf_counter()
    proc = subprocess.Popen([*prefix, "cat", path], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE)
    source = open(path, "rb")
    expected = mmap.mmap(source.fileno(), 0, access=mmap.ACCESS_READ)
    pos = 0
    same = True
    assert proc.stdout is not None
    fd = proc.stdout.fileno()
    peaks: dict[int, int] = {}
    polled = 0.0
    first = None
    while chunk := os.read(fd, 1 << 20):
        if first is None:
            first = time.perf_counter()
        # compare with the source as it arrives (memcmp): cheaper than hashing, so the client
        # leaves the CPU to what is measured
        same = same and expected[pos:pos + len(chunk)] == chunk
        pos += len(chunk)
        now = time.perf_counter()
        if prefix and now - polled > 0.02:
            polled = now
            peaks.update({p: max(v, peaks.get(p, 0)) for p, v in _tree_hwm(proc.pid).items()})
    end = time.perf_counter()
    client_done = end - start
    streaming = end - (first or end)
    while prefix and proc.poll() is None:
        peaks.update({p: max(v, peaks.get(p, 0)) for p, v in _tree_hwm(proc.pid).items()})
        time.sleep(0.01)
    proc.wait()
    elapsed = time.perf_counter() - start
    expected.close()
    source.close()
    if proc.returncode != 0 or not same or pos != os.path.getsize(path):
        raise SystemExit(f"FAIL: {prefix or 'direct'} did not deliver the stream byte for byte")
    return client_done, elapsed, sum(peaks.values()), streaming


def ping_pong(prefix: list[str], n: int) -> list[float]:
    """Round-trip times (s) of ``n`` small commands, one at a time."""
    proc = subprocess.Popen([*prefix, PY, str(HERE / "responder.py")], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert proc.stdin is not None and proc.stdout is not None
    rtts = []
    cmd = b'{"id":"x","type":"get_state"}\n'
    for _ in range(n):
        t = time.perf_counter()
        proc.stdin.write(cmd)
        proc.stdin.flush()
        if not proc.stdout.readline().startswith(b'{"id":"x","type":"response"'):
            raise SystemExit(f"FAIL: {prefix or 'direct'} garbled a response")
        rtts.append(time.perf_counter() - t)
    proc.stdin.close()
    proc.wait()
    return rtts


def recorded_frames(path: str) -> int:
    """Frame entries in a recording (what the observers kept of the stream)."""
    with open(path, "rb") as f:
        return sum(line.startswith(b'{"kind":"frame"') or b'"kind":"frame"' in line[:40] for line in f)


def pct(values: list[float], p: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(p * len(values)))]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--size", type=float, default=300e6, help="stream size in bytes (default 300e6)")
    ap.add_argument("--small", action="store_true",
                    help="delta-only frames of ~280 bytes (pi >= 0.84) instead of growing pi 0.73 lines")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--pings", type=int, default=5000, help="round trips per variant and round")
    ap.add_argument("--no-long", action="store_true", help="skip the 3x-longer stream memory check")
    ap.add_argument("--baseline-tree", metavar="DIR",
                    help="also stream through the rpcspy in DIR (`git archive OLD rpcspy | tar -x -C DIR`)")
    ap.add_argument("--busy", type=int, default=0, metavar="N",
                    help="run N busy processes (a Python loop each) beside every run: CPU contention")
    ap.add_argument("--write-docs", action="store_true")
    ap.add_argument("--section", help="the section of docs/performance.md to write (default: by the stream's kind)")
    args = ap.parse_args()
    busy = [subprocess.Popen([PY, "-c", "while True: pass"]) for _ in range(args.busy)]
    try:
        measure(args)
    finally:
        for proc in busy:
            proc.kill()
            proc.wait()


def measure(args: argparse.Namespace) -> None:
    rows: list[tuple[str, str, str]] = []
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "stream.jsonl")
        size = generate(path, int(args.size), small=args.small)
        with open(path, "rb") as f:
            frames = sum(chunk.count(b"\n") for chunk in iter(lambda: f.read(1 << 20), b""))
        var = variants(tmp, args.baseline_tree)
        got: dict[str, list[tuple[float, float, int, float]]] = {k: [] for k in var}
        recorded: list[float] = []  # share of the stream's frames in rpcspy's recording, per round
        for r in range(args.rounds):
            for name, prefix in var.items():
                Path(tmp, "baseline.rec").unlink(missing_ok=True)  # an older tree may not know --overwrite
                sec, done, peak, streaming = stream_once(prefix, path)
                got[name].append((sec, done, peak, streaming))
                if name == "rpcspy":
                    recorded.append(recorded_frames(os.path.join(tmp, "rpcspy.rec")) / frames)
                print(f"round {r + 1}: {name:14s} {size / streaming / 1e6:8.1f} MB/s to the client, exit "
                      f"{done - sec:5.2f}s after its EOF, peak RSS {peak / 1024:6.1f} MiB", file=sys.stderr)
        mbps = {k: [size / g[3] / 1e6 for g in v] for k, v in got.items()}
        lag = {k: [g[1] - g[0] for g in v] for k, v in got.items()}
        rss = {k: [g[2] / 1024 for g in v] for k, v in got.items()}
        rows.append(("throughput, direct pipe", f"{spread(mbps['direct'], '{:.0f}')} MB/s", "baseline"))
        rows.append(("throughput, minimal recording relay (1 MiB pipes)",
                     f"{spread(mbps['minimal relay'], '{:.0f}')} MB/s",
                     f"{spread(ratios(mbps['minimal relay'], mbps['direct']))}x direct"))
        rows.append(("throughput, rpcspy (recording + live check)", f"{spread(mbps['rpcspy'], '{:.0f}')} MB/s",
                     f"{spread(ratios(mbps['rpcspy'], mbps['direct']))}x direct, "
                     f"{spread(ratios(mbps['rpcspy'], mbps['minimal relay']))}x minimal relay (target >= "
                     f"{'0.35' if args.small else '0.7'})"))
        if "baseline" in var:
            rows.append(("throughput, baseline rpcspy", f"{spread(mbps['baseline'], '{:.0f}')} MB/s",
                         f"{spread(ratios(mbps['baseline'], mbps['minimal relay']))}x minimal relay"))
        rows.append(("frames in rpcspy's recording (the rest are recorded gaps)", f"{spread(recorded, '{:.3f}')}",
                     "1.000 is complete; the agent waits for observers that progress (--gap-after)"))
        rows.append(("exit after the client's EOF, rpcspy", f"{spread(lag['rpcspy'])} s",
                     f"minimal relay {spread(lag['minimal relay'])} s (target < 2 s, the recording complete)"))
        if "baseline" in var:
            rows.append(("exit after the client's EOF, baseline rpcspy", f"{spread(lag['baseline'])} s",
                         f"this tree / baseline: {spread(ratios(lag['rpcspy'], lag['baseline']))}x"))
        whole = {k: [g[3] + g[1] - g[0] for g in v] for k, v in got.items()}  # streaming, then the exit
        rows.append(("first byte to the client until rpcspy's exit (streaming + exit)", f"{spread(whole['rpcspy'])} s",
                     f"minimal relay {spread(whole['minimal relay'])} s"
                     + (f"; baseline {spread(whole['baseline'])} s, this tree / baseline: "
                        f"{spread(ratios(whole['rpcspy'], whole['baseline']))}x" if "baseline" in var else "")))
        rows.append(("peak RSS, sum of rpcspy's processes (proxy, observer; and drain before issue 20), 1x stream", f"{spread(rss['rpcspy'], '{:.1f}')} MiB",
                     f"minimal relay {spread(rss['minimal relay'], '{:.1f}')} MiB"))
        if not args.no_long:
            long_path = os.path.join(tmp, "long.jsonl")
            os.unlink(os.path.join(tmp, "rpcspy.rec"))
            generate(long_path, int(args.size * 3), small=args.small)
            _, _, long_peak, _ = stream_once(var["rpcspy"], long_path)
            med = statistics.median(rss["rpcspy"])
            rows.append(("peak RSS, sum of rpcspy's processes, 3x stream (one run)",
                         f"{long_peak / 1024:.1f} MiB", f"{long_peak / 1024 / med:.2f}x the 1x median"))
        lat: dict[str, dict[float, list[float]]] = {k: {0.5: [], 0.99: []} for k in var}
        for _ in range(args.rounds):
            for name, prefix in var.items():
                if name == "baseline":
                    continue
                rtts = ping_pong(prefix, args.pings)
                for p in (0.5, 0.99):
                    lat[name][p].append(pct(rtts, p) * 1e6)
        for p, target in ((0.5, 1.1), (0.99, 1.3)):
            rows.append((f"round trip p{int(p * 100)}, direct / minimal relay / rpcspy (us)",
                         " / ".join(spread(lat[k][p], "{:.0f}") for k in ("direct", "minimal relay", "rpcspy")),
                         f"rpcspy {spread(ratios(lat['rpcspy'][p], lat['minimal relay'][p]))}x minimal relay "
                         f"(target <= {target})"))
    table = render(rows, size, frames, args)
    print(table)
    if args.write_docs:
        write_section(args.section or (("proxy, small frames" if args.small else "proxy")
                                       + (f", {args.busy} busy processes beside it" if args.busy else "")), table)


def render(rows: list[tuple[str, str, str]], size: int, frames: int, args: argparse.Namespace) -> str:
    shape = ("delta-only `message_update` frames of ~280 bytes" if args.small
             else "pi 0.73 `message_update` lines (whole partial message twice, raw U+2028)")
    lines = [f"Stream: {size / 1e6:.0f} MB, {frames:,} {shape}; {args.rounds} interleaved rounds, median "
             f"(min-max); {args.pings} round trips per variant and round, p50 and p99 taken per round. Command: "
             f"`python bench/bench_proxy.py{' --small' if args.small else ''} --size {args.size:g} "
             f"--rounds {args.rounds}{f' --pings {args.pings}' if args.pings != 5000 else ''}"
             f"{' --no-long' if args.no_long else ''}{f' --busy {args.busy}' if args.busy else ''}"
             f"{' --baseline-tree ' + args.baseline_tree if args.baseline_tree else ''}`. Throughput is bytes over the time from the first byte the client receives "
             "to the last; the client checks every byte.", "",
             "| measure | value | compared |", "|---|---|---|"]
    lines += [f"| {a} | {b} | {c} |" for a, b, c in rows]
    return "\n".join(lines)


if __name__ == "__main__":
    main()
