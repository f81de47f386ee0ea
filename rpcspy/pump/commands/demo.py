"""The processes of ``rpcspy demo``: a scripted client, the proxy recording, a fake agent.

The shell (``rpcspy/cli/demo_cmd.py``) chooses the files and says what happens; this module runs
the chain and the timeline, each as a child ``rpcspy`` of this interpreter.
"""

from __future__ import annotations

import subprocess
import sys
from dataclasses import dataclass

CHAIN_TIMEOUT = 300.0
"""Seconds the whole demo session may take before it is given up."""


def rpcspy_argv(*args: str) -> list[str]:
    """The command line of a child ``rpcspy`` run by this interpreter."""
    return [sys.executable, "-m", "rpcspy", *args]


def chain_argv(demo: str, rec: str, speed: float) -> list[str]:
    """``rpcspy replay --client DEMO -- rpcspy run -o REC -- rpcspy replay DEMO`` (what the demo runs)."""
    agent = rpcspy_argv("replay", "--speed", str(speed), demo)
    proxy = rpcspy_argv("run", "-o", rec, "--", *agent)
    return rpcspy_argv("replay", "--client", demo, "--timeout", "30", "--no-record", "--", *proxy)


@dataclass
class ChainResult:
    returncode: int
    stderr: bytes
    """What the three processes said on stderr (shown only when something failed)."""


def run_chain(demo: str, rec: str, speed: float, *, timeout: float = CHAIN_TIMEOUT) -> ChainResult:
    """Run the demo session to its end: the proxy records it to ``rec``."""
    done = subprocess.run(chain_argv(demo, rec, speed), stdin=subprocess.DEVNULL,
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=timeout)
    return ChainResult(done.returncode, done.stderr)


def show(rec: str) -> int:
    """``rpcspy show REC`` on this process's stdout (flushed first, so the timeline follows what came before)."""
    sys.stdout.flush()
    return subprocess.run(rpcspy_argv("show", rec), check=False).returncode
