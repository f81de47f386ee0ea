"""Structural differences between two decoded JSON values, as JSON paths. Pure."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import msgspec

_IDENT = re.compile(r"^[A-Za-z_$][A-Za-z0-9_$]*$")


class _Absent:
    __slots__ = ()

    def __repr__(self) -> str:
        return "<absent>"


ABSENT: Any = _Absent()
"""Stands for a missing object key or list element on one side."""


class Change(msgspec.Struct, frozen=True):
    """One differing leaf: ``a`` and ``b`` may be :data:`ABSENT`."""

    path: str
    a: Any
    b: Any


def child(path: str, key: str | int) -> str:
    if isinstance(key, int):
        return f"{path}[{key}]"
    if _IDENT.match(key):
        return f"{path}.{key}"
    return f"{path}[{_quote(key)}]"


def _quote(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _same(a: Any, b: Any) -> bool:
    # JSON: true is not 1, 1 is 1.0
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    same: bool = a == b
    return same


def changes(a: Any, b: Any, path: str = "$", *, align: bool = False) -> Iterator[Change]:
    """Every differing leaf, depth first, objects in ``a``'s key order then ``b``'s extra keys.

    ``align``: lists of different lengths are aligned first (elements keyed by their ``type``/``role``),
    so one element inserted at the front reads as one added element, not every later one changed.
    """
    if isinstance(a, dict) and isinstance(b, dict):
        for k, va in a.items():
            if k in b:
                yield from changes(va, b[k], child(path, k), align=align)
            else:
                yield Change(child(path, k), va, ABSENT)
        for k, vb in b.items():
            if k not in a:
                yield Change(child(path, k), ABSENT, vb)
        return
    if isinstance(a, list) and isinstance(b, list):
        if align and len(a) != len(b):
            yield from _aligned(a, b, path)
            return
        for i in range(max(len(a), len(b))):
            va = a[i] if i < len(a) else ABSENT
            vb = b[i] if i < len(b) else ABSENT
            if va is ABSENT or vb is ABSENT:
                yield Change(child(path, i), va, vb)
            else:
                yield from changes(va, vb, child(path, i), align=align)
        return
    if not _same(a, b):
        yield Change(path, a, b)


def _element_key(value: Any) -> str:
    if isinstance(value, dict):
        return f"{value.get('type')}/{value.get('role')}"
    return f"{type(value).__name__}:{repr(value)[:64]}"


def _aligned(a: list[Any], b: list[Any], path: str) -> Iterator[Change]:
    import difflib

    sm = difflib.SequenceMatcher(None, [_element_key(x) for x in a], [_element_key(x) for x in b], autojunk=False)
    for op, i1, i2, j1, j2 in sm.get_opcodes():
        pairs = min(i2 - i1, j2 - j1) if op in ("equal", "replace") else 0
        for k in range(pairs):
            yield from changes(a[i1 + k], b[j1 + k], child(path, j1 + k), align=True)
        for i in range(i1 + pairs, i2):
            yield Change(child(path, i), a[i], ABSENT)
        for j in range(j1 + pairs, j2):
            yield Change(child(path, j), ABSENT, b[j])


def all_changes(a: Any, b: Any) -> list[Change]:
    """Every differing leaf; for values nested too deeply to walk, one change of the whole value."""
    try:
        return list(changes(a, b))
    except RecursionError:
        return [] if _deep_equal(a, b) else [Change("$", a, b)]


def first_difference(a: Any, b: Any) -> str | None:
    """The path of the first difference, or None when equal."""
    try:
        for c in changes(a, b):
            return c.path
    except RecursionError:
        return None if _deep_equal(a, b) else "$"
    return None


def distance(a: Any, b: Any, limit: int = 1000) -> int:
    """How many leaves differ (capped at ``limit``): a cheap similarity for "closest"."""
    n = 0
    try:
        for _ in changes(a, b):
            n += 1
            if n >= limit:
                break
    except RecursionError:
        return 0 if _deep_equal(a, b) else limit
    return n


def _deep_equal(a: Any, b: Any) -> bool:
    try:
        return bool(a == b)
    except RecursionError:
        return False
