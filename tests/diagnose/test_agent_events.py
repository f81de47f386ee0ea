"""The agent events the diagnosis follows (rpcspy.diagnose.agent_events): every one is a real agent frame type."""

from __future__ import annotations

from rpcspy.diagnose.agent_events import EVENTS
from rpcspy.diagnose.tracker import Tracker
from rpcspy.events import Frame
from rpcspy.protocol import get_protocol
from rpcspy.protocol.spec import JSONL_DIALECTS


def test_every_event_handled_is_an_agent_frame_type_of_some_dialect() -> None:
    agent_types = {t for d in JSONL_DIALECTS for t in get_protocol(d).a2c}
    assert set(EVENTS) <= agent_types, set(EVENTS) - agent_types


def test_a_hostile_event_moves_nothing_and_raises_nothing() -> None:
    tr = Tracker()
    for i, name in enumerate(EVENTS, 1):
        EVENTS[name](tr, i, float(i), {"type": name, "id": [1], "toolCallId": {"x": 1}, "targetId": [2],
                                        "method": ["select"], "reason": 5, "timeout": "x", "steering": 3})
    tr.feed(Frame(999, 9.0, "a2c", b'{"type":"agent_end"}'))
    assert tr.run is None
