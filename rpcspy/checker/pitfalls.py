"""Client pitfalls that are protocol facts, reported as findings.

The diagnosis tracker (:mod:`rpcspy.diagnose`) is their one home: it is fed the frames
the engine decoded, and the pitfalls it notes are turned into findings of the rules
below. Pitfalls that depend on a client's choices (its timeout, its waiting) stay
with ``rpcspy why``.
"""

from __future__ import annotations

from typing import Any

from rpcspy.checker.findings import Sink
from rpcspy.diagnose.tracker import Tracker
from rpcspy.events import Frame

RULE_OF: dict[str, str] = {
    "pitfall.jsonrpc": "misuse.jsonrpc_frame",
    "pitfall.over_cap": "misuse.omp_over_cap",
    "pitfall.settle_passed": "lifecycle.response_after_settle",
}
"""Diagnosis pitfall kind -> checker rule."""


class PitfallRules:
    """Feeds a diagnosis tracker and reports the protocol-fact pitfalls it notes."""

    def __init__(self, sink: Sink) -> None:
        self.sink = sink
        self.tracker = Tracker()

    def not_json(self, frame: Frame) -> None:
        """A client line that is not JSON: the tracker pairs the id-less error that answers it."""
        self.tracker.not_json(frame)

    def frame(self, frame: Frame, obj: Any) -> None:
        tracker = self.tracker
        tracker.feed_decoded(frame, obj)
        if not tracker.pitfalls:
            return
        found, tracker.pitfalls = tracker.pitfalls, []
        for item in found:
            rule = RULE_OF.get(item.kind)
            if rule is None:
                continue
            related = item.frames[0] if len(item.frames) > 1 and item.frames[0] != frame.seq else None
            self.sink.emit(rule, frame.t, frame.seq, frame.dir, item.text, related=related)
