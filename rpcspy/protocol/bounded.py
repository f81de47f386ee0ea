"""Dicts used as bounded first-in-first-out tables (answered commands, dialogs by id).

Evicting one entry per insertion with ``del d[next(iter(d))]`` is quadratic in CPython:
deleted slots stay at the front of the entry array until the next resize, and every
``next(iter(d))`` walks over them (a long session of small commands got several times
slower once the table was full). Here the oldest entries go a quarter of the
cap at a time, so each insertion costs O(1) amortised and a table holds at most
``cap + cap // 4`` entries.
"""

from __future__ import annotations

from itertools import islice
from typing import Any


def trim_oldest(table: dict[Any, Any], cap: int) -> None:
    """Drop the oldest entries of ``table`` (insertion order) once it holds over ``cap + cap // 4``."""
    if len(table) > cap + cap // 4:
        for key in list(islice(table, len(table) - cap)):
            del table[key]
