"""A mergeable quantile sketch with a bounded relative error (the DDSketch idea, pure).

Values fall into logarithmic buckets ``gamma**(i-1) < v <= gamma**i`` with
``gamma = (1 + a) / (1 - a)``; a quantile is read off the bucket counts and is within a
relative error ``a`` of the true nearest-rank value. The number of buckets depends only on
the range of the values (about 1,300 between a microsecond and a day at 1 %), never on how
many were added, so a fleet's memory stays flat however many recordings it reads. Count,
sum, minimum and maximum are kept exactly. Sketches with the same accuracy merge by adding
their buckets.
"""

from __future__ import annotations

import math
from typing import Any

ACCURACY = 0.01
"""Relative error of a quantile (1 %)."""


class Sketch:
    """Quantiles of non-negative values (times in ms, rates) in bounded memory."""

    __slots__ = ("_gamma_log", "buckets", "zeros", "count", "total", "low", "high", "accuracy")

    def __init__(self, accuracy: float = ACCURACY) -> None:
        if not 0 < accuracy < 1:
            raise ValueError("accuracy must be between 0 and 1")
        self.accuracy = accuracy
        self._gamma_log = math.log((1 + accuracy) / (1 - accuracy))
        self.buckets: dict[int, int] = {}
        self.zeros = 0
        self.count = 0
        self.total = 0.0
        self.low = math.inf
        self.high = -math.inf

    def add(self, value: float) -> None:
        """Count one value; negative, NaN and infinite values are ignored (they are no durations)."""
        if not math.isfinite(value) or value < 0:
            return
        self.count += 1
        self.total += value
        self.low = min(self.low, value)
        self.high = max(self.high, value)
        if value == 0:
            self.zeros += 1
            return
        i = math.ceil(math.log(value) / self._gamma_log)
        self.buckets[i] = self.buckets.get(i, 0) + 1

    def merge(self, other: Sketch) -> None:
        """Add ``other``'s values to this sketch (same accuracy)."""
        if other.accuracy != self.accuracy:
            raise ValueError("sketches of different accuracy do not merge")
        for i, n in other.buckets.items():
            self.buckets[i] = self.buckets.get(i, 0) + n
        self.zeros += other.zeros
        self.count += other.count
        self.total += other.total
        self.low = min(self.low, other.low)
        self.high = max(self.high, other.high)

    def quantile(self, q: float) -> float | None:
        """The nearest-rank ``q`` quantile (0..1) within the accuracy; ``None`` when empty."""
        if self.count == 0:
            return None
        rank = max(1, math.ceil(q * self.count))
        if rank <= self.zeros:
            return 0.0
        if rank >= self.count:
            return self.high
        seen = self.zeros
        for i in sorted(self.buckets):
            seen += self.buckets[i]
            if seen >= rank:
                gamma = math.exp(self._gamma_log)
                estimate = 2 * gamma ** i / (gamma + 1)
                return min(max(estimate, self.low), self.high)
        return self.high  # pragma: no cover  (counts always add up)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready form (``from_dict`` reads it back)."""
        return {"accuracy": self.accuracy, "zeros": self.zeros, "count": self.count, "total": self.total,
                "low": self.low if self.count else None, "high": self.high if self.count else None,
                "buckets": {str(i): n for i, n in sorted(self.buckets.items())}}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Sketch:
        s = cls(float(data["accuracy"]))
        s.zeros, s.count, s.total = int(data["zeros"]), int(data["count"]), float(data["total"])
        if s.count:
            s.low, s.high = float(data["low"]), float(data["high"])
        s.buckets = {int(i): int(n) for i, n in data["buckets"].items()}
        return s


def of(values: list[float], accuracy: float = ACCURACY) -> Sketch:
    """A sketch of ``values``."""
    s = Sketch(accuracy)
    for v in values:
        s.add(v)
    return s
