"""Ctrl-C while no prompt is open.

prompt-toolkit puts the terminal in raw mode only while a prompt is open, and
turns SIGINT into its Ctrl-C key then. Between prompts (a command being sent,
a dialog about to open) the terminal is cooked, so Ctrl-C arrives as SIGINT,
which asyncio would turn into a cancelled main task: the REPL would quit under a
user who only pressed Ctrl-C a moment early. :class:`TypedAhead` keeps that
SIGINT and hands it to the next prompt, as a key typed ahead would be.
"""

from __future__ import annotations

import asyncio
import signal
from collections.abc import Callable, Iterator
from contextlib import contextmanager


class TypedAhead:
    """Between prompts, a SIGINT is noted; ``take`` tells the next prompt."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self._watching = False
        self._pending = False

    def take(self) -> bool:
        """A prompt opens: stop watching; True once if Ctrl-C came while none was open."""
        self._unwatch()
        pending, self._pending = self._pending, False
        return pending

    def closed(self) -> None:
        """A prompt closed: watch for SIGINT until the next opens."""
        self._watching = watch_sigint(self.loop, self._note)

    def _note(self) -> None:
        self._pending = True

    def _unwatch(self) -> None:
        if self._watching:
            self.loop.remove_signal_handler(signal.SIGINT)
            self._watching = False

    @contextmanager
    def instead(self, action: Callable[[], object]) -> Iterator[None]:
        """Run ``action`` on SIGINT for the duration (then back to not watching)."""
        self._unwatch()
        watched = watch_sigint(self.loop, action)
        try:
            yield
        finally:
            if watched:
                self.loop.remove_signal_handler(signal.SIGINT)


def watch_sigint(loop: asyncio.AbstractEventLoop, action: Callable[[], object]) -> bool:
    """``loop.add_signal_handler(SIGINT, action)``; False where that is not possible."""
    try:
        loop.add_signal_handler(signal.SIGINT, action)
    except (NotImplementedError, RuntimeError, ValueError):
        return False
    return True
