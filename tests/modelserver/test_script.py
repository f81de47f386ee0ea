"""The scripted model's replies (pure): several tool calls in one message."""

from __future__ import annotations

import json

from rpcspy.modelserver.script import plan_reply


def test_tools_prompt_streams_one_call_per_command() -> None:
    reply = plan_reply({"messages": [{"role": "user", "content": "tools: echo a ;; sleep 0.1; echo b ;;"}]}, set(), 0)
    assert reply.finish_reason == "tool_calls"
    calls: dict[int, dict] = {}
    for d in reply.deltas:
        (c,) = d["tool_calls"]
        got = calls.setdefault(c["index"], {"id": None, "args": ""})
        got["id"] = c.get("id") or got["id"]
        got["args"] += c["function"]["arguments"]
    assert {i: (c["id"], json.loads(c["args"])) for i, c in calls.items()} == {
        0: ("call_1", {"command": "echo a"}), 1: ("call_2", {"command": "sleep 0.1; echo b"})}


def test_tools_prompt_answers_with_every_result() -> None:
    messages = [{"role": "user", "content": "tools: echo a ;; echo b"}, {"role": "assistant", "content": ""},
                {"role": "tool", "content": "a\n"}, {"role": "tool", "content": [{"type": "text", "text": "b"}]}]
    reply = plan_reply({"messages": messages}, set(), 0)
    assert "".join(d["content"] for d in reply.deltas) == "Tools said: a | b"
    assert reply.finish_reason == "stop"
