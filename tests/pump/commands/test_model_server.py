"""The scripted model server (rpcspy model-server), spoken to over real HTTP with the stdlib client."""

from __future__ import annotations

import http.client
import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rpcspy.modelserver.script import DEFAULT_TEXT, THINKING, Reply, plan_reply, sse_chunks
from rpcspy.pump.commands.model_server import ModelServer as FakeLLM


@pytest.fixture
def server():
    with FakeLLM(slow_delay=0.001) as srv:
        yield srv


def post(srv: FakeLLM, messages: list[dict[str, Any]]) -> tuple[int, list[Any], bytes]:
    """POST a streamed chat request; return status, the decoded SSE data items, raw body."""
    conn = http.client.HTTPConnection("127.0.0.1", srv.port, timeout=10)
    body = json.dumps({"model": "fake-model", "stream": True, "messages": messages})
    conn.request("POST", "/v1/chat/completions", body, {"Content-Type": "application/json"})
    resp = conn.getresponse()
    raw = resp.read()
    conn.close()
    if resp.status != 200:
        return resp.status, [json.loads(raw)], raw
    events = [e for e in raw.split(b"\n\n") if e]
    assert all(e.startswith(b"data: ") for e in events)
    items = [e[6:] if e[6:] == b"[DONE]" else json.loads(e[6:]) for e in events]
    return resp.status, items, raw


def user(text: str) -> list[dict[str, Any]]:
    return [{"role": "system", "content": "sys"}, {"role": "user", "content": [{"type": "text", "text": text}]}]


def deltas(items: list[Any], key: str) -> str:
    return "".join(
        c["delta"].get(key, "") for item in items if isinstance(item, dict) for c in item["choices"]
    )


def test_default_reply_streams_text_with_raw_u2028(server: FakeLLM) -> None:
    status, items, raw = post(server, user("hello"))
    assert status == 200
    assert items[-1] == b"[DONE]"
    assert deltas(items, "content") == "".join(DEFAULT_TEXT) == "Hello \u2028world!"
    assert "\u2028".encode() in raw  # not escaped as \\u2028
    assert items[-2]["usage"]["prompt_tokens"] == 12
    assert [c["finish_reason"] for c in items[-3]["choices"]] == ["stop"]


def test_tool_call_then_answer_from_tool_result(server: FakeLLM) -> None:
    _, items, _ = post(server, user("tool: ls -la"))
    calls = [tc for i in items if isinstance(i, dict) for c in i["choices"] for tc in c["delta"].get("tool_calls", [])]
    assert calls[0]["id"] == "call_1" and calls[0]["function"]["name"] == "bash"
    pieces = [tc["function"]["arguments"] for tc in calls]
    assert sum(1 for p in pieces if p) == 3, "arguments arrive split over chunks"
    assert json.loads("".join(pieces)) == {"command": "ls -la"}
    assert items[-3]["choices"][0]["finish_reason"] == "tool_calls"

    history = user("tool: ls -la") + [
        {"role": "assistant", "tool_calls": [{"id": "call_1"}]},
        {"role": "tool", "tool_call_id": "call_1", "content": "total 0\nfile"},
    ]
    _, items, _ = post(server, history)
    assert deltas(items, "content") == "Tool said: total 0"


def test_default_tool_command(server: FakeLLM) -> None:
    _, items, _ = post(server, user("please tool:"))
    args = "".join(
        tc["function"].get("arguments", "")
        for i in items if isinstance(i, dict) for c in i["choices"] for tc in c["delta"].get("tool_calls", [])
    )
    assert json.loads(args) == {"command": "echo hello-from-tool"}


def test_thinking_then_text(server: FakeLLM) -> None:
    _, items, _ = post(server, user("think: hard"))
    assert deltas(items, "reasoning_content") == "".join(THINKING)
    assert deltas(items, "content") == "Hello \u2028world!"


def test_error_once_then_success_and_fail_always(server: FakeLLM) -> None:
    status, body, _ = post(server, user("error: go"))
    assert status == 503 and "injected" in body[0]["error"]["message"]
    status, items, _ = post(server, user("error: go"))
    assert status == 200 and deltas(items, "content") == "Recovered answer."
    assert post(server, user("error: other"))[0] == 503  # per prompt
    assert [post(server, user("fail: x"))[0] for _ in range(2)] == [500, 500]
    server.reset()
    assert server.requests == []
    assert post(server, user("error: go"))[0] == 503  # reset forgets


def test_rate_limit_answers_429_with_retry_after_then_text(server: FakeLLM) -> None:
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    body = json.dumps({"model": "fake-model", "stream": True, "messages": user("ratelimit:2 go")})
    statuses = []
    for _ in range(3):
        conn.request("POST", "/v1/chat/completions", body, {"Content-Type": "application/json"})
        resp = conn.getresponse()
        raw = resp.read()
        statuses.append(resp.status)
        if resp.status == 429:
            assert resp.getheader("Retry-After") == "0"
            assert json.loads(raw)["error"]["type"] == "rate_limit_exceeded"
    conn.close()
    assert statuses == [429, 429, 200]
    assert post(server, user("ratelimit: other"))[0] == 429  # default 1, counted per prompt
    assert deltas(post(server, user("ratelimit: other"))[1], "content") == "Rate limit over."


def test_slow_and_big(server: FakeLLM) -> None:
    _, items, _ = post(server, user("slow: 7"))
    assert deltas(items, "content") == "".join(f"tick {i} " for i in range(7))
    _, items, _ = post(server, user("big: 3"))
    text = deltas(items, "content")
    assert len(text) == 3 * 1024 and text.count("\n") == 3


def test_requests_recorded_and_models_listed(server: FakeLLM) -> None:
    post(server, user("a"))
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    conn.request("GET", "/v1/models")
    listing = json.loads(conn.getresponse().read())
    conn.request("GET", "/nowhere")
    assert conn.getresponse().status == 404
    assert [m["id"] for m in listing["data"]] == ["fake-model", "fake-reasoner"]
    assert [(r.method, r.path) for r in server.requests] == [
        ("POST", "/v1/chat/completions"), ("GET", "/v1/models"), ("GET", "/nowhere")
    ]
    assert len(server.chat_requests) == 1
    assert server.chat_requests[0].body["messages"][-1]["content"][0]["text"] == "a"
    assert server.base_url == f"http://127.0.0.1:{server.port}/v1"


def test_reply_ids_count_up(server: FakeLLM) -> None:
    ids = [post(server, user("x"))[1][0]["id"] for _ in range(2)]
    assert ids == ["chatcmpl-1", "chatcmpl-2"]


@given(st.text(st.characters(exclude_categories=("Nd",)), max_size=60) | st.sampled_from(["tool:", "think:", "slow:", "big:1", "error:", "fail:"]))
def test_any_prompt_gets_a_well_formed_stream(text: str) -> None:
    seen: set[str] = set()
    reply = plan_reply({"messages": [{"role": "user", "content": text}]}, seen, 0.0)
    reply = plan_reply({"messages": [{"role": "user", "content": text}]}, seen, 0.0) if reply.status == 503 else reply
    if reply.status != 200:
        assert "fail:" in text
        return
    events = list(sse_chunks(Reply(deltas=reply.deltas[:50], finish_reason=reply.finish_reason), "m", "id"))
    assert events[-1] == b"data: [DONE]\n\n"
    decoded = [json.loads(e[6:]) for e in events[:-1]]
    assert decoded[0]["choices"][0]["delta"]["role"] == "assistant"
    assert all(e.endswith(b"\n\n") and b"\n" not in e[:-2] for e in events)


def test_serve_until_signalled_stops_the_server_on_sigterm() -> None:
    import signal
    import subprocess
    import sys

    from tests.paths import REPO

    script = ("import sys\nfrom rpcspy.pump.commands.model_server import ModelServer\n"
              "srv = ModelServer().start()\nprint(srv.port, flush=True)\n"
              "srv.serve_until_signalled(lambda text: print(text, file=sys.stderr, flush=True))\n"
              "print('stopped', srv._server is None, flush=True)\n")
    proc = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env={"PYTHONPATH": str(REPO)})
    try:
        assert proc.stdout is not None and proc.stderr is not None
        port = int(proc.stdout.readline())
        assert proc.stderr.readline().strip() == "serving (Ctrl-C to stop)"
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        conn.request("GET", "/v1/models")
        assert conn.getresponse().status == 200
        conn.close()
        proc.send_signal(signal.SIGTERM)
        assert proc.stdout.readline().strip() == "stopped True"
        assert proc.wait(30) == 0
    finally:
        proc.kill()
        proc.wait()


def test_ready_runs_once_sigterm_is_handled() -> None:
    """A SIGTERM sent the moment ``ready`` announces the server stops it cleanly, not by the default action."""
    import subprocess
    import sys

    from tests.paths import REPO

    script = ("import os, signal\nfrom rpcspy.pump.commands.model_server import ModelServer\n"
              "srv = ModelServer().start()\n"
              "srv.serve_until_signalled(ready=lambda: os.kill(os.getpid(), signal.SIGTERM))\n"
              "print('stopped', srv._server is None, flush=True)\n")
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120,
                          env={"PYTHONPATH": str(REPO)})
    assert (proc.returncode, proc.stdout) == (0, "stopped True\n"), proc.stderr


def test_a_client_gone_mid_request_prints_nothing_and_other_errors_one_line(server: FakeLLM, capfd) -> None:  # noqa: ANN001
    """An agent killed mid-stream (every `rpcspy conform`) made socketserver print a 19-line
    ConnectionResetError traceback; now nothing, and any other failure is one line, no traceback."""
    handle = server._server.handle_error  # type: ignore[union-attr]
    for exc in (ConnectionResetError(104, "Connection reset by peer"), BrokenPipeError(32, "Broken pipe")):
        try:
            raise exc
        except OSError:
            handle(None, ("127.0.0.1", 4242))
    try:
        raise ValueError("odd request")
    except ValueError:
        handle(None, ("127.0.0.1", 4242))
    err = capfd.readouterr().err
    assert err == "rpcspy model-server: a request from 127.0.0.1:4242 failed: ValueError: odd request\n"


def _ask(text: str, *after: dict[str, Any]) -> Reply:
    return plan_reply({"messages": [{"role": "user", "content": text}, *after]}, {}, 0.0)


def test_calls_make_a_batch_of_tool_calls_then_text() -> None:
    reply = _ask("calls:3 slow_step")
    assert reply.finish_reason == "tool_calls"
    heads = [c for d in reply.deltas for c in d["tool_calls"] if "id" in c]
    assert [(c["index"], c["id"], c["function"]["name"]) for c in heads] == [
        (0, "call_1", "slow_step"), (1, "call_2", "slow_step"), (2, "call_3", "slow_step")]
    args = "".join(c["function"]["arguments"] for d in reply.deltas for c in d["tool_calls"] if c["index"] == 1)
    assert json.loads(args) == {}
    bash = _ask("calls: bash")
    args = "".join(c["function"]["arguments"] for d in bash.deltas for c in d["tool_calls"] if c["index"] == 0)
    assert json.loads(args) == {"command": "echo hello-from-tool"}
    assert [d["content"] for d in _ask("calls:2 x", {"role": "tool", "content": "done"}).deltas] == ["Tools done."]


def test_badargs_streams_arguments_that_are_not_json() -> None:
    reply = _ask("badargs:")
    args = "".join(c["function"]["arguments"] for d in reply.deltas for c in d["tool_calls"])
    with pytest.raises(ValueError):
        json.loads(args)
    after = _ask("badargs:", {"role": "tool", "content": "Invalid arguments for tool"})
    assert "".join(d["content"] for d in after.deltas) == "Tool said: Invalid arguments for tool"


def test_stop_leaves_no_connection_handler_running() -> None:
    """A client still connected (keep-alive, or mid-stream) when the server stops: its handler is ended, so
    nothing of the server is left inside a socket call when the process exits (rpcspy conform stops its
    server while agents may still hold connections)."""
    import socket
    import threading

    srv = FakeLLM(slow_delay=0.2).start()
    idle = socket.create_connection(("127.0.0.1", srv.port))  # connected, never sends a request
    streaming = http.client.HTTPConnection("127.0.0.1", srv.port, timeout=10)
    streaming.request("POST", "/v1/chat/completions", json.dumps({"model": "m", "stream": True,
                                                                   "messages": user("slow:200")}))
    streaming.getresponse().read(10)  # the stream has begun and goes on for ~40 s
    srv.stop(grace=0.5)
    left = [t for t in threading.enumerate() if t.name == "model-server-conn"]
    assert left == [], left
    idle.close()
    streaming.close()


def test_a_caller_can_wrap_the_plan() -> None:
    """scripts/make-samples paces every stream through ``plan=``: the server asks the plan it was given."""
    asked: list[Reply] = []

    def paced(body: dict, seen: dict, slow: float) -> Reply:
        reply = plan_reply(body, seen, slow)
        reply.delay = 0.001
        asked.append(reply)
        return reply

    with FakeLLM(plan=paced) as srv:
        status, items, _ = post(srv, user("hello"))
    assert status == 200 and deltas(items, "content") == "".join(DEFAULT_TEXT)
    assert [r.delay for r in asked] == [0.001]
