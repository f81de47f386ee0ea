"""Hand-made sessions for the diagnosis: frames with explicit times, fed to a fresh tracker."""

from __future__ import annotations

from typing import Any

from rpcspy.diagnose.explain import explain
from rpcspy.diagnose.items import Diagnosis
from rpcspy.diagnose.tracker import Tracker
from rpcspy.events import Frame
from tests.checker.helpers import A, C, F, to_frames

__all__ = ["A", "C", "F", "why", "kinds", "RUN", "SETTLE"]

RUN = [{"type": "agent_start"}, {"type": "turn_start"},
       {"type": "message_start", "message": {"role": "user", "content": [{"type": "text", "text": "hi"}]}},
       {"type": "message_end", "message": {"role": "user", "content": [{"type": "text", "text": "hi"}]}}]
SETTLE = [{"type": "turn_end"}, {"type": "agent_end", "messages": []}, {"type": "agent_settled"}]


def why(*items: F, at: float | None = None, exit_code: int | None = None, eof: bool = False,
        **kw: Any) -> Diagnosis:
    tr = Tracker(**kw)
    frames: list[Frame] = to_frames(items)
    for frame in frames:
        tr.feed(frame)
    end = frames[-1].t if frames else 0.0
    if eof:
        tr.closed(len(frames) + 1, end, "c2a")
    if exit_code is not None:
        tr.exited(len(frames) + 2, end, exit_code)
    return explain(tr, at)


def kinds(items: list) -> list[str]:
    return [i.kind for i in items]
