"""Cutting a byte stream into chunks at given positions (shared by the injection tests)."""

from __future__ import annotations

from itertools import pairwise


def cut(stream: bytes, at: list[int]) -> list[bytes]:
    """``stream`` cut at each position in ``at`` (taken modulo its length + 1): the chunks a reader might get."""
    edges = [0, *sorted({a % (len(stream) + 1) for a in at}), len(stream)]
    return [stream[a:b] for a, b in pairwise(edges)]
