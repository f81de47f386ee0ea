"""Proxy benchmarks: throughput, round-trip latency, peak memory, start-up time.

Every figure is measured in the same run against baselines: the direct pipe (no
proxy) and bench/minimal_relay.py (two threads of os.read/os.write that also write
the raw chunks to a file). Runs are interleaved (A B C A B C ...) so drift on a
noisy machine hits all variants alike; medians are reported. The client side checks
that it received byte-identical output and the benchmark fails otherwise.

    python bench/bench_proxy.py                 # ~300 MB stream, 3 rounds
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
from stream_gen import generate  # noqa: E402

PY = sys.executable


def variants(tmp: str) -> dict[str, list[str]]:
    return {
        "direct": [],
        "minimal relay": [PY, str(HERE / "minimal_relay.py"), os.path.join(tmp, "minimal.rec")],
        "rpcspy": [PY, "-m", "rpcspy", "-o", os.path.join(tmp, "rpcspy.rec"), "--"],
    }


def _tree_hwm(pid: int) -> dict[int, int]:
    """Peak RSS (VmHWM, KiB) of ``pid`` and its direct children, from /proc."""
    out: dict[int, int] = {}
    pids = [pid]
    try:
        for task in os.listdir(f"/proc/{pid}/task"):
            pids += [int(c) for c in open(f"/proc/{pid}/task/{task}/children").read().split()]
    except OSError:
        pass
    for p in pids:
        try:
            if open(f"/proc/{p}/comm").read().strip() == "cat":
                continue  # the agent, not the proxy
            for line in open(f"/proc/{p}/status"):
                if line.startswith("VmHWM:"):
                    out[p] = int(line.split()[1])
        except OSError:
            pass
    return out


def stream_once(prefix: list[str], path: str) -> tuple[float, float, int, float]:
    """Pump the file through ``prefix`` (or directly).

    Returns (seconds until the client had every byte, seconds until the proxy exited,
    peak RSS KiB of the proxy's own processes: the largest of the proxy and its
    observer process, the agent `cat` excluded; polled from /proc while it runs,
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
    return client_done, elapsed, max(peaks.values(), default=0), streaming


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


def pct(values: list[float], p: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(p * len(values)))]


def help_time(runs: int) -> tuple[float, float]:
    def med(cmd: list[str]) -> float:
        times = []
        for _ in range(runs):
            t = time.perf_counter()
            subprocess.run(cmd, stdout=subprocess.DEVNULL, check=True)
            times.append(time.perf_counter() - t)
        return statistics.median(times)

    return med([PY, "-m", "rpcspy", "--help"]), med([PY, "-c", "pass"])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--size", type=float, default=300e6, help="stream size in bytes (default 300e6)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--pings", type=int, default=5000)
    ap.add_argument("--no-long", action="store_true", help="skip the 3x-longer stream memory check")
    ap.add_argument("--write-docs", action="store_true")
    args = ap.parse_args()
    rows: list[tuple[str, str, str]] = []
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "stream.jsonl")
        size = generate(path, int(args.size))
        var = variants(tmp)
        times: dict[str, list[float]] = {k: [] for k in var}
        streams: dict[str, list[float]] = {k: [] for k in var}
        exits: dict[str, list[float]] = {k: [] for k in var}
        rss: dict[str, list[int]] = {k: [] for k in var}
        for r in range(args.rounds):
            for name, prefix in var.items():
                sec, done, peak, streaming = stream_once(prefix, path)
                times[name].append(sec)
                streams[name].append(streaming)
                exits[name].append(done)
                rss[name].append(peak)
                print(f"round {r + 1}: {name:14s} {size / sec / 1e6:8.1f} MB/s to the client, exit after "
                      f"{done:5.2f}s, peak RSS {peak / 1024:6.1f} MiB", file=sys.stderr)
        mbps = {k: size / statistics.median(v) / 1e6 for k, v in streams.items()}
        total = {k: statistics.median(v) for k, v in times.items()}
        rows.append(("throughput, direct pipe", f"{mbps['direct']:.0f} MB/s", "baseline"))
        rows.append(("throughput, minimal recording relay", f"{mbps['minimal relay']:.0f} MB/s",
                     f"{mbps['minimal relay'] / mbps['direct']:.2f}x direct"))
        rows.append(("throughput, rpcspy (recording + live check)", f"{mbps['rpcspy']:.0f} MB/s",
                     f"{mbps['rpcspy'] / mbps['direct']:.2f}x direct, "
                     f"{mbps['rpcspy'] / mbps['minimal relay']:.2f}x minimal relay (target >= 1, >= 0.5x direct)"))
        rows.append(("whole run to the client's EOF, start-up included", f"{total['rpcspy']:.2f} s",
                     f"minimal relay {total['minimal relay']:.2f} s, direct {total['direct']:.2f} s"))
        rows.append(("rpcspy exit after the stream, median", f"{statistics.median(exits['rpcspy']):.2f} s",
                     f"minimal relay {statistics.median(exits['minimal relay']):.2f} s (observers finishing "
                     "recording and checks)"))
        peak = max(rss["rpcspy"]) / 1024
        rows.append(("rpcspy peak RSS, 1x stream", f"{peak:.1f} MiB", "target < 64 MiB"))
        if not args.no_long:
            long_path = os.path.join(tmp, "long.jsonl")
            os.unlink(os.path.join(tmp, "rpcspy.rec"))
            generate(long_path, int(args.size * 3))
            _, _, long_peak, _ = stream_once(var["rpcspy"], long_path)
            rows.append(("rpcspy peak RSS, 3x stream", f"{long_peak / 1024:.1f} MiB",
                         f"{long_peak / 1024 / peak:.2f}x the 1x stream (target within 1.2x)"))
        lat: dict[str, list[float]] = {k: [] for k in var}
        per_round = max(1, args.pings // args.rounds)
        for _ in range(args.rounds):
            for name, prefix in var.items():
                lat[name] += ping_pong(prefix, per_round)
        for p in (0.5, 0.99):
            base = pct(lat["minimal relay"], p)
            rows.append((f"round trip p{int(p * 100)}, direct / minimal / rpcspy",
                         f"{pct(lat['direct'], p) * 1e6:.0f} / {base * 1e6:.0f} / {pct(lat['rpcspy'], p) * 1e6:.0f} us",
                         f"rpcspy {pct(lat['rpcspy'], p) / base:.2f}x minimal relay (target <= 1.5)"))
        help_s, python_s = help_time(7)
        rows.append(("`rpcspy --help`", f"{help_s * 1000:.0f} ms",
                     f"bare `python -c pass`: {python_s * 1000:.0f} ms (target < 150 ms)"))
    table = render(rows, size, args)
    print(table)
    if args.write_docs:
        write_section("proxy", table)


def render(rows: list[tuple[str, str, str]], size: int, args: argparse.Namespace) -> str:
    lines = [f"Stream: {size / 1e6:.0f} MB of pi-like `message_update` lines (raw U+2028), medians of "
             f"{args.rounds} interleaved rounds; {args.pings} round trips. Command: `python bench/bench_proxy.py`. "
             "Throughput is bytes over the time from the first byte the client receives to the last (start-up "
             "has its own rows); the client checks every byte.", "",
             "| measure | value | compared |", "|---|---|---|"]
    lines += [f"| {a} | {b} | {c} |" for a, b, c in rows]
    return "\n".join(lines)


if __name__ == "__main__":
    main()
