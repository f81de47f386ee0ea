"""The I/O of ``rpcspy drive``: the agent behind the in-process proxy (recorded like any session),
a :class:`~rpcspy.drive.driver.Driver` deciding what to write when."""

from __future__ import annotations

import queue
import time
from collections.abc import Callable, Sequence
from typing import Any

from rpcspy.drive.driver import Driver

POLL = 0.2
EXIT_GRACE = 30.0
"""Seconds the agent gets to exit after its stdin is closed, before SIGTERM."""


def drive(driver: Driver, argv: Sequence[str], record_path: str | None, *, env: dict[str, str] | None = None,
          check: bool = True, control: bool = True, on_step: Callable[[Any], None] | None = None,
          gap_after: float | None = None, observers: Sequence[Any] = (), record_fd: int | None = None) -> int | None:
    """Run the script against the agent; return the agent's exit status (None if it had to be killed).
    ``gap_after``: how long stalled observers are waited for (None: ``RPCSPY_GAP_AFTER``); ``observers``:
    more observer factories (the live OpenTelemetry export)."""
    from rpcspy.pump.inprocess import InProcessProxy

    inbox: queue.Queue[Any] = queue.Queue()
    backend = InProcessProxy(argv, record_path, env=env, check=check, control=control, mode="drive",
                             gap_after=gap_after, observers=observers, record_fd=record_fd)
    backend.start(inbox.put, lambda: inbox.put(None))
    reported = 0
    ended = stopped = False
    try:
        while True:
            for line in driver.poll(time.monotonic()):
                error = backend.send(line)
                if error and driver.gone is None:
                    driver.gone = error
            while on_step is not None and reported < driver.i and reported < len(driver.results):
                on_step(driver.results[reported])
                reported += 1
            if driver.done:
                break
            try:
                batch = inbox.get(timeout=POLL)
            except queue.Empty:
                continue
            if batch is None:
                ended = True
                driver.gone = driver.gone or "the session ended"
                continue
            for event in batch:
                driver.feed(event)
    except KeyboardInterrupt:  # Ctrl-C: the agent (its own process group, so not reached) is stopped below
        stopped = True
    finally:
        backend.close_input()
    code = backend.wait(None if ended else 0.0 if stopped else EXIT_GRACE)
    if code is None:
        backend.terminate()
        code = backend.wait(10.0)
    if code is None and stopped:  # SIGTERM ignored: SIGKILL, so the exit is recorded before rpcspy leaves
        backend.terminate()
        code = backend.wait(10.0)
    if on_step is not None:
        for result in driver.results[reported:]:
            on_step(result)
        if driver.final is not None and not driver.final.ok and not stopped:
            on_step(driver.final)
    if stopped:
        raise DriveInterrupted(code)  # after the agent's exit is recorded
    return code


class DriveInterrupted(KeyboardInterrupt):
    """Ctrl-C during ``drive``: the agent was stopped and its exit recorded; ``code`` is its status."""

    def __init__(self, code: int | None) -> None:
        super().__init__()
        self.code = code
