"""A proxied stand-in agent with a control socket, for the inject/sessions command tests."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tests.paths import REPO

RPCSPY = [sys.executable, "-m", "rpcspy"]


def control_env(tmp_path: Path) -> dict[str, str]:
    """The environment with a runtime directory of its own (and a state directory for history)."""
    (tmp_path / "run").mkdir()
    return {**os.environ, "XDG_RUNTIME_DIR": str(tmp_path / "run"), "NO_COLOR": "1",
            "XDG_STATE_HOME": str(tmp_path / "state"), "PYTHONPATH": str(REPO)}


@contextmanager
def proxied(agent: list[str], env: dict[str, str], rec: Path) -> Iterator[subprocess.Popen[bytes]]:
    """``rpcspy -o REC -- AGENT`` with piped stdio, registered on its control socket."""
    proc = subprocess.Popen([*RPCSPY, "-o", str(rec), "--no-check", "--", *agent], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    sock = Path(env["XDG_RUNTIME_DIR"]) / "rpcspy" / f"{proc.pid}.sock"
    deadline = time.monotonic() + 20
    try:
        while not sock.exists():
            assert time.monotonic() < deadline and proc.poll() is None, "the proxy never offered its socket"
            time.sleep(0.05)
        yield proc
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait(10)
