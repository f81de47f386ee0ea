"""The long version of tests/pump/test_property_bytes.py: many seeds, bigger streams, every proxy mode.

    python bench/soak_bytes.py [--seeds 20] [--mb 64] [--biggest-mb 10]

For each seed and mode: seeded agent output of mixed line sizes (40 B to --biggest-mb,
U+2028, invalid UTF-8, no final newline), read by a client that takes random sizes
with random pauses; sha256 of what it got against what the agent wrote, and of the
recording rebuilt with `rpcspy show --raw`. Prints one line per run and a total;
exit 1 on any difference.
"""

from __future__ import annotations

import argparse
import hashlib
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.pump.proxyrun import fake  # noqa: E402
from tests.pump.streams import MODES, mixed_stream, proxy, raw_from_recording, read_like_a_client  # noqa: E402


def one(seed: int, mode: str, size: int, biggest: int, work: Path) -> tuple[bool, str]:
    records, opts = MODES[mode]
    rng = random.Random(seed)
    data = mixed_stream(seed, size, biggest)
    src = work / "agent.out"
    src.write_bytes(data)
    rec = work / f"{mode}-{seed}.jsonl" if records else None
    proc = proxy(rec, opts, fake("file", str(src), str(rng.choice((4096, 65536, 1 << 20)))), work)
    proc.stdin.close()  # type: ignore[union-attr]
    got = read_like_a_client(proc.stdout, seed)
    code = proc.wait(600)
    want = hashlib.sha256(data).hexdigest()
    ok = code == 0 and hashlib.sha256(got).hexdigest() == want
    what = f"client {'ok' if ok else 'DIFFERENT'} ({len(got)}/{len(data)} bytes, exit {code})"
    if rec is not None:
        same = hashlib.sha256(raw_from_recording(rec, "a2c")).hexdigest() == want
        ok = ok and same
        what += f", recording {'ok' if same else 'DIFFERENT'}"
        rec.unlink()
    return ok, what


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seeds", type=int, default=20)
    ap.add_argument("--mb", type=int, default=64, help="agent output per run, MB")
    ap.add_argument("--biggest-mb", type=int, default=10, help="largest line, MB")
    ap.add_argument("--first-seed", type=int, default=1)
    args = ap.parse_args()
    failures = runs = 0
    t0 = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="rpcspy-soak-bytes-") as tmp:
        for seed in range(args.first_seed, args.first_seed + args.seeds):
            for mode in sorted(MODES):
                ok, what = one(seed, mode, args.mb << 20, args.biggest_mb << 20, Path(tmp))
                runs += 1
                failures += not ok
                print(f"seed {seed:4d} {mode:20s} {what}", flush=True)
    print(f"{runs} runs, {failures} with a difference, {time.monotonic() - t0:.0f}s")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
