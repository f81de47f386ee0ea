"""Aligning two sequences of hashable keys in near-linear time (for ``diff``).

``difflib.SequenceMatcher`` (``autojunk=False``) costs about one step per pair of equal
keys, so it is quadratic on long sequences of small repeated frames. Here it only
runs on small ranges, or on ranges without common ends whose equal pairs fit a
budget; bigger ranges are first cut down:

1. equal ranges are matched whole, the common prefix and suffix of others too
   (compared in slices, in C);
2. keys that occur once in each side anchor the alignment (patience diff: the longest
   increasing run of their positions), and the gaps between anchors are aligned the
   same way;
3. a big range without a unique common key gets a shortest edit script (Myers) if
   it needs at most ``MAX_EDITS`` edits, else it is one ``replace`` block.

On small inputs (at most ``SMALL`` pairs of positions) the answer is exactly difflib's.
Pure; the sequences may be lists or ``array`` objects.
"""

from __future__ import annotations

import difflib
from bisect import bisect_left
from collections import Counter
from collections.abc import Callable, Hashable, Sequence

Opcode = tuple[str, int, int, int, int]
Keys = Sequence[Hashable]
"""What is aligned: hashable keys, one a frame (a list, or the differ's arrays of digests)."""

SMALL = 4096
"""Ranges with at most this many pairs of positions go to difflib as they are."""
MAX_EDITS = 500
"""Edits the Myers search tries, on a range without unique common keys, before giving up."""
BUDGET = 200_000
"""Equal pairs above which a range (without common prefix or suffix) is not handed to difflib."""
_SLICE = 512


def opcodes(a: Keys, b: Keys, budget: int = BUDGET) -> list[Opcode]:
    """difflib-style opcodes (``equal``, ``replace``, ``delete``, ``insert``) turning ``a`` into ``b``."""
    out: list[Opcode] = []
    _align(a, b, 0, len(a), 0, len(b), budget, out)
    return _merge(out)


def _align(a: Keys, b: Keys, alo: int, ahi: int, blo: int, bhi: int, budget: int, out: list[Opcode]) -> None:
    # a stack worked from its end: each entry is a range still to align or a finished opcode
    pending: list[Opcode] = [("range", alo, ahi, blo, bhi)]
    while pending:
        item = pending.pop()
        if item[0] != "range":
            out.append(item)
            continue
        _, alo, ahi, blo, bhi = item
        if alo == ahi or blo == bhi:
            _edge(alo, ahi, blo, bhi, out)
            continue
        if ahi - alo == bhi - blo and a[alo:ahi] == b[blo:bhi]:
            out.append(("equal", alo, ahi, blo, bhi))
            continue
        if (ahi - alo) * (bhi - blo) <= SMALL:
            _difflib(a, b, alo, ahi, blo, bhi, out)
            continue
        pre = _prefix(a, b, alo, ahi, blo, bhi)
        suf = _suffix(a, b, alo + pre, ahi, blo + pre, bhi)
        if not (pre or suf) and _pairs_within(a, b, alo, ahi, blo, bhi, budget):
            _difflib(a, b, alo, ahi, blo, bhi, out)
            continue
        if pre or suf:
            todo: list[Opcode] = []
            if pre:
                todo.append(("equal", alo, alo + pre, blo, blo + pre))
            todo.append(("range", alo + pre, ahi - suf, blo + pre, bhi - suf))
            if suf:
                todo.append(("equal", ahi - suf, ahi, bhi - suf, bhi))
            pending.extend(reversed(todo))
            continue
        anchors = _anchors(a, b, alo, ahi, blo, bhi)
        if not anchors:
            found = _myers(a, b, alo, ahi, blo, bhi, MAX_EDITS)
            out.extend(found if found is not None else [("replace", alo, ahi, blo, bhi)])
            continue
        todo = []
        i, j = alo, blo
        for ai, bj in anchors:
            todo.append(("range", i, ai, j, bj))
            todo.append(("equal", ai, ai + 1, bj, bj + 1))
            i, j = ai + 1, bj + 1
        todo.append(("range", i, ahi, j, bhi))
        pending.extend(reversed(todo))


def _difflib(a: Keys, b: Keys, alo: int, ahi: int, blo: int, bhi: int, out: list[Opcode]) -> None:
    sm = difflib.SequenceMatcher(None, a[alo:ahi], b[blo:bhi], autojunk=False)
    out.extend((t, i1 + alo, i2 + alo, j1 + blo, j2 + blo) for t, i1, i2, j1, j2 in sm.get_opcodes())


def _myers(a: Keys, b: Keys, alo: int, ahi: int, blo: int, bhi: int, max_d: int) -> list[Opcode] | None:
    """A shortest edit script (Myers' greedy O((N+M)D) search), or None beyond ``max_d`` edits.

    Snakes (runs of equal keys) are followed in slices, so the cost is about D squared
    steps plus the C-speed comparisons.
    """
    n, m = ahi - alo, bhi - blo
    size = 2 * max_d + 3
    v = [0] * size  # negative diagonals wrap round to the end of the list
    trace: list[list[int]] = []
    for d in range(max_d + 1):
        trace.append(v.copy())
        for k in range(-d, d + 1, 2):
            x = v[k + 1] if k == -d or (k != d and v[k - 1] < v[k + 1]) else v[k - 1] + 1
            y = x - k
            if x < n and y < m:
                x += _prefix(a, b, alo + x, ahi, blo + y, bhi)
            v[k] = x
            if x >= n and x - k >= m:
                return _backtrack(trace, n, m, alo, blo)
    return None


def _backtrack(trace: list[list[int]], n: int, m: int, alo: int, blo: int) -> list[Opcode]:
    ops: list[Opcode] = []
    x, y = n, m
    for d in range(len(trace) - 1, -1, -1):
        v = trace[d]
        k = x - y
        if d == 0:
            px = py = 0
            mx, my = 0, 0
        else:
            down = k == -d or (k != d and v[k - 1] < v[k + 1])
            pk = k + 1 if down else k - 1
            px = v[pk]
            py = px - pk
            mx, my = (px, py + 1) if down else (px + 1, py)
        if x > mx:
            ops.append(("equal", alo + mx, alo + x, blo + my, blo + y))
        if d:
            ops.append(("insert" if mx == px else "delete", alo + px, alo + mx, blo + py, blo + my))
        x, y = px, py
    ops.reverse()
    return ops


def _edge(alo: int, ahi: int, blo: int, bhi: int, out: list[Opcode]) -> None:
    if alo < ahi:
        out.append(("delete", alo, ahi, blo, bhi))
    elif blo < bhi:
        out.append(("insert", alo, ahi, blo, bhi))


def _pairs_within(a: Keys, b: Keys, alo: int, ahi: int, blo: int, bhi: int, budget: int) -> bool:
    """Whether the equal pairs of the two ranges (difflib's work) are at most ``budget``."""
    if (ahi - alo) * (bhi - blo) <= budget:
        return True
    counts = Counter(b[blo:bhi])
    total = 0
    for x in a[alo:ahi]:
        total += counts.get(x, 0)
        if total > budget:
            return False
    return True


def _prefix(a: Keys, b: Keys, alo: int, ahi: int, blo: int, bhi: int) -> int:
    """Length of the common start of the two ranges."""
    return _common(lambda k, m: a[alo + k:alo + k + m] == b[blo + k:blo + k + m], min(ahi - alo, bhi - blo))


def _suffix(a: Keys, b: Keys, alo: int, ahi: int, blo: int, bhi: int) -> int:
    """Length of the common end of the two ranges."""
    return _common(lambda k, m: a[ahi - k - m:ahi - k] == b[bhi - k - m:bhi - k], min(ahi - alo, bhi - blo))


def _common(same: Callable[[int, int], bool], n: int) -> int:
    """The largest k <= n with ``same(0, k)``, probed in slices: ``same(k, m)`` compares m keys after k."""
    k = 0
    step = _SLICE
    while k < n:
        m = min(step, n - k)
        if same(k, m):
            k += m
        elif m == 1:
            break
        else:
            step = max(1, m // 2)
    return k


def _anchors(a: Keys, b: Keys, alo: int, ahi: int, blo: int, bhi: int) -> list[tuple[int, int]]:
    """Positions of keys unique in both ranges, the longest run increasing on both sides."""
    ca = Counter(a[alo:ahi])
    cb = Counter(b[blo:bhi])
    where = {x: j for j, x in enumerate(b[blo:bhi], blo) if cb[x] == 1 and ca.get(x) == 1}
    if not where:
        return []
    pairs = [(i, where[x]) for i, x in enumerate(a[alo:ahi], alo) if x in where]
    return _longest_increasing(pairs)


def _longest_increasing(pairs: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The longest subsequence of ``pairs`` (increasing in the first item) increasing in the second."""
    tails: list[int] = []  # smallest b-position ending a run of each length
    tail_at: list[int] = []  # index into pairs of that end
    back = [-1] * len(pairs)
    for k, (_, j) in enumerate(pairs):
        pos = bisect_left(tails, j)
        if pos == len(tails):
            tails.append(j)
            tail_at.append(k)
        else:
            tails[pos] = j
            tail_at[pos] = k
        back[k] = tail_at[pos - 1] if pos else -1
    run: list[tuple[int, int]] = []
    k = tail_at[-1] if tail_at else -1
    while k >= 0:
        run.append(pairs[k])
        k = back[k]
    run.reverse()
    return run


def _merge(ops: list[Opcode]) -> list[Opcode]:
    """Join neighbouring opcodes of one kind, and a delete next to an insert into a replace."""
    out: list[Opcode] = []
    for op in ops:
        t, i1, i2, j1, j2 = op
        if i1 == i2 and j1 == j2:
            continue
        if out:
            pt, pi1, pi2, pj1, pj2 = out[-1]
            if pi2 == i1 and pj2 == j1 and (pt == t or (pt != "equal" and t != "equal")):
                out[-1] = (pt if pt == t else "replace", pi1, i2, pj1, j2)
                continue
        out.append(op)
    return out

