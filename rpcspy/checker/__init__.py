"""The protocol checker: a pure state machine fed frames, returning findings.

``Checker(dialect="auto", strict_fields=False, ignore=frozenset(), unanswered_after=None, strict_unknown=False)``;
``feed(frame) -> list[Finding]`` for every frame, or ``feed_many(frames)`` for a batch (the same
findings; clean deltas take a fast lane), ``finish(t, exit_code=...)`` at the end.
``detect_dialect(frames)`` guesses the dialect in a first pass over a recording.
``RULES`` is the catalogue (id -> :class:`Rule`), documented in docs/rules.md.
"""

from rpcspy.checker.engine import Checker
from rpcspy.checker.rules import GROUPS, RULES, SEVERITIES, SEVERITY_RANK, Rule
from rpcspy.checker.schema import detect_dialect

__all__ = ["Checker", "GROUPS", "RULES", "Rule", "SEVERITIES", "SEVERITY_RANK", "detect_dialect"]
