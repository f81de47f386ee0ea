"""A full-screen program on a pseudo-terminal, read as a screen (pyte emulates the terminal).

prompt-toolkit redraws only what changed, so the byte stream holds fragments;
the emulated screen holds what a person would see.
"""

from __future__ import annotations

import sys
import time

import pyte

from tests.interactive.terminal import Terminal, squeezed


class Screen(Terminal):
    def __init__(self, argv: list[str], *, rows: int = 30, cols: int = 120, **kw) -> None:
        super().__init__(argv, rows=rows, cols=cols, **kw)
        self.screen = pyte.Screen(cols, rows)
        self.stream = pyte.ByteStream(self.screen)
        self._fed = 0

    @classmethod
    def rpcspy(cls, *args: str, **kw) -> Screen:
        return cls([sys.executable, "-m", "rpcspy", *args], **kw)

    def display(self) -> str:
        self.stream.feed(bytes(self.raw[self._fed:]))
        self._fed = len(self.raw)
        return "\n".join(line.rstrip() for line in self.screen.display)

    def wait_screen(self, *needles: str, timeout: float = 30) -> str:
        """Read until every needle is on the screen at once; return the screen."""
        deadline = time.monotonic() + timeout
        while True:
            shown = self.display()
            if all(n in shown for n in needles):
                return shown
            left = deadline - time.monotonic()
            if left <= 0 or not self._pump(min(left, 0.2)):
                shown = self.display()
                if all(n in shown for n in needles):
                    return shown
                missing = [n for n in needles if n not in shown]
                raise AssertionError(f"not on screen: {missing}\n--- screen ---\n{squeezed(shown)}")
