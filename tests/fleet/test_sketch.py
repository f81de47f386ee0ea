"""The quantile sketch: within its accuracy of the exact nearest-rank value, mergeable, bounded."""

from __future__ import annotations

import math

from hypothesis import given
from hypothesis import strategies as st

from rpcspy.fleet.sketch import ACCURACY, Sketch, of
from rpcspy.stats import percentile

values = st.lists(st.floats(min_value=0, max_value=1e7, allow_nan=False), min_size=1, max_size=300)


@given(values, st.sampled_from([0.5, 0.95, 0.99, 1.0]))
def test_a_quantile_is_within_the_accuracy_of_the_exact_one(vs: list[float], q: float) -> None:
    exact = percentile(vs, q * 100)
    got = of(vs).quantile(q)
    assert got is not None
    assert math.isclose(got, exact, rel_tol=ACCURACY * 1.0001, abs_tol=1e-9)


@given(values, values)
def test_merging_equals_adding_everything_to_one(a: list[float], b: list[float]) -> None:
    merged = of(a)
    merged.merge(of(b))
    whole = of(a + b)
    assert merged.buckets == whole.buckets and merged.count == whole.count and merged.zeros == whole.zeros
    assert merged.high == whole.high and merged.low == whole.low
    assert Sketch.from_dict(merged.to_dict()).quantile(0.95) == whole.quantile(0.95)


def test_memory_depends_on_the_range_not_the_count() -> None:
    s = Sketch()
    for i in range(200_000):
        s.add(0.001 + (i % 1000) * 100.0)  # 1 us .. 100 s, many times over
    assert s.count == 200_000
    assert len(s.buckets) < 1500


def test_no_duration_is_ignored_and_empty_has_no_quantile() -> None:
    s = Sketch()
    for v in (-1.0, math.nan, math.inf):
        s.add(v)
    assert s.count == 0 and s.quantile(0.5) is None
    s.add(0.0)
    assert s.quantile(0.99) == 0.0
