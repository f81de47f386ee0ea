"""Benchmark `rpcspy check` against a bare `msgspec.json.decode` of every line of the same file.

Generates a pi-like recording (pi 0.73 style: every `message_update` carries the whole
partial message twice, so lines grow through each reply; or pi 0.84 delta-only frames),
then times, on the same file:

* baseline: read the file, split on LF, `msgspec.json.decode` every line;
* check: what `rpcspy check` does per recording (open, stream frames, Checker.feed, finish);
* cli: `python -m rpcspy check FILE --format json` end to end, against a `python -c` process
  doing the bare decode (interpreter start included in both).

Usage: python bench/bench_check.py [--mb 40] [--dialect pi-0.73|pi-0.84] [--repeat 5] [--write-docs]
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

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import msgspec

from rpcspy.events import Frame
from rpcspy.recording.format import encode_entry, encode_frame
from rpcspy.recording.writer import make_header

USAGE = {"input": 12, "output": 7, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 19,
         "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}}
WORDS = "lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor \u2028".split(" ")


def _dump(obj: dict) -> bytes:
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":")).encode()


def _assistant(text: str, stop: str) -> dict:
    return {"role": "assistant", "content": [{"type": "text", "text": text}] if text else [],
            "api": "openai-completions", "provider": "fake", "model": "fake-model", "usage": USAGE,
            "stopReason": stop, "timestamp": 1795331184076, "responseId": "chatcmpl-1"}


def run_frames(run: int, deltas: int, delta_len: int, v084: bool) -> list[tuple[str, bytes]]:
    """One prompt and its streamed reply, as (direction, frame bytes)."""
    pid = f"p{run}"
    user = {"role": "user", "content": [{"type": "text", "text": f"question {run}"}], "timestamp": 1795331184000}
    out = [("c2a", _dump({"id": pid, "type": "prompt", "message": f"question {run}"})),
           ("a2c", _dump({"id": pid, "type": "response", "command": "prompt", "success": True})),
           ("a2c", _dump({"type": "agent_start"})), ("a2c", _dump({"type": "turn_start"})),
           ("a2c", _dump({"type": "message_start", "message": user})),
           ("a2c", _dump({"type": "message_end", "message": user})),
           ("a2c", _dump({"type": "message_start", "message": _assistant("", "pending" if v084 else "stop")}))]
    text = ""

    def update(event: dict) -> bytes:
        if v084:
            return _dump({"type": "message_update", "usage": USAGE, "assistantMessageEvent": event})
        partial = _assistant(text, "stop")
        return _dump({"type": "message_update", "assistantMessageEvent": {**event, "partial": partial},
                      "message": partial})

    out.append(("a2c", update({"type": "text_start", "contentIndex": 0})))
    for i in range(deltas):
        delta = " ".join(WORDS[(i + k) % len(WORDS)] for k in range(delta_len // 6 + 1))[:delta_len]
        text += delta
        out.append(("a2c", update({"type": "text_delta", "contentIndex": 0, "delta": delta})))
    out.append(("a2c", update({"type": "text_end", "contentIndex": 0, "content": text})))
    final = _assistant(text, "stop")
    out += [("a2c", _dump({"type": "message_end", "message": final})),
            ("a2c", _dump({"type": "turn_end", "message": final, "toolResults": []})),
            ("a2c", _dump({"type": "agent_end", "messages": [user, final], **({"willRetry": False} if v084 else {})}))]
    if v084:
        out.append(("a2c", _dump({"type": "agent_settled"})))
    return out


def generate(path: str, size: int, v084: bool, deltas: int = 300, delta_len: int = 24) -> int:
    """Write a recording of at least ``size`` bytes; return its size."""
    seq = 0
    t = 0.0
    with open(path, "wb") as f:
        f.write(encode_entry(make_header(["pi", "--mode", "rpc"], mode="proxy")))
        run = 0
        while f.tell() < size:
            for direction, data in run_frames(run, deltas, delta_len, v084):
                seq += 1
                t += 0.001
                f.write(encode_frame(Frame(seq, t, direction, data)))  # type: ignore[arg-type]
            run += 1
        return f.tell()


def bare_decode(path: str) -> int:
    decode = msgspec.json.decode
    n = 0
    with open(path, "rb") as f:
        for line in f:  # binary iteration splits on LF only
            decode(line)
            n += 1
    return n


def check_inprocess(path: str) -> int:
    from rpcspy.checker import Checker
    from rpcspy.recording import open_recording

    checker = Checker()
    n = 0
    last = 0.0
    for frame in open_recording(path).frames():
        n += len(checker.feed(frame))
        last = frame.t
    return n + len(checker.finish(last))


def read_only(path: str) -> int:
    from rpcspy.recording import open_recording

    return sum(0 for _ in open_recording(path).frames())


def check_cli(path: str) -> int:
    proc = subprocess.run([sys.executable, "-m", "rpcspy", "check", "--format", "json", path],
                          cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, check=False)
    return proc.stdout.count(b"\n")


BARE_SCRIPT = ("import msgspec, sys\nd = msgspec.json.decode\n"
               "with open(sys.argv[1], 'rb') as f:\n    for line in f:\n        d(line)\n")


def bare_decode_process(path: str) -> int:
    subprocess.run([sys.executable, "-c", BARE_SCRIPT, path], check=True)
    return 0


def measure(style: str, mb: float, repeat: int) -> str:
    """Generate a ``style`` recording of ``mb`` MiB, time the readers in interleaved rounds, return a table."""
    from rounds import spread

    fd, path = tempfile.mkstemp(suffix=".jsonl", prefix="bench_check_")
    os.close(fd)
    fns = {"A": bare_decode, "check": check_inprocess, "reader": read_only, "B": bare_decode_process, "cli": check_cli}
    times: dict[str, list[float]] = {k: [] for k in fns}
    found: dict[str, int] = {}
    try:
        size = generate(path, int(mb * 1024 * 1024), style == "pi-0.84")
        with open(path, "rb") as f:
            lines = sum(1 for _ in f)
        check_inprocess(path)  # warm up: schemas are built on first use
        for _ in range(repeat):
            for key, fn in fns.items():
                start = time.perf_counter()
                found[key] = fn(path)
                times[key].append(time.perf_counter() - start)
    finally:
        os.unlink(path)
    mib = size / (1024 * 1024)
    rows = [("msgspec.json.decode of every line, in process (baseline A)", "A", "A", False),
            ("rpcspy check, in process: read + check (vs A)", "check", "A", True),
            ("of which: the recording reader alone (vs A)", "reader", "A", False),
            ("`python -c` decoding every line, whole process (baseline B)", "B", "B", False),
            ("`python -m rpcspy check --format json`, whole process (vs B)", "cli", "B", True)]
    shape = "delta-only" if style == "pi-0.84" else "the whole partial message twice in every"
    table = [f"**{style}**: {mib:.1f} MiB, {lines:,} lines ({shape} `message_update`), clean traffic; "
             f"{repeat} interleaved rounds, median (min-max).", "",
             "| what | s | MiB/s | vs baseline | findings |", "|---|---:|---:|---:|---:|"]
    for name, key, ref, show in rows:
        ratio = [b / t for b, t in zip(times[ref], times[key])]
        table.append(f"| {name} | {spread(times[key])} | {spread([mib / t for t in times[key]], '{:.0f}')} | "
                     f"{spread(ratio)}x | {found[key] if show else ''} |")
    return "\n".join(table)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--mb", type=float, default=40.0, help="recording size in MiB (default 40)")
    ap.add_argument("--dialect", choices=["pi-0.73", "pi-0.84", "both"], default="both")
    ap.add_argument("--repeat", type=int, default=5, help="interleaved rounds (default 5)")
    ap.add_argument("--write-docs", action="store_true", help="write the tables into docs/performance.md")
    args = ap.parse_args()
    styles = ["pi-0.73", "pi-0.84"] if args.dialect == "both" else [args.dialect]
    tables = [measure(style, args.mb, args.repeat) for style in styles]
    body = "\n\n".join(tables) + NOTE
    print(body)
    if args.write_docs:
        sys.path.insert(0, str(ROOT / "bench"))
        from perfdoc import write_section

        write_section("check", body)


NOTE = """

Target: `rpcspy check` at >= 0.6x the baseline's throughput on small frames. Each rpcspy row is compared with
the baseline doing the same kind of run: in process (the work `rpcspy check` does per
recording: streaming reader, then the checker), or as a whole process (interpreter start,
imports and output included, as a user runs it). The reader decodes a block of whole lines
per msgspec call; the checker decodes each `message_update` once, straight into the dialect's
msgspec Structs, and checks clean deltas on the Struct alone; stream integrity keeps the deltas
of each block as a list joined once at `*_end`, so cost stays linear in the reply size.
`python bench/bench_check.py --write-docs` refreshes this section."""


if __name__ == "__main__":
    main()
