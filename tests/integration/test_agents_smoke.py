"""The harness itself, against each real agent: state, a text run, a tool run, thinking, abort.

Each test runs once per agent (pi 0.73.1, pi 0.87.1, omp 18.2.3) on the scripted model
server; one agent process per test keeps the module fast.
"""

from __future__ import annotations

import json

from tests.support.driver import is_response
from tests.support.fake_llm import THINKING, FakeLLM
from tests.support.scenarios import (
    assistant_events,
    joined_deltas,
    last_assistant,
    of_type,
    prompt,
)

U2028 = "\u2028".encode()


def test_session_text_tool_thinking(agent, fake_llm: FakeLLM) -> None:
    with agent.spawn() as ap:
        state = ap.request({"id": "s1", "type": "get_state"}, timeout=60)
        assert state["success"] is True
        model = state["data"]["model"]
        assert (model["provider"], model["id"], model["baseUrl"]) == ("fake", "fake-model", fake_llm.base_url)
        assert state["data"]["isStreaming"] is False

        # a plain run: streamed text from the fake server, raw U+2028 on the wire
        first = len(ap.frames)
        run = prompt(ap, agent.dialect, "hello there", "p1")
        assert of_type(run, "agent_start") and of_type(run, "agent_end")
        assert joined_deltas(run, "text_delta") == "Hello \u2028world!"
        assert last_assistant(run)["stopReason"] == "stop"
        assert any(U2028 in line for line in ap.frames[first:]), "U+2028 should cross the pipe unescaped"

        # a tool run: bash executes, its output goes back to the model
        run = prompt(ap, agent.dialect, "tool: echo hello-from-tool", "p2")
        start, = of_type(run, "tool_execution_start")
        end, = of_type(run, "tool_execution_end")
        assert start["toolName"] == "bash" and start["args"] == {"command": "echo hello-from-tool"}
        assert end["toolCallId"] == start["toolCallId"] and end["isError"] is False
        assert "hello-from-tool" in json.dumps(end["result"])
        assert assistant_events(run, "toolcall_delta"), "tool arguments should stream as deltas"
        assert joined_deltas(run, "text_delta") == "Tool said: hello-from-tool"

        # thinking: reasoning_content becomes thinking deltas, then text
        run = prompt(ap, agent.dialect, "think: carefully", "p3")
        assert joined_deltas(run, "thinking_delta") == "".join(THINKING)
        assert joined_deltas(run, "text_delta") == "Hello \u2028world!"

        assert ap.finish(timeout=30) == 0

    chats = fake_llm.chat_requests
    assert len(chats) == 4  # text, tool call, answer after the tool result, thinking
    assert all(r.body["stream"] is True and r.body["model"] == "fake-model" for r in chats)
    tool_msgs = [m for m in chats[2].body["messages"] if m.get("role") == "tool"]
    assert tool_msgs and "hello-from-tool" in json.dumps(tool_msgs[-1])


def test_abort_mid_stream(agent, fake_llm: FakeLLM) -> None:
    ticks = 400
    with agent.spawn() as ap:
        ap.send({"id": "p1", "type": "prompt", "message": f"slow: {ticks}"})
        ap.read_until(lambda m: m.get("assistantMessageEvent", {}).get("type") == "text_delta", timeout=60)
        ap.send({"id": "a1", "type": "abort"})
        run = ap.read_until(is_response("a1"), timeout=30)
        assert run[-1]["success"] is True
        assert of_type(run, "agent_end"), "the aborted run must end before the abort response"
        message = last_assistant(run)
        assert message["stopReason"] == "aborted"
        streamed = "".join(c.get("text", "") for c in message["content"])
        assert streamed.startswith("tick 0 ") and f"tick {ticks - 1} " not in streamed
        assert ap.finish(timeout=30) == 0
    assert len(fake_llm.chat_requests) == 1


def test_transient_error_is_retried(agent, fake_llm: FakeLLM) -> None:
    """``error:`` fails once with 503; the agent retries (fast, per the home's settings)."""
    recovered = lambda m: m.get("type") == "agent_end" and "Recovered answer." in json.dumps(m)  # noqa: E731
    with agent.spawn() as ap:
        ap.send({"id": "p1", "type": "prompt", "message": "error: then recover"})
        run = ap.read_until(recovered, timeout=30)
        if agent.dialect.startswith("pi-"):  # omp retries inside its provider layer, silently
            (retry,) = of_type(run, "auto_retry_start")
            assert retry["attempt"] == 1 and retry["delayMs"] == 300
            assert of_type(run, "auto_retry_end")[0]["success"] is True
        assert ap.finish(timeout=30) == 0
    assert len(fake_llm.chat_requests) == 2
