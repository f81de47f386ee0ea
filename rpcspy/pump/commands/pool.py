"""Running one pure function over many inputs on every core, results as they finish.

:func:`imap` hands each item to a worker process (``jobs`` of them; 1: in this process,
no pool at all) and yields ``fn(item)`` in the order they complete, so the caller can merge
each result and drop it: memory holds the results not yet merged, not all of them. Workers
ignore SIGINT; Ctrl-C reaches the caller, which ends the pool (its workers terminated)
when it leaves the iterator.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
from collections.abc import Callable, Iterable, Iterator
from typing import TypeVar

T = TypeVar("T")
R = TypeVar("R")


def default_jobs() -> int:
    """The cores this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # pragma: no cover  (not Linux)
        return max(1, os.cpu_count() or 1)


def _quiet_worker() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def imap(fn: Callable[[T], R], items: Iterable[T], jobs: int) -> Iterator[R]:
    """``fn(item)`` for every item, in completion order, ``jobs`` at a time."""
    if jobs <= 1:
        for item in items:
            yield fn(item)
        return
    pool = multiprocessing.get_context("fork").Pool(jobs, initializer=_quiet_worker)  # the shell runs no thread
    try:
        yield from pool.imap_unordered(fn, items, chunksize=1)
        pool.close()
    finally:
        pool.terminate()
        pool.join()
