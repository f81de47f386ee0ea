"""The tape's bound follows the observers' measured rate: about WORK_HORIZON seconds of their work (decided exactly)."""

from __future__ import annotations

from rpcspy.backpressure import WORK_HORIZON, WorkBound

MiB = 1 << 20


def _bound(**kw: int) -> WorkBound:
    return WorkBound(**{"floor": 16 * MiB, "ceiling": 256 * MiB, "bound": 32 * MiB, "horizon": 1.5, **kw})


def test_the_start_bound_holds_until_a_window_of_busy_time_is_measured() -> None:
    b = _bound()
    assert b.worked(MiB, 0.05) == 32 * MiB  # half a window: not a sample yet
    assert b.worked(MiB, 0.05) == int(20 * MiB * 1.5)  # 2 MiB in 0.1 s: 20 MiB/s for 1.5 s
    assert WorkBound(floor=0, ceiling=1 << 40, bound=1).worked(100, 1.0) == int(100 * WORK_HORIZON)


def test_the_bound_is_clamped_to_floor_and_ceiling() -> None:
    fast, slow = _bound(), _bound()
    assert fast.worked(1000 * MiB, 0.1) == 256 * MiB  # 10 GB/s: at most the ceiling
    assert slow.worked(1, 0.1) == 16 * MiB  # 10 bytes/s: never under the floor
    assert _bound(ceiling=4 * MiB).worked(1, 0.1) == 4 * MiB  # a ceiling under the floor wins


def test_stopped_observers_shrink_it_to_the_floor_and_resumed_ones_win_it_back() -> None:
    """SIGSTOP for 30 s shows as one chunk that took 30 s of 'busy' time; the rate stays above zero and the
    bound recovers within a few windows once they run again (each sample halves the distance)."""
    b = _bound()
    for _ in range(5):
        b.worked(10 * MiB, 0.1)  # 100 MiB/s
    assert b.bound == 150 * MiB
    assert b.worked(MiB, 30.0) < 80 * MiB  # stopped: the smoothed rate halves at once
    for _ in range(6):
        b.worked(MiB, 30.0)
    assert b.rate > 0 and b.bound == 16 * MiB
    bounds = [b.worked(10 * MiB, 0.1) for _ in range(8)]  # resumed at 100 MiB/s
    assert bounds == sorted(bounds) and bounds[-1] > 149 * MiB


def test_bursty_rates_settle_between_them() -> None:
    b = _bound()
    seen = [b.worked(20 * MiB if i % 2 else 2 * MiB, 0.1) for i in range(40)]  # 200 and 20 MiB/s in turn
    assert all(16 * MiB <= s <= 256 * MiB for s in seen)
    assert 20 * 1.5 * MiB < seen[-1] < 200 * 1.5 * MiB


def test_zero_busy_time_is_no_sample_and_never_divides_by_zero() -> None:
    b = _bound()
    for _ in range(100):
        assert b.worked(MiB, 0.0) == 32 * MiB
    assert b.worked(0, 0.1) == 256 * MiB  # the bytes of no busy time count with the next window: 1 GiB/s
