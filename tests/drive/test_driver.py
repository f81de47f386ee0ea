"""The driver's pacing, fed hand-made events: what it sends when, and why a step failed."""

from __future__ import annotations

import json
from typing import Any

from rpcspy.drive.driver import Driver
from rpcspy.drive.script import parse_script
from rpcspy.events import Exit, Frame


class Session:
    """Plays the agent: frames are numbered; what the driver writes is echoed as client frames."""

    def __init__(self, script: str, **kw: Any) -> None:
        self.driver = Driver(parse_script(script), **kw)
        self.seq = 0
        self.now = 0.0
        self.sent: list[dict] = []

    def _frame(self, direction: str, data: bytes) -> None:
        self.seq += 1
        self.driver.feed(Frame(self.seq, self.now, direction, data))  # type: ignore[arg-type]

    def poll(self) -> list[dict]:
        out = [json.loads(line) for line in self.driver.poll(self.now)]
        for obj in out:
            self._frame("c2a", json.dumps(obj).encode())
        self.sent += out
        return out

    def agent(self, *objs: dict) -> list[dict]:
        for obj in objs:
            self._frame("a2c", json.dumps(obj, separators=(",", ":")).encode())
        return self.poll()


def ok(command: str, id_: str, **data: Any) -> dict:
    return {"id": id_, "type": "response", "command": command, "success": True, **({"data": data} if data else {})}


RUN = [{"type": "agent_start"}, {"type": "turn_start"}]
END = [{"type": "turn_end"}, {"type": "agent_end", "messages": [], "willRetry": False}]


def delta(text: str) -> dict:
    return {"type": "message_update", "assistantMessageEvent": {"type": "text_delta", "contentIndex": 0,
                                                                "delta": text}, "usage": {}}


def test_each_step_waits_for_its_response_and_a_prompt_for_its_settle() -> None:
    s = Session('{"id":"s","type":"get_state"}\n{"id":"p","type":"prompt","message":"hi"}\n{"id":"g","type":"get_messages"}')
    assert [m["id"] for m in s.poll()] == ["s"]
    assert s.poll() == [], "no response yet"
    assert [m["id"] for m in s.agent(ok("get_state", "s"))] == ["p"]
    assert s.agent(ok("prompt", "p", disposition="started")) == [], "the run has not started"
    assert s.agent(*RUN, delta("a"), *END) == [], "agent_end is not the settle of pi >= 0.84"
    assert [m["id"] for m in s.agent({"type": "agent_settled"})] == ["g"]
    assert s.agent(ok("get_messages", "g")) == [] and s.driver.done and s.driver.completed
    assert s.driver.final is None, "idle at the end: nothing more to wait for"


def test_handled_prompt_waits_for_nothing_more() -> None:
    s = Session('{"id":"p","type":"prompt","message":"/x"}\n{"id":"s","type":"get_state"}')
    s.poll()
    assert [m["id"] for m in s.agent(ok("prompt", "p", disposition="handled"))] == ["s"]


def test_mid_stream_step_after_deltas_and_the_final_settle() -> None:
    s = Session('{"id":"p","type":"prompt","message":"slow","rpcspy":{"wait":{"deltas":2}}}\n'
                '{"id":"t","type":"steer","message":"stop"}')
    s.poll()
    assert s.agent(ok("prompt", "p"), *RUN, delta("a")) == []
    assert [m["id"] for m in s.agent(delta("b"))] == ["t"]
    s.agent(ok("steer", "t", disposition="queued"))
    assert not s.driver.done and s.driver.final is not None, "the script waits for the run to settle"
    s.agent(delta("c"), *END, {"type": "agent_settled"})
    assert s.driver.done and s.driver.completed and s.driver.final.ok  # type: ignore[union-attr]


def test_dialogs_are_answered_by_rule_or_cancelled() -> None:
    s = Session('{"id":"p","type":"prompt","message":"/ask","rpcspy":{"answer":{"confirm":true,"select":"first"}}}')
    s.poll()
    answers = s.agent({"type": "extension_ui_request", "id": "d1", "method": "confirm", "title": "ok?"},
                      {"type": "extension_ui_request", "id": "d2", "method": "select", "title": "which",
                       "options": ["a", "b"]},
                      {"type": "extension_ui_request", "id": "d3", "method": "input", "title": "name"},
                      {"type": "extension_ui_request", "id": "n", "method": "notify", "message": "hi"})
    assert answers == [{"type": "extension_ui_response", "id": "d1", "confirmed": True},
                       {"type": "extension_ui_response", "id": "d2", "value": "a"},
                       {"type": "extension_ui_response", "id": "d3", "cancelled": True}]


def test_timeout_says_why_and_skips_the_rest() -> None:
    s = Session('{"id":"p","type":"prompt","message":"hi","rpcspy":{"timeout":5}}\n{"id":"s","type":"get_state"}')
    s.poll()
    s.agent(ok("prompt", "p"), *RUN)
    s.now = 6.0
    assert s.poll() == [] and s.driver.done and not s.driver.completed
    first, second = s.driver.results
    assert first.status == "timeout" and "waited 5.0 s for its response and the end of its run" in first.detail
    assert "the run started at frame 3 for `prompt` (id 'p', frame 1) has not ended" in first.detail
    assert second.status == "skipped"


def test_agent_exit_ends_the_drive() -> None:
    s = Session('{"id":"s","type":"get_state"}\n{"id":"t","type":"get_state"}')
    s.poll()
    s.driver.feed(Exit(9, 0.1, 1))
    assert s.poll() == [] and s.driver.done
    assert [r.status for r in s.driver.results] == ["gone", "skipped"]
    assert "the agent exited with code 1" in s.driver.results[0].detail


def test_an_extension_command_on_pi_before_099_is_taken_as_handled_after_a_grace() -> None:
    """pi < 0.99 answers ``/name`` without a disposition and, for an extension command, starts no run:
    the drive goes on once no run came for a while, instead of waiting for a settle that never comes."""
    s = Session('{"id":"p","type":"prompt","message":"/hello"}\n{"id":"s","type":"get_state"}')
    s.poll()
    assert s.agent(ok("prompt", "p")) == [], "a run may still come"
    s.now = 0.5
    assert s.poll() == [], "still within the grace"
    s.now = 1.2
    assert [m["id"] for m in s.poll()] == ["s"]
    assert s.agent(ok("get_state", "s")) == [] and s.driver.done and s.driver.completed


def test_a_slash_prompt_that_starts_its_run_late_is_still_waited_for() -> None:
    s = Session('{"id":"p","type":"prompt","message":"/skill:x"}\n{"id":"s","type":"get_state"}')
    s.poll()
    assert s.agent(ok("prompt", "p")) == []
    s.now = 0.5
    assert s.agent(*RUN, delta("a")) == [], "its run started: wait for its settle"
    s.now = 5.0
    assert s.poll() == [], "the grace does not end a run that started"
    assert [m["id"] for m in s.agent(*END, {"type": "agent_settled"})] == ["s"]
