"""Helpers to run `python -m rpcspy` as a subprocess in tests."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

FAKE = str(Path(__file__).with_name("fake_agent.py"))
RPCSPY = [sys.executable, "-m", "rpcspy"]


def fake(*args: str) -> list[str]:
    return [sys.executable, FAKE, *args]


def spawn(rec: Path | None, agent: list[str], *opts: str, **kw) -> subprocess.Popen[bytes]:
    out = ["-o", str(rec)] if rec else ["--no-record"]
    return subprocess.Popen([*RPCSPY, *out, *opts, "--", *agent], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, **kw)


def run(rec: Path | None, agent: list[str], stdin: bytes = b"", *opts: str, timeout: float = 60,
        env: dict[str, str] | None = None) -> subprocess.CompletedProcess[bytes]:
    out = ["-o", str(rec)] if rec else ["--no-record"]
    return subprocess.run([*RPCSPY, *out, *opts, "--", *agent], input=stdin, capture_output=True, timeout=timeout,
                          env={**os.environ, **(env or {})})
