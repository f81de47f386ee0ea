"""The live OpenTelemetry export's cost on the proxy: throughput and round trip, with and without ``--otel``.

The agent is ``cat`` of a stream made of a real pi 1.5.2 session's agent output (recordings/
pi-1.5.2-basic.jsonl: runs, model turns, a tool call, and the message updates that are most of
its bytes) repeated to ``--size``, so the exporter maps and sends thousands of spans. Variants,
interleaved per round (A B C A B C ...): rpcspy as it is; rpcspy ``--otel`` sending to a real
OTLP receiver (oteltap, loopback); rpcspy ``--otel`` with the collector down (nothing listens).
Throughput is the client's, first byte to last (every byte checked); round trips are small
commands answered by bench/responder.py, one at a time. Ratios are taken inside each round.

    python bench/bench_otel.py                      # 50 MB, 5 rounds, 1000 round trips
    python bench/bench_otel.py --size 10e6 --rounds 1 --pings 200   # quick look
    python bench/bench_otel.py --write-docs         # also update docs/performance.md
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))
from bench_proxy import pct, ping_pong, stream_once  # noqa: E402
from perfdoc import write_section  # noqa: E402
from rounds import run_cpu  # noqa: E402

from tests.otel.receiver import Receiver, free_port  # noqa: E402

PY = sys.executable
SAMPLE = HERE.parent / "recordings" / "pi-1.5.2-basic.jsonl"


def make_stream(path: str, size: int, stretch: int) -> int:
    """The sample's agent frames (each message update ``stretch`` times), repeated to ``size`` bytes;
    returns the number of repetitions."""
    frames = []
    for line in SAMPLE.read_bytes().split(b"\n"):
        if b'"dir":"a2c"' in line[:60] and b'"json":' in line:
            entry = json.loads(line)
            frame = json.dumps(entry["json"], separators=(",", ":")).encode() + b"\n"
            frames += [frame] * (stretch if frame.startswith(b'{"type":"message_update"') else 1)
    chunk = b"".join(frames)
    reps = max(1, size // len(chunk))
    with open(path, "wb") as f:
        for _ in range(reps):
            f.write(chunk)
    return reps


def otel_note(rec: str) -> str:
    """The recording's note of what the exporter sent."""
    notes = [json.loads(line)["text"] for line in open(rec, "rb") if b'"text":"otel: ' in line]
    return notes[-1] if notes else "(no note)"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--size", type=float, default=50e6)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--pings", type=int, default=1000)
    ap.add_argument("--stretch", type=int, default=1,
                    help="each message update this many times (1: the fake model's 3-chunk replies, a span every "
                         "5 KB, the worst case; 100: replies of a few hundred deltas, as real models stream)")
    ap.add_argument("--no-check", action="store_true",
                    help="no live check in any variant (a stretched stream repeats deltas, which the checker flags)")
    ap.add_argument("--write-docs", action="store_true")
    args = ap.parse_args()
    receiver = Receiver()
    down = f"http://127.0.0.1:{free_port()}"
    load_before = open("/proc/loadavg").read().split()[:3]
    with tempfile.TemporaryDirectory(prefix="rpcspy-bench-otel-") as tmp:
        stream = os.path.join(tmp, "stream.jsonl")
        reps = make_stream(stream, int(args.size), args.stretch)
        size = os.path.getsize(stream)
        rec = {name: os.path.join(tmp, f"{name}.rec") for name in ("plain", "otel", "down")}
        check = ["--no-check"] if args.no_check else []
        prefixes = {
            "plain": [PY, "-m", "rpcspy", "--overwrite", "-o", rec["plain"], *check, "--"],
            "otel": [PY, "-m", "rpcspy", "--overwrite", "-o", rec["otel"], *check, "--otel", "--"],
            "down": [PY, "-m", "rpcspy", "--overwrite", "-o", rec["down"], *check, "--otel", "--"],
        }
        envs = {"plain": {}, "otel": {"OTEL_EXPORTER_OTLP_ENDPOINT": receiver.url},
                "down": {"OTEL_EXPORTER_OTLP_ENDPOINT": down, "OTEL_EXPORTER_OTLP_TIMEOUT": "1000"}}
        mbps: dict[str, list[float]] = {k: [] for k in prefixes}
        exits: dict[str, list[float]] = {k: [] for k in prefixes}
        p50: dict[str, list[float]] = {k: [] for k in prefixes}
        p99: dict[str, list[float]] = {k: [] for k in prefixes}
        cpu: dict[str, list[float]] = {k: [] for k in prefixes}
        idle: dict[str, list[float]] = {k: [] for k in prefixes}
        empty = os.path.join(tmp, "empty.jsonl")
        open(empty, "wb").close()
        notes: dict[str, str] = {}
        received: list[int] = []
        for r in range(args.rounds):
            for name, prefix in prefixes.items():
                saved = dict(os.environ)
                os.environ.update(envs[name])
                try:
                    receiver.clear()
                    _, elapsed, _, streaming = stream_once(prefix, stream)
                    if name == "otel":
                        received.append(len(receiver.settle(1.0)))
                    notes[name] = otel_note(rec[name]) if name != "plain" else ""
                    rtts = ping_pong(prefix, args.pings)
                    env = {**os.environ}
                    cpu[name].append(run_cpu([*prefix, "cat", stream], env=env)[1])
                    idle[name].append(run_cpu([*prefix, "cat", empty], env=env)[1])
                finally:
                    os.environ.clear()
                    os.environ.update(saved)
                mbps[name].append(size / 1e6 / streaming)
                exits[name].append(elapsed)
                p50[name].append(pct(rtts, 0.5) * 1e6)
                p99[name].append(pct(rtts, 0.99) * 1e6)
            print(f"round {r + 1}: " + ", ".join(f"{k} {mbps[k][-1]:.0f} MB/s p50 {p50[k][-1]:.0f} us"
                                               for k in prefixes), file=sys.stderr)
    receiver.close()
    load_after = open("/proc/loadavg").read().split()[:3]

    def med(xs: list[float]) -> str:
        return f"{statistics.median(xs):.0f} ({min(xs):.0f}-{max(xs):.0f})"

    def ratio(a: list[float], b: list[float]) -> str:
        rs = [x / y for x, y in zip(a, b, strict=True)]
        return f"{statistics.median(rs):.2f}x ({min(rs):.2f}-{max(rs):.2f})"

    def cpu_row(k: str) -> str:
        return f"{statistics.median(cpu[k]):.2f} ({min(cpu[k]):.2f}-{max(cpu[k]):.2f})"

    rows = [
        ("CPU of the whole proxy (all its processes), rpcspy / --otel / down (s)",
         " / ".join(cpu_row(k) for k in prefixes),
         f"--otel {ratio(cpu['otel'], cpu['plain'])}, down {ratio(cpu['down'], cpu['plain'])}; "
         f"an empty session: {statistics.median(idle['plain']):.2f} / {statistics.median(idle['otel']):.2f} / "
         f"{statistics.median(idle['down']):.2f} s (the sender process's start)"),
        ("throughput, rpcspy (recording" + (")" if args.no_check else " + live check)"), f"{med(mbps['plain'])} MB/s",
         "baseline"),
        ("throughput, rpcspy --otel (oteltap on loopback)", f"{med(mbps['otel'])} MB/s",
         ratio(mbps["otel"], mbps["plain"]) + " of rpcspy"),
        ("throughput, rpcspy --otel, collector down", f"{med(mbps['down'])} MB/s",
         ratio(mbps["down"], mbps["plain"]) + " of rpcspy"),
        ("start to exit, rpcspy / --otel / down (s)",
         " / ".join(f"{statistics.median(exits[k]):.2f}" for k in prefixes), "the exit waits for the last spans, "
         "at most 5 s"),
        ("round trip p50, rpcspy / --otel / down (us)", " / ".join(med(p50[k]) for k in prefixes),
         f"--otel {ratio(p50['otel'], p50['plain'])}, down {ratio(p50['down'], p50['plain'])}"),
        ("round trip p99, rpcspy / --otel / down (us)", " / ".join(med(p99[k]) for k in prefixes),
         f"--otel {ratio(p99['otel'], p99['plain'])}, down {ratio(p99['down'], p99['plain'])}"),
        ("spans received per --otel run", f"{statistics.median(received):.0f}", notes["otel"]),
        ("collector down: the recording's note", "", notes["down"]),
    ]
    table = "| measure | value | compared |\n|---|---|---|\n" + "\n".join(f"| {a} | {b} | {c} |" for a, b, c in rows)
    shape = ("the fake model's short replies as recorded: a span every 5 KB, the worst case" if args.stretch == 1
             else f"each message update {args.stretch} times, as a model streaming longer replies")
    body = (f"Stream: {size / 1e6:.0f} MB, pi 1.5.2's agent output of recordings/pi-1.5.2-basic.jsonl ({shape}) "
            f"repeated {reps} times (3 runs, 4 model calls and a tool call each: {reps * 8 + 1} spans a session). "
            f"{args.rounds} interleaved rounds, median (min-max); {args.pings} round trips per variant and round. "
            f"Command: `python bench/bench_otel.py --size {args.size:g} --rounds {args.rounds} --pings {args.pings} "
            f"--stretch {args.stretch}{' --no-check' if args.no_check else ''}`. "
            f"The machine is shared with other sessions: load average {' '.join(load_before)} before, "
            f"{' '.join(load_after)} after; compare the ratios, taken inside each round, not the absolute figures. "
            "The CPU row (every process of the proxy, from wait4) is the steadiest: the empty session's figure is "
            "the sender process's start, paid once a session; the rest is the mapping and the sending."
            f"\n\n{table}\n")
    print(body)
    if args.write_docs:
        write_section("OpenTelemetry export" + (" (worst case)" if args.stretch == 1 else ""), body)


if __name__ == "__main__":
    main()
