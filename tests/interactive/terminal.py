"""A pseudo-terminal for REPL tests: type keys, read the screen's text, answer cursor queries.

prompt-toolkit asks the terminal where the cursor is (``ESC [ 6 n``) and draws
its status bar only once it knows; a real terminal answers, and so does this
one. What the program prints is kept twice: raw, and as plain text with the
escape sequences removed, which is what tests search.
"""

from __future__ import annotations

import os
import re
import sys
import time
from pathlib import Path

import pexpect

from tests.support.agents import REPO_ROOT

_ANSI = re.compile(rb"\x1b\[[0-9;?<>=]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[()][0-9A-Za-z]|\x1b[=>78DEHMNOc]")
CPR_QUERY = b"\x1b[6n"
KEYS = {"enter": "\r", "tab": "\t", "c-c": "\x03", "c-d": "\x04", "esc": "\x1b", "up": "\x1b[A"}


def plain(data: bytes) -> str:
    return _ANSI.sub(b"", data).replace(b"\r", b"").decode("utf-8", "replace")


def squeezed(text: str) -> str:
    """Without the blank lines the status bar's placement leaves (for failure messages)."""
    return re.sub(r"\n\s*\n+", "\n", text)


class Terminal:
    """``rpcspy ARGS`` (or any argv) on a pty of ``rows`` x ``cols``."""

    def __init__(self, argv: list[str], *, env: dict[str, str] | None = None, cwd: str | Path | None = None,
                 rows: int = 40, cols: int = 140) -> None:
        full_env = dict(os.environ if env is None else env)
        full_env.setdefault("TERM", "xterm-256color")
        full_env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO_ROOT), full_env.get("PYTHONPATH")]))
        self.child = pexpect.spawn(argv[0], argv[1:], env=full_env, cwd=str(cwd) if cwd else None,
                                   dimensions=(rows, cols), timeout=30)
        self.raw = bytearray()
        self.mark = 0

    @classmethod
    def rpcspy(cls, *args: str, **kw) -> Terminal:
        return cls([sys.executable, "-m", "rpcspy", *args], **kw)

    # --- reading -------------------------------------------------------------------------
    def _pump(self, timeout: float) -> bool:
        """Read what is there (waiting up to ``timeout``); False at EOF."""
        try:
            data = self.child.read_nonblocking(1 << 16, timeout=timeout)
        except pexpect.TIMEOUT:
            return True
        except pexpect.EOF:
            return False
        self.raw += data
        for _ in range(data.count(CPR_QUERY)):
            self.child.send("\x1b[1;1R")
        return True

    @property
    def text(self) -> str:
        return plain(bytes(self.raw))

    def since_mark(self) -> str:
        return plain(bytes(self.raw[self.mark:]))

    def set_mark(self) -> None:
        """Later waits only look at output after this point."""
        self.mark = len(self.raw)

    def wait_for(self, *needles: str, timeout: float = 30) -> str:
        """Read until every needle shows in the output since the mark; return that output."""
        deadline = time.monotonic() + timeout
        while True:
            seen = self.since_mark()
            if all(n in seen for n in needles):
                return seen
            left = deadline - time.monotonic()
            if left <= 0 or not self._pump(min(left, 0.2)):
                if all(n in self.since_mark() for n in needles):
                    return self.since_mark()
                missing = [n for n in needles if n not in self.since_mark()]
                raise AssertionError(f"not shown: {missing}\n--- output since mark ---\n{squeezed(self.since_mark())[-4000:]}")

    def wait_in_order(self, *needles: str, timeout: float = 30) -> str:
        """Like :meth:`wait_for`, but each needle must show after the one before it."""
        pattern = ".*?".join(re.escape(n) for n in needles)
        deadline = time.monotonic() + timeout
        while not re.search(pattern, self.since_mark(), re.S):
            left = deadline - time.monotonic()
            if left <= 0 or not self._pump(min(left, 0.2)):
                if re.search(pattern, self.since_mark(), re.S):
                    break
                raise AssertionError(f"not shown in order: {list(needles)}\n--- output since mark ---\n"
                                     f"{squeezed(self.since_mark())[-4000:]}")
        return self.since_mark()

    def settle(self, quiet: float = 0.3, timeout: float = 5) -> None:
        """Read until nothing new arrives for ``quiet`` seconds."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            before = len(self.raw)
            if not self._pump(quiet):
                return
            if len(self.raw) == before:
                return

    # --- typing --------------------------------------------------------------------------
    def type(self, text: str) -> None:
        self.child.send(text)

    def line(self, text: str) -> None:
        """Type ``text`` and Enter."""
        self.child.send(text)
        time.sleep(0.05)
        self.child.send("\r")

    def key(self, name: str) -> None:
        self.child.send(KEYS[name])

    # --- the end -------------------------------------------------------------------------
    def wait_exit(self, timeout: float = 30) -> int:
        deadline = time.monotonic() + timeout
        while self._pump(min(max(deadline - time.monotonic(), 0.01), 0.2)):
            if time.monotonic() > deadline:
                raise AssertionError(f"still running after {timeout} s\n{squeezed(self.text)[-3000:]}")
        self.child.close()
        return self.child.exitstatus if self.child.exitstatus is not None else 128 + (self.child.signalstatus or 0)

    def close(self) -> None:
        if self.child.isalive():
            self.child.terminate(force=True)
        self.child.close()
