"""Seeded byte streams and clients for the proxy's property tests (and bench/soak_bytes.py)."""

from __future__ import annotations

import random
import subprocess
import sys
import time
from pathlib import Path

PIECES = [b'{"type":"message_update","delta":"', "\u2028".encode(), "\u2029".encode(), b"\xff\xfe", b"\xe2\x80",
          b"\x00", b"\r", b'"}', b"\\n", b"x" * 37]
MODES = {
    "default": (True, ()),
    "no-check": (True, ("--no-check",)),
    "no-record": (False, ()),
    "no-record-no-check": (False, ("--no-check",)),
    "no-control": (True, ("--no-control",)),
}
"""Proxy modes: (records?, options)."""
ROOT = Path(__file__).resolve().parents[2]


def line_size(rng: random.Random, biggest: int) -> int:
    """Mostly protocol-sized lines (40 B .. 4 KB), some bulk (64 KB .. 1 MB), rarely huge (up to ``biggest``)."""
    roll = rng.random()
    if roll < 0.90:
        return rng.randint(40, 4096)
    if roll < 0.99:
        return rng.randint(1 << 16, 1 << 20)
    return rng.randint(1 << 20, biggest)


def mixed_stream(seed: int, total: int, biggest: int = 10 << 20) -> bytes:
    """About ``total`` bytes of LF-separated lines of mixed sizes with U+2028/9, invalid UTF-8, NUL and CR,
    ending without a final newline."""
    rng = random.Random(seed)
    out = bytearray()
    while len(out) < total:
        size = min(line_size(rng, biggest), max(40, total - len(out)))
        line = bytearray()
        while len(line) < size:
            line += rng.choice(PIECES)
        out += line[:size] + b"\n"
    out += b'{"type":"last","no":"newline"}'
    return bytes(out)


def read_like_a_client(stdout, seed: int, max_pause: float = 0.002) -> bytes:  # type: ignore[no-untyped-def]
    """Read everything in random sizes (1 B .. 2 MiB) with random pauses, as a slow, uneven client."""
    rng = random.Random(seed)
    got = bytearray()
    while chunk := stdout.read1(rng.choice((1, 17, 4096, 65536, 1 << 20, 2 << 20))):
        got += chunk
        if rng.random() < 0.3:
            time.sleep(rng.random() * max_pause)
    return bytes(got)


def proxy(rec: Path | None, opts: tuple[str, ...], agent: list[str], cwd: Path) -> subprocess.Popen[bytes]:
    out = ["-o", str(rec)] if rec else ["--no-record"]
    return subprocess.Popen([sys.executable, "-m", "rpcspy", *out, *opts, "--", *agent], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=cwd)


def raw_from_recording(rec: Path, direction: str) -> bytes:
    """The direction's bytes as `rpcspy show --raw` rebuilds them."""
    done = subprocess.run([sys.executable, "-m", "rpcspy", "show", "--raw", "--dir", direction, str(rec)],
                          capture_output=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return done.stdout
