"""How `rpcspy browse` copes with big recordings: load time, a full search, peak memory.

For each size, a fresh process generates nothing: it opens a recording made by
bench_check's generator (pi 0.84 delta-only frames by default), reads it all
through RecordingIndex into the view model (what the browser's background task
does), then searches for a string that is nowhere (every frame read back from
the file), and reports its peak RSS. Rows keep seqs, not frames, so memory
grows with the number of rows and entries (8 bytes of offset each), not with
the bytes of the frames.

Usage: python bench/bench_browse.py [--mb 12.5,50,200] [--dialect pi-0.84|pi-0.73]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

from bench_check import generate  # noqa: E402

CHILD = """
import json, resource, sys, time
from rpcspy.browse.model import BrowseModel
from rpcspy.recording.entries import events
from rpcspy.recording.index import RecordingIndex
index = RecordingIndex(sys.argv[1])
model = BrowseModel(index.frame)
start = time.perf_counter()
while True:
    entries, more = index.poll()
    if not entries and not more:
        break
    model.feed(events(entries), end=not more)
load = time.perf_counter() - start
start = time.perf_counter()
model.search("a string that is in no frame")
search = time.perf_counter() - start
print(json.dumps({"rows": len(model.rows), "load": load, "search": search,
                  "rss": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--mb", default="12.5,50,200", help="recording sizes in MiB, comma-separated")
    ap.add_argument("--dialect", choices=["pi-0.73", "pi-0.84"], default="pi-0.84")
    args = ap.parse_args()
    print("| recording | rows | load s | full search s | peak RSS MiB |\n|---|---:|---:|---:|---:|")
    with tempfile.TemporaryDirectory(prefix="bench_browse_") as tmp:
        for mib in (float(x) for x in args.mb.split(",")):
            rec = os.path.join(tmp, f"{mib:g}.jsonl")
            size = generate(rec, int(mib * 1024 * 1024), args.dialect == "pi-0.84")
            out = subprocess.run([sys.executable, "-c", CHILD, rec], cwd=ROOT, check=True, capture_output=True,
                                 env={**os.environ, "PYTHONPATH": str(ROOT)}, text=True).stdout
            r = json.loads(out)
            print(f"| {args.dialect} {size / 2**20:.1f} MiB | {r['rows']:,} | {r['load']:.1f} | {r['search']:.1f} | "
                  f"{r['rss']:.0f} |", flush=True)
            os.unlink(rec)


if __name__ == "__main__":
    main()
