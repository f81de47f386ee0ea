"""A client slower than the observers still gets every byte (what it reads is a copy, never a page of a file
that rpcspy later releases)."""

from __future__ import annotations

import hashlib
import random
import time
from pathlib import Path

import pytest

from tests.pump.proxyrun import fake, spawn

MODES = {
    "default": (True, ()),
    "no-record-no-check-no-control": (False, ("--no-check", "--no-control")),
}


def _slow_read(proc, size: int, step: int, pause: float) -> bytes:  # type: ignore[no-untyped-def]
    got = bytearray()
    while chunk := proc.stdout.read1(step):
        got += chunk
        if len(got) < size:
            time.sleep(pause)
    return bytes(got)


@pytest.mark.parametrize("mode", sorted(MODES))
def test_slow_client_gets_every_byte_past_the_release_step(tmp_path: Path, mode: str) -> None:
    record, opts = MODES[mode]
    data = random.Random(1).randbytes(20 << 20)  # bulk output, more than two release steps of 8 MiB
    src = tmp_path / "out.bin"
    src.write_bytes(data)
    proc = spawn(tmp_path / "r.jsonl" if record else None, fake("file", str(src)), *opts)
    proc.stdin.close()  # type: ignore[union-attr]
    got = _slow_read(proc, len(data), 256 << 10, 0.004)
    assert proc.wait(60) == 0, proc.stderr.read()  # type: ignore[union-attr]
    assert len(got) == len(data)
    first_bad = next((i for i, (a, b) in enumerate(zip(got, data, strict=True)) if a != b), None)
    assert first_bad is None, f"first altered byte at {first_bad}"
    assert hashlib.sha256(got).digest() == hashlib.sha256(data).digest()
