"""Clients as a careless or hostile user writes them, and what a test checks after each session.

Each client gets the proxy's stdout and returns what it read; none of them may make the proxy alter a
byte (issue 20: bytes that reached the client by sendfile from a tape that was later punched read as NUL).
"""

from __future__ import annotations

import os
import random
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import IO

Reader = Callable[[IO[bytes]], bytes]


def one_byte(stdout: IO[bytes]) -> bytes:
    """Reads single bytes (2048 of them each MiB, then a pause) between big reads: the client is behind the
    proxy at every MiB, with the pipe full of what was sent last."""
    fd, got = stdout.fileno(), bytearray()
    while True:
        for _ in range(2048):
            if not (b := os.read(fd, 1)):
                return bytes(got)
            got += b
        time.sleep(0.05)
        want = (1 << 20) - 2048
        while want > 0:
            if not (chunk := os.read(fd, want)):
                return bytes(got)
            got += chunk
            want -= len(chunk)


def stall_then_drain(stdout: IO[bytes]) -> bytes:
    """Reads nothing for 5 s, then everything as fast as it can."""
    time.sleep(5)
    return stdout.read()


def slow_lines(stdout: IO[bytes]) -> bytes:
    """Reads line by line, pausing 1 ms every 32 lines (and 20 ms after each long one)."""
    got, n = bytearray(), 0
    while line := stdout.readline():
        got += line
        n += 1
        if n % 32 == 0 or len(line) > 1 << 16:
            time.sleep(0.02 if len(line) > 1 << 16 else 0.001)
    return bytes(got)


def bursty(stdout: IO[bytes], seed: int = 7) -> bytes:
    """Reads in random sizes (1 B .. 2 MiB) with random short pauses, seeded."""
    rng, fd, got = random.Random(seed), stdout.fileno(), bytearray()
    while chunk := os.read(fd, rng.choice((1, 17, 4096, 65536, 1 << 20, 2 << 20))):
        got += chunk
        if rng.random() < 0.3:
            time.sleep(rng.random() * 0.01)
    return bytes(got)


def closes_early(stdout: IO[bytes]) -> bytes:
    """Reads 100 KiB, then closes its end for good."""
    got = bytearray()
    while len(got) < 100 << 10 and (chunk := os.read(stdout.fileno(), (100 << 10) - len(got))):
        got += chunk
    stdout.close()
    return bytes(got)


def leftovers(marker: str) -> list[str]:
    """Processes whose command line holds ``marker`` (a path unique to one session): none may outlive it."""
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:
            continue
        if marker.encode() in cmdline:
            found.append(pid + ": " + cmdline.replace(b"\0", b" ").decode(errors="replace")[:200])
    return found


def finish(proc: subprocess.Popen[bytes], guard: float = 180) -> tuple[int, bytes]:
    """The proxy's exit status and stderr; a hang guard (not a speed check) kills it and fails."""
    try:
        code = proc.wait(guard)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        raise AssertionError(f"rpcspy did not exit within {guard} s (hang)") from None
    assert proc.stderr is not None
    return code, proc.stderr.read()
