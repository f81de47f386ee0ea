"""The backpressure policy: wait while the observers progress, cut a gap once they stall (decided exactly)."""

from __future__ import annotations

from rpcspy.backpressure import STALL_AFTER, Backpressure, Verdict

WAIT, CUT = Verdict.WAIT, Verdict.CUT


def test_at_the_bound_it_waits_while_the_observers_progress_however_long() -> None:
    gate = Backpressure(stall_after=2.0)
    verdicts = [gate.decide(position=i, now=i * 1.5) for i in range(1000)]  # 1,500 s, moving
    assert set(verdicts) == {WAIT}


def test_it_cuts_once_they_made_no_progress_for_the_stall_time() -> None:
    gate = Backpressure(stall_after=2.0)
    assert [gate.decide(position=7, now=t) for t in (10.0, 11.0, 11.99)] == [WAIT] * 3
    assert gate.decide(position=7, now=12.0) is CUT
    assert gate.decide(position=7, now=12.001) is CUT  # stalled: no more waiting


def test_after_a_stall_any_progress_makes_it_wait_again() -> None:
    gate = Backpressure(stall_after=2.0)
    gate.decide(position=1, now=0.0)
    assert gate.decide(position=1, now=5.0) is CUT
    assert gate.decide(position=2, now=6.0) is WAIT  # resumed (SIGCONT): wait again
    assert gate.decide(position=2, now=7.9) is WAIT
    assert gate.decide(position=2, now=8.0) is CUT


def test_a_new_stay_at_the_bound_restarts_the_stall_time_from_the_moved_position() -> None:
    gate = Backpressure(stall_after=2.0)
    gate.decide(position=1, now=0.0)
    assert gate.decide(position=2, now=1.5) is WAIT  # room came from progress: the position moved
    assert gate.decide(position=2, now=3.4) is WAIT
    assert gate.decide(position=2, now=3.5) is CUT


def test_no_patience_cuts_at_once() -> None:
    assert Backpressure(stall_after=0).decide(position=3, now=0.0) is CUT


def test_the_default_stall_time() -> None:
    assert Backpressure().stall_after == STALL_AFTER == 2.0


def test_a_running_observer_is_never_cut_for_being_slow_only_when_halted_or_stuck() -> None:
    """Issue 20: gaps only for an observer process that is stopped or dead; a running one that takes nothing
    is waited for up to STUCK_AFTER (a deadlock must not hold the agent for good)."""
    from rpcspy.backpressure import STUCK_AFTER

    gate = Backpressure(stall_after=2.0)
    gate.decide(position=1, now=0.0, halted=False)
    assert gate.decide(position=1, now=STUCK_AFTER - 0.1, halted=False) is WAIT  # running, far behind
    assert gate.decide(position=1, now=STUCK_AFTER, halted=False) is CUT  # stuck
    gate = Backpressure(stall_after=2.0)
    gate.decide(position=1, now=0.0, halted=False)
    assert gate.decide(position=1, now=1.9, halted=True) is WAIT  # just stopped
    assert gate.decide(position=1, now=2.0, halted=True) is CUT  # stopped, no progress for the stall time
    assert gate.decide(position=2, now=3.0, halted=False) is WAIT  # resumed


def test_no_patience_cuts_at_once_even_a_running_observer() -> None:
    gate = Backpressure(stall_after=0)
    assert gate.decide(position=1, now=0.0, halted=False) is CUT
    assert gate.decide(position=1, now=0.1, halted=False) is CUT
