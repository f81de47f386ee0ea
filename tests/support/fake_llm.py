"""A scripted OpenAI-compatible streaming chat server on loopback (stdlib only).

The agents under test talk to it as provider ``fake`` (``api: openai-completions``).
What it answers depends on the text of the last user message (see :func:`plan_reply`):

===============  ==================================================================
prompt contains  reply
===============  ==================================================================
``tool:``        a ``bash`` tool call (arguments split over several chunks); the
                 command is the text after ``tool:`` or ``echo hello-from-tool``.
                 Once the tool result is in the conversation: ``Tool said: <out>``
``think:``       ``reasoning_content`` chunks, then text
``slow:N``       N (default 100, at most 100000) text chunks, ``slow_delay`` s apart
``error:``       the first request for that prompt gets HTTP 503, retries succeed
``fail:``        HTTP 500 every time
``big:N``        a text reply of N KiB (default 64, at most 1 GiB) in 1 KiB chunks
(otherwise)      ``Hello``, `` \\u2028world``, ``!``: a raw U+2028 in the text
===============  ==================================================================

Replies are deterministic. Every request is kept in :attr:`FakeLLM.requests`, so tests
can assert what the agent sent.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

DEFAULT_TEXT = ["Hello", " \u2028world", "!"]
THINKING = ["Let me think. ", "Done thinking."]
TOOL_COMMAND = "echo hello-from-tool"
MODELS = ("fake-model", "fake-reasoner")


@dataclass(slots=True)
class Request:
    """One HTTP request the server received."""

    method: str
    path: str
    headers: dict[str, str]
    body: Any = None

    @property
    def is_chat(self) -> bool:
        return self.method == "POST" and self.path.rstrip("/").endswith("/chat/completions")


@dataclass(slots=True)
class Reply:
    """What to answer: an HTTP error, or a stream of ``delta`` objects."""

    status: int = 200
    error: str = ""
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


def tool_call_deltas(command: str, call_id: str = "call_1") -> list[dict[str, Any]]:
    """A ``bash`` tool call whose JSON arguments arrive in three pieces."""
    args = json.dumps({"command": command})
    cut1, cut2 = len(args) // 3, 2 * len(args) // 3
    pieces = [args[:cut1], args[cut1:cut2], args[cut2:]]
    first = {"index": 0, "id": call_id, "type": "function", "function": {"name": "bash", "arguments": ""}}
    return [{"tool_calls": [first]}] + [
        {"tool_calls": [{"index": 0, "function": {"arguments": p}}]} for p in pieces
    ]


def plan_reply(body: dict[str, Any], seen_errors: set[str], slow_delay: float) -> Reply:
    """Choose the reply for one chat-completions request (pure, apart from ``seen_errors``)."""
    messages = body.get("messages") or []
    idx = _last_user_index(messages)
    prompt = message_text(messages[idx]) if idx >= 0 else ""
    after = messages[idx + 1 :] if idx >= 0 else []
    tool_results = [m for m in after if m.get("role") == "tool"]
    if "fail:" in prompt:
        return Reply(status=500, error="Internal Server Error (injected)")
    if "error:" in prompt and prompt not in seen_errors:
        seen_errors.add(prompt)
        return Reply(status=503, error="Service Unavailable (injected)")
    if "tool:" in prompt:
        if tool_results:
            out = message_text(tool_results[-1]).strip().splitlines()
            return Reply(deltas=_text(["Tool said: ", out[0] if out else "(nothing)"]))
        command = prompt.split("tool:", 1)[1].strip() or TOOL_COMMAND
        return Reply(deltas=tool_call_deltas(command), finish_reason="tool_calls")
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


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: "_Server"

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - quiet
        pass

    def _record(self, body: Any) -> None:
        req = Request(self.command, self.path, {k.lower(): v for k, v in self.headers.items()}, body)
        with self.server.owner._lock:
            self.server.owner.requests.append(req)

    def _send_json(self, status: int, obj: Any) -> None:
        data = json.dumps(obj).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:  # noqa: N802 - http.server API
        self._record(None)
        if self.path.rstrip("/").endswith("/models"):
            data = [{"id": m, "object": "model", "created": 1700000000, "owned_by": "fake"} for m in MODELS]
            self._send_json(200, {"object": "list", "data": data})
        else:
            self._send_json(404, {"error": {"message": f"no route {self.path}", "type": "not_found"}})

    def do_POST(self) -> None:  # noqa: N802 - http.server API
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            body = {"_unparsed": raw.decode("utf-8", "replace")}
        self._record(body)
        if not self.path.rstrip("/").endswith("/chat/completions"):
            self._send_json(404, {"error": {"message": f"no route {self.path}", "type": "not_found"}})
            return
        owner = self.server.owner
        with owner._lock:
            reply = plan_reply(body, owner._seen_errors, owner.slow_delay)
            owner._responses += 1
            response_id = f"chatcmpl-{owner._responses}"
        if reply.status != 200:
            self._send_json(reply.status, {"error": {"message": reply.error, "type": "server_error"}})
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        try:
            for chunk in sse_chunks(reply, str(body.get("model", "fake-model")), response_id):
                self.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
                self.wfile.flush()
                if reply.delay:
                    time.sleep(reply.delay)
            self.wfile.write(b"0\r\n\r\n")
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True  # the agent aborted the stream


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    owner: "FakeLLM"


class FakeLLM:
    """The scripted server; use as a context manager or call :meth:`start`/:meth:`stop`."""

    def __init__(self, *, slow_delay: float = 0.05, host: str = "127.0.0.1") -> None:
        self.slow_delay = slow_delay
        self.host = host
        self.requests: list[Request] = []
        self._lock = threading.Lock()
        self._seen_errors: set[str] = set()
        self._responses = 0
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None

    @property
    def port(self) -> int:
        assert self._server is not None, "server not started"
        return self._server.server_address[1]

    @property
    def base_url(self) -> str:
        """The ``baseUrl`` for models.json: ``http://127.0.0.1:PORT/v1``."""
        return f"http://{self.host}:{self.port}/v1"

    @property
    def chat_requests(self) -> list[Request]:
        with self._lock:
            return [r for r in self.requests if r.is_chat]

    def reset(self) -> None:
        """Forget recorded requests and which ``error:`` prompts already failed."""
        with self._lock:
            self.requests.clear()
            self._seen_errors.clear()

    def start(self) -> "FakeLLM":
        self._server = _Server((self.host, 0), _Handler)
        self._server.owner = self
        self._thread = threading.Thread(
            target=self._server.serve_forever, args=(0.05,), name="fake-llm", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def __enter__(self) -> "FakeLLM":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
