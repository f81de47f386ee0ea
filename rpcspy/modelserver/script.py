"""What the scripted model server answers: pure, no sockets (the server is rpcspy.pump.commands.model_server).

Agents talk to it as provider ``fake`` (``api: openai-completions``). What it answers
depends on the text of the last user message (see :func:`plan_reply`):

===============  ==================================================================
prompt contains  reply
===============  ==================================================================
``tool:``        a ``bash`` tool call (arguments split over several chunks); the
                 command is the text after ``tool:`` or ``echo hello-from-tool``.
                 Once the tool result is in the conversation: ``Tool said: <out>``
``calls:N NAME`` N calls (default 2, at most 100) of the tool NAME (default ``bash``
                 running ``echo hello-from-tool``; any other tool gets ``{}``) in one
                 message; once their results are in: ``Tools done.``
``badargs:``     a ``bash`` tool call whose arguments stream is cut off (not JSON);
                 once the tool result is in: ``Tool said: <out>``
``think:``       ``reasoning_content`` chunks, then text
``slow:N``       N (default 100, at most 100000) text chunks, ``slow_delay`` s apart
``error:``       the first request for that prompt gets HTTP 503, retries succeed
``fail:``        HTTP 500 every time
``ratelimit:N``  the first N (default 1) requests for that prompt get HTTP 429 with
                 ``Retry-After: 0`` (an agent with auto-retry retries), then text
``big:N``        a text reply of N KiB (default 64, at most 1 GiB) in 1 KiB chunks
``tools:``       several ``bash`` tool calls in one message, one per command of
                 ``tools: CMD ;; CMD ...`` (pi runs them in parallel); once their
                 results are in: ``Tools said: <first line> | <first line> ...``
(otherwise)      ``Hello``, `` \\u2028world``, ``!``: a raw U+2028 in the text
===============  ==================================================================

Replies are deterministic: the same conversation gets the same stream.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

DEFAULT_TEXT = ["Hello", " \u2028world", "!"]
THINKING = ["Let me think. ", "Done thinking."]
TOOL_COMMAND = "echo hello-from-tool"
MODELS = ("fake-model", "fake-reasoner")


@dataclass(slots=True)
class Reply:
    """What to answer: an HTTP error, or a stream of ``delta`` objects."""

    status: int = 200
    error: str = ""
    headers: dict[str, str] = field(default_factory=dict)
    deltas: list[dict[str, Any]] = field(default_factory=list)
    finish_reason: str = "stop"
    delay: float = 0.0


def message_text(message: dict[str, Any]) -> str:
    """The text of a chat message whose content is a string or a list of parts."""
    content = message.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(p.get("text", "") for p in content if isinstance(p, dict))
    return ""


def _last_user_index(messages: list[dict[str, Any]]) -> int:
    for i in range(len(messages) - 1, -1, -1):
        if messages[i].get("role") == "user":
            return i
    return -1


def _count(prefix: str, text: str, default: int, limit: int) -> int:
    m = re.search(re.escape(prefix) + r"\s*(\d+)", text)
    return min(int(m.group(1)), limit) if m else default


def _text(parts: list[str]) -> list[dict[str, Any]]:
    return [{"content": p} for p in parts]


def _seen(seen: set[str] | dict[str, int], key: str) -> int:
    if isinstance(seen, dict):
        return seen.get(key, 0)
    return 1 if key in seen else 0


def _mark(seen: set[str] | dict[str, int], key: str) -> None:
    if isinstance(seen, dict):
        seen[key] = seen.get(key, 0) + 1
    else:
        seen.add(key)


def tool_calls_deltas(commands: list[str]) -> list[dict[str, Any]]:
    """Several ``bash`` tool calls in one message (``call_1``, ``call_2``, ...), each as :func:`tool_call_deltas`."""
    out: list[dict[str, Any]] = []
    for i, command in enumerate(commands):
        for d in tool_call_deltas(command, f"call_{i + 1}"):
            out.append({"tool_calls": [{**d["tool_calls"][0], "index": i}]})
    return out


def tool_call_deltas(command: str, call_id: str = "call_1") -> list[dict[str, Any]]:
    """A ``bash`` tool call whose JSON arguments arrive in three pieces."""
    args = json.dumps({"command": command})
    cut1, cut2 = len(args) // 3, 2 * len(args) // 3
    pieces = [args[:cut1], args[cut1:cut2], args[cut2:]]
    first = {"index": 0, "id": call_id, "type": "function", "function": {"name": "bash", "arguments": ""}}
    return [{"tool_calls": [first]}] + [
        {"tool_calls": [{"index": 0, "function": {"arguments": p}}]} for p in pieces
    ]


BAD_ARGUMENTS = '{"command": "echo cut'
"""Arguments a model cut off mid-stream: not JSON (pi >= 0.99 reports ``argumentsError`` on the call)."""


def calls_deltas(tool: str, arguments: str, n: int) -> list[dict[str, Any]]:
    """``n`` calls of ``tool`` in one message, each with the argument text ``arguments`` in two pieces."""
    out: list[dict[str, Any]] = []
    for i in range(n):
        head = {"index": i, "id": f"call_{i + 1}", "type": "function", "function": {"name": tool, "arguments": ""}}
        cut = len(arguments) // 2
        out += [{"tool_calls": [head]}] + [
            {"tool_calls": [{"index": i, "function": {"arguments": p}}]} for p in (arguments[:cut], arguments[cut:]) if p
        ]
    return out


def plan_reply(body: dict[str, Any], seen_errors: set[str] | dict[str, int], slow_delay: float) -> Reply:
    """Choose the reply for one chat-completions request (pure, apart from ``seen_errors``).

    ``seen_errors`` remembers which prompts already failed (``error:``) and how often
    (``ratelimit:``); pass the same object for every request of one server.
    """
    messages = body.get("messages") or []
    idx = _last_user_index(messages)
    prompt = message_text(messages[idx]) if idx >= 0 else ""
    after = messages[idx + 1 :] if idx >= 0 else []
    tool_results = [m for m in after if m.get("role") == "tool"]
    if "fail:" in prompt:
        return Reply(status=500, error="Internal Server Error (injected)")
    if "error:" in prompt and prompt not in seen_errors:
        _mark(seen_errors, prompt)
        return Reply(status=503, error="Service Unavailable (injected)")
    if "ratelimit:" in prompt:
        limit = _count("ratelimit:", prompt, 1, 100)
        key = "ratelimit\0" + prompt
        if _seen(seen_errors, key) < limit:
            _mark(seen_errors, key)
            return Reply(status=429, error="Rate limit reached (injected)", headers={"Retry-After": "0"})
        return Reply(deltas=_text(["Rate limit", " over."]))
    if "calls:" in prompt:
        if tool_results:
            return Reply(deltas=_text(["Tools done."]))
        n = _count("calls:", prompt, 2, 100)
        name = re.search(r"calls:\s*\d*\s*([A-Za-z_][\w-]*)?", prompt)
        tool = name.group(1) if name and name.group(1) else "bash"
        args = json.dumps({"command": TOOL_COMMAND}) if tool == "bash" else "{}"
        return Reply(deltas=calls_deltas(tool, args, n), finish_reason="tool_calls")
    if "badargs:" in prompt:
        if tool_results:
            out = message_text(tool_results[-1]).strip().splitlines()
            return Reply(deltas=_text(["Tool said: ", out[0] if out else "(nothing)"]))
        return Reply(deltas=calls_deltas("bash", BAD_ARGUMENTS, 1), finish_reason="tool_calls")
    if "tool:" in prompt:
        if tool_results:
            out = message_text(tool_results[-1]).strip().splitlines()
            return Reply(deltas=_text(["Tool said: ", out[0] if out else "(nothing)"]))
        command = prompt.split("tool:", 1)[1].strip() or TOOL_COMMAND
        return Reply(deltas=tool_call_deltas(command), finish_reason="tool_calls")
    if "tools:" in prompt:
        if tool_results:
            firsts = [(message_text(m).strip().splitlines() or ["(nothing)"])[0] for m in tool_results]
            return Reply(deltas=_text(["Tools said: ", " | ".join(firsts)]))
        commands = [c.strip() for c in prompt.split("tools:", 1)[1].split(";;") if c.strip()] or [TOOL_COMMAND]
        return Reply(deltas=tool_calls_deltas(commands[:16]), finish_reason="tool_calls")
    if "think:" in prompt:
        thinking = [{"reasoning_content": p} for p in THINKING]
        return Reply(deltas=thinking + _text(DEFAULT_TEXT))
    if "slow:" in prompt:
        n = _count("slow:", prompt, 100, 100_000)
        return Reply(deltas=_text([f"tick {i} " for i in range(n)]), delay=slow_delay)
    if "big:" in prompt:
        kib = _count("big:", prompt, 64, 1 << 20)
        line = "".join(chr(ord("a") + i % 26) for i in range(1023)) + "\n"
        return Reply(deltas=_text([line] * kib))
    if "error:" in prompt:
        return Reply(deltas=_text(["Recovered", " answer."]))
    return Reply(deltas=_text(DEFAULT_TEXT))


def sse_chunks(reply: Reply, model: str, response_id: str) -> Iterator[bytes]:
    """The ``data: {...}`` events of a streamed reply, ending with usage and ``[DONE]``."""
    base = {"id": response_id, "object": "chat.completion.chunk", "created": 1700000000, "model": model}

    def event(choices: list[dict[str, Any]], **extra: Any) -> bytes:
        obj = {**base, "choices": choices, **extra}
        return b"data: " + json.dumps(obj, ensure_ascii=False).encode() + b"\n\n"

    for i, delta in enumerate(reply.deltas):
        if i == 0:
            delta = {"role": "assistant", **delta}
        yield event([{"index": 0, "delta": delta, "finish_reason": None}])
    yield event([{"index": 0, "delta": {}, "finish_reason": reply.finish_reason}])
    usage = {"prompt_tokens": 12, "completion_tokens": max(1, len(reply.deltas)), "total_tokens": 12 + max(1, len(reply.deltas))}
    yield event([], usage=usage)
    yield b"data: [DONE]\n\n"


def error_body(reply: Reply) -> dict[str, Any]:
    """The OpenAI-style JSON body of an HTTP error reply."""
    kind = "rate_limit_exceeded" if reply.status == 429 else "server_error"
    return {"error": {"message": reply.error, "type": kind}}
