"""Property: whatever the agent writes and however the client reads, every mode passes it byte for byte,
and the recording rebuilds it exactly (sha256 compared).

Bounded for CI (a few seconds per mode); bench/soak_bytes.py runs the long version.
"""

from __future__ import annotations

import hashlib
import random
from pathlib import Path

import pytest

from tests.pump.proxyrun import fake
from tests.pump.streams import MODES, mixed_stream, proxy, raw_from_recording, read_like_a_client

SEEDS = {mode: 1000 + i for i, mode in enumerate(sorted(MODES))}


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@pytest.mark.parametrize("mode", sorted(MODES))
def test_every_mode_passes_and_records_every_byte(tmp_path: Path, mode: str) -> None:
    seed = SEEDS[mode]
    records, opts = MODES[mode]
    rng = random.Random(seed)
    data = mixed_stream(seed, total=12 << 20, biggest=4 << 20)
    src = tmp_path / "agent.out"
    src.write_bytes(data)
    c2a = mixed_stream(seed + 1, total=20_000)
    rec = tmp_path / "r.jsonl" if records else None
    proc = proxy(rec, opts, fake("file", str(src), str(rng.choice((4096, 65536, 1 << 20)))), tmp_path)
    assert proc.stdin is not None
    proc.stdin.write(c2a)
    proc.stdin.close()
    got = read_like_a_client(proc.stdout, seed)
    assert proc.wait(120) == 0, proc.stderr.read()  # type: ignore[union-attr]
    assert _sha(got) == _sha(data), f"seed {seed}: {len(got)} bytes received, {len(data)} sent"
    if rec is not None:
        assert _sha(raw_from_recording(rec, "a2c")) == _sha(data)
        assert _sha(raw_from_recording(rec, "c2a")) == _sha(c2a)
    else:
        assert not list(tmp_path.glob("*.jsonl")) and not (tmp_path / "recordings").exists()
