"""The ACP rules (acp.*), each on the smallest session that shows it, and a clean session that shows none."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rpcspy.checker import Checker
from tests.checker.helpers import A, C, F, check, to_frames

V = "2.0"
FS = {"fs": {"readTextFile": True, "writeTextFile": False}, "terminal": False}


def req(id: Any, method: str, **params: Any) -> dict[str, Any]:
    return {"jsonrpc": V, "id": id, "method": method, "params": params}


def note(method: str, **params: Any) -> dict[str, Any]:
    return {"jsonrpc": V, "method": method, "params": params}


def res(id: Any, result: Any = None) -> dict[str, Any]:
    return {"jsonrpc": V, "id": id, "result": {} if result is None else result}


def upd(sid: str, **update: Any) -> dict[str, Any]:
    return note("session/update", sessionId=sid, update=update)


def opening(caps: dict[str, Any] | None = None, agent: dict[str, Any] | None = None) -> list[F]:
    return [C(req(0, "initialize", protocolVersion=1, clientCapabilities=caps or FS)),
            A(res(0, {"protocolVersion": 1, "agentCapabilities": agent or {}})),
            C(req(1, "session/new", cwd="/tmp", mcpServers=[])),
            A(res(1, {"sessionId": "s1"}))]


def prompt(id: int = 2) -> F:
    return C(req(id, "session/prompt", sessionId="s1", prompt=[{"type": "text", "text": "hi"}]))


def ids(findings: list[Any]) -> list[str]:
    return [f.rule for f in findings if f.severity != "info"]


def test_a_clean_turn_with_a_tool_and_a_permission() -> None:
    frames = [*opening(), prompt(),
              A(upd("s1", sessionUpdate="agent_thought_chunk", content={"type": "text", "text": "hm"})),
              A(upd("s1", sessionUpdate="tool_call", toolCallId="t1", title="Read", status="pending")),
              A(req(0, "session/request_permission", sessionId="s1", toolCall={"toolCallId": "t1"},
                    options=[{"optionId": "ok", "name": "Allow", "kind": "allow_once"}])),
              C(res(0, {"outcome": {"outcome": "selected", "optionId": "ok"}})),
              A(req(1, "fs/read_text_file", sessionId="s1", path="/tmp/a")),
              C(res(1, {"content": "x"})),
              A(upd("s1", sessionUpdate="tool_call_update", toolCallId="t1", status="in_progress")),
              A(upd("s1", sessionUpdate="tool_call_update", toolCallId="t1", status="completed")),
              A(upd("s1", sessionUpdate="agent_message_chunk", content={"type": "text", "text": "done"})),
              A(res(2, {"stopReason": "end_turn"}))]
    checker = Checker()
    found = []
    for frame in to_frames(frames):
        found += checker.feed(frame)
    found += checker.finish(1.0)
    assert checker.dialect == "acp-v1" and "initialize" in checker.dialect_reason
    assert [(f.rule, f.message) for f in found] == []


@pytest.mark.parametrize(("frames", "rule"), [
    ([*opening(), A(res(7))], "acp.unknown_id"),
    ([*opening(), A(res("1"))], "acp.unknown_id"),  # 1 was answered; "1" is another id
    ([*opening(), A(res(1, {"sessionId": "s1"}))], "acp.duplicate_response"),
    ([*opening(), prompt(), A({**upd("s1", sessionUpdate="plan", entries=[]), "id": 9})], "acp.notification_with_id"),
    ([*opening(), C(note("session/prompt", sessionId="s1", prompt=[]))], "acp.request_without_id"),
    ([*opening(), prompt(), A(req(5, "fs/write_text_file", sessionId="s1", path="/a", content=""))],
     "acp.capability"),
    ([*opening(), prompt(), A(req(5, "terminal/create", sessionId="s1", command="ls"))], "acp.capability"),
    ([*opening(), C(req(3, "session/load", sessionId="old", cwd="/", mcpServers=[]))], "acp.capability"),
    ([*opening(), C(req(2, "session/prompt", sessionId="s1", prompt=[{"type": "image", "data": "", "mimeType": "x"}]))],
     "acp.capability"),
    ([C(req(1, "session/new", cwd="/", mcpServers=[]))], "acp.before_initialize"),
    ([C(req(0, "initialize", protocolVersion=2)), A(res(0, {"protocolVersion": 2}))], "acp.protocol_version"),
    ([*opening(), prompt(), A(upd("s9", sessionUpdate="plan", entries=[]))], "acp.unknown_session"),
    ([*opening(), prompt(), A(upd("s1", sessionUpdate="tool_call_update", toolCallId="nope", status="completed"))],
     "acp.unknown_tool_call"),
    ([*opening(), prompt(), A(upd("s1", sessionUpdate="tool_call", toolCallId="t", title="x", status="completed")),
      A(upd("s1", sessionUpdate="tool_call_update", toolCallId="t", status="in_progress"))],
     "acp.tool_status_backwards"),
    ([*opening(), prompt(), A(req(0, "session/request_permission", sessionId="s1", toolCall={"toolCallId": "t"},
                                  options=[])), A(res(2, {"stopReason": "end_turn"}))], "acp.prompt_during_permission"),
    ([*opening(), prompt(), C(note("session/cancel", sessionId="s1")), A(res(2, {"stopReason": "end_turn"}))],
     "acp.cancel_not_honoured"),
    ([*opening(), prompt(), A(req(0, "session/request_permission", sessionId="s1", toolCall={"toolCallId": "t"},
                                  options=[{"optionId": "ok", "name": "Allow", "kind": "allow_once"}])),
      C(note("session/cancel", sessionId="s1")), C(res(0, {"outcome": {"outcome": "selected", "optionId": "ok"}})),
      A(res(2, {"stopReason": "cancelled"}))], "acp.permission_not_cancelled"),
    ([*opening(), prompt(), A({"jsonrpc": V, "id": 2, "error": {"code": "E", "message": "x"}})], "acp.bad_error"),
    ([*opening(), prompt(), A({"jsonrpc": V, "id": 2, "error": "boom"})], "acp.bad_error"),
    ([*opening(), prompt()], "acp.unanswered"),
    ([*opening(), prompt(), A(res(2, {"stopReason": "finished"}))], "schema.bad_enum"),
])
def test_each_rule_fires(frames: list[F], rule: str) -> None:
    """Every acp.* rule: tests/checker/cases.py's SPECIAL points here (tests/checker/test_rules.py checks)."""
    assert rule in ids(check(*frames, dialect="acp-v1"))
    if rule != "acp.before_initialize":  # auto: the client's `initialize` decides ACP
        assert rule in ids(check(*frames))


def test_a_cancel_honoured_is_clean() -> None:
    frames = [*opening(), prompt(), C(note("session/cancel", sessionId="s1")), A(res(2, {"stopReason": "cancelled"}))]
    assert ids(check(*frames)) == []


def test_every_acp_rule_has_a_firing_case() -> None:
    from rpcspy.checker.rules import rules_in_group

    params = next(m for m in test_each_rule_fires.pytestmark if m.name == "parametrize").args[1]  # type: ignore[attr-defined]
    assert {r.id for r in rules_in_group("acp")} <= {rule for _, rule in params}


def test_stdout_pollution_is_shared_with_pi() -> None:
    frames = [*opening(), prompt(), A(b"Debugger listening on ws://..."), A(res(2, {"stopReason": "end_turn"}))]
    assert ids(check(*frames)) == ["framing.not_json"]


def test_unanswered_says_who_owes_the_answer() -> None:
    frames = [*opening(), prompt(), A(req(0, "session/request_permission", sessionId="s1",
                                          toolCall={"toolCallId": "t"}, options=[]))]
    found = [f for f in check(*frames) if f.rule == "acp.unanswered"]
    assert [f.frame for f in found] == [5, 6]
    assert "the agent owed" in found[0].message and "the client owed" in found[1].message


def test_forced_dialect() -> None:
    assert ids(check(*opening(), prompt(), A(res(2, {"stopReason": "end_turn"})), dialect="acp-v1")) == []


_json = st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=5),
                     lambda kids: st.lists(kids, max_size=3) | st.dictionaries(st.text(max_size=5), kids, max_size=3),
                     max_leaves=8)
_ids = st.one_of(st.none(), st.integers(-3, 3), st.sampled_from(["0", "s1", ""]), st.booleans(), _json)
_methods = st.sampled_from(["initialize", "session/new", "session/prompt", "session/update", "session/cancel",
                            "session/request_permission", "fs/read_text_file", "terminal/create", "_x/y", "nope"])
_message = st.fixed_dictionaries({"jsonrpc": st.sampled_from(["2.0", "1.0", 2])}, optional={
    "id": _ids, "method": st.one_of(_methods, _json), "params": st.one_of(_json, st.fixed_dictionaries(
        {"sessionId": st.sampled_from(["s1", "s2", 1]),
         "update": st.fixed_dictionaries({"sessionUpdate": st.sampled_from(["tool_call", "tool_call_update", "plan"]),
                                          "toolCallId": st.sampled_from(["t", 1]),
                                          "status": st.sampled_from(["pending", "completed", "in_progress", 3])})})),
    "result": _json, "error": _json})


@given(st.lists(st.tuples(st.sampled_from(["c2a", "a2c"]), _message), max_size=25))
def test_hostile_traffic_never_breaks_the_acp_checker(messages: list[tuple[str, dict[str, Any]]]) -> None:
    frames = [*opening(), *(C(m) if d == "c2a" else A(m) for d, m in messages)]
    found = check(*frames, dialect="acp-v1")
    assert not [f for f in found if f.rule == "checker.internal_error"], [f.message for f in found
                                                                          if f.rule == "checker.internal_error"]
    # and the views of the same traffic: show's timeline, stats, why (live tracker)
    from rpcspy.diagnose.explain import explain
    from rpcspy.diagnose.tracker import Tracker
    from rpcspy.render.acp_timeline import timeline_for
    from rpcspy.stats import Stats

    timeline, stats, tracker = timeline_for("acp-v1"), Stats(dialect="acp-v1"), Tracker()
    for frame in to_frames(frames):
        timeline.feed(frame)
        stats.feed(frame)
        tracker.feed(frame)
    timeline.finish()
    stats.report()
    explain(tracker)
