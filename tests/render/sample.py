"""A small deterministic rpcspy recording with every kind of entry, for tests.

It is written with the real writer functions, so it follows the recording format
as it is now: header, start, both directions (one client frame injected), stderr, findings,
EOF, exit.
"""

from __future__ import annotations

import json
from pathlib import Path

from rpcspy.events import Eof, Event, Exit, Finding, Frame, Start
from rpcspy.recording.format import Header, encode_entry
from rpcspy.recording.writer import event_line

HEADER = Header(rpcspy="0.1.0", argv=["pi", "--mode", "rpc"], cwd="/home/user/project",
                started="2026-11-22T08:00:00.000000Z", started_unix=1795334400.0, pid=4242)

_USAGE0 = {"input": 0, "output": 0, "totalTokens": 0}
_USAGE = {"input": 12, "output": 9, "totalTokens": 21}


def _j(obj: object) -> bytes:
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False).encode()


def _update(ame: dict, text: str) -> bytes:
    partial = {"role": "assistant", "content": [{"type": "text", "text": text}], "usage": _USAGE0}
    return _j({"type": "message_update", "assistantMessageEvent": {**ame, "partial": partial}, "message": partial})


def sample_events() -> list[Event]:
    """The session, as events with seq and t filled in."""
    seq = 0
    out: list[Event] = []

    def add(kind: str, t: float, *args: object, **kw: object) -> int:
        nonlocal seq
        seq += 1
        if kind == "frame":
            direction, data = args
            out.append(Frame(seq, t, direction, data, **kw))  # type: ignore[arg-type]
        elif kind == "finding":
            rule, severity, message, frame = args
            out.append(Finding(seq, t, rule, severity, "protocol", message, frame=frame, dir="a2c",  # type: ignore[arg-type]
                               path=kw.get("path")))  # type: ignore[arg-type]
        elif kind == "start":
            out.append(Start(seq, t, 999, ["pi", "--mode", "rpc"]))
        elif kind == "eof":
            out.append(Eof(seq, t, args[0]))  # type: ignore[arg-type]
        elif kind == "exit":
            out.append(Exit(seq, t, args[0]))  # type: ignore[arg-type]
        return seq

    a2c, c2a = "a2c", "c2a"
    add("start", 0.0)
    add("frame", 0.5, "err", b"Debugger listening: none")
    add("frame", 0.51, "err", b"warning: \x1b[31mcolour\x1b[0m and bad \xff byte")
    add("frame", 1.0, c2a, _j({"id": "p1", "type": "prompt", "message": "say hello"}))
    add("frame", 1.1, a2c, _j({"id": "p1", "type": "response", "command": "prompt", "success": True}))
    add("frame", 1.11, a2c, b'{"type":"agent_start"}')
    add("frame", 1.12, a2c, b'{"type":"turn_start"}')
    user = {"role": "user", "content": [{"type": "text", "text": "say hello"}], "timestamp": 1}
    add("frame", 1.13, a2c, _j({"type": "message_start", "message": user}))
    add("frame", 1.13, a2c, _j({"type": "message_end", "message": user}))
    start = {"role": "assistant", "content": [], "usage": _USAGE0, "stopReason": "stop"}
    add("frame", 1.2, a2c, _j({"type": "message_start", "message": start}))
    add("frame", 1.25, a2c, _update({"type": "thinking_start", "contentIndex": 0}, ""))
    add("frame", 1.26, a2c, _update({"type": "thinking_delta", "contentIndex": 0, "delta": "User wants hi."}, ""))
    add("frame", 1.3, a2c, _update({"type": "text_start", "contentIndex": 1}, "Hel"))
    d1 = add("frame", 1.31, a2c, _update({"type": "text_delta", "contentIndex": 1, "delta": "Hel"}, "Hello \u2028wor"))
    add("finding", 1.31, "stream.partial_ahead", "info", "partial text is ahead of the deltas", d1,
        path="$.assistantMessageEvent.partial")
    add("frame", 1.32, a2c, _update({"type": "text_delta", "contentIndex": 1, "delta": "lo \u2028world"}, "Hello \u2028world"))
    add("frame", 1.4, c2a, _j({"id": "s1", "type": "steer", "message": "be brief"}), injected=True)  # rpcspy inject
    add("frame", 1.41, a2c, _j({"id": "s1", "type": "response", "command": "steer", "success": True}))
    add("frame", 1.42, a2c, _update({"type": "text_delta", "contentIndex": 1, "delta": "!"}, "Hello \u2028world!"))
    add("frame", 1.43, a2c, _update({"type": "thinking_end", "contentIndex": 0, "content": "User wants hi."}, ""))
    add("frame", 1.44, a2c, _update({"type": "text_end", "contentIndex": 1, "content": "Hello \u2028world!"}, ""))
    add("frame", 1.45, a2c, _update({"type": "toolcall_start", "contentIndex": 2}, ""))
    add("frame", 1.46, a2c, _update({"type": "toolcall_delta", "contentIndex": 2, "delta": '{"command":"ls"}'}, ""))
    tc = {"type": "toolCall", "id": "call_1", "name": "bash", "arguments": {"command": "ls"}}
    add("frame", 1.47, a2c, _update({"type": "toolcall_end", "contentIndex": 2, "toolCall": tc}, ""))
    final = {"role": "assistant", "content": [{"type": "thinking", "thinking": "User wants hi."},
                                              {"type": "text", "text": "Hello \u2028world!"}, tc],
             "usage": _USAGE, "stopReason": "toolUse"}
    add("frame", 1.5, a2c, _j({"type": "message_end", "message": final}))
    add("frame", 1.51, a2c, _j({"type": "tool_execution_start", "toolCallId": "call_1", "toolName": "bash",
                                "args": {"command": "ls"}}))
    for i, text in enumerate(["a.txt\n", "a.txt\nb.txt\n"]):
        add("frame", 1.52 + i / 100, a2c, _j({"type": "tool_execution_update", "toolCallId": "call_1", "toolName": "bash",
                                              "args": {"command": "ls"},
                                              "partialResult": {"content": [{"type": "text", "text": text}]}}))
    add("frame", 1.6, a2c, _j({"type": "tool_execution_end", "toolCallId": "call_1", "toolName": "bash",
                               "result": {"content": [{"type": "text", "text": "a.txt\nb.txt\n"}]}, "isError": False}))
    add("frame", 1.7, a2c, _j({"type": "extension_ui_request", "id": "d1", "method": "confirm", "title": "Sure?",
                               "message": "Delete it?", "timeout": 5000}))
    add("frame", 2.0, c2a, _j({"type": "extension_ui_response", "id": "d1", "confirmed": True}))
    add("frame", 2.1, c2a, _j({"id": "u1", "type": "nope"}))
    r = add("frame", 2.11, a2c, _j({"type": "response", "command": "nope", "success": False,
                                    "error": "Unknown command: nope"}))
    add("finding", 2.11, "correlation.idless_error", "warning", "error response without id for `nope`", r)
    g = add("frame", 2.2, a2c, b"Debug: not json at all")
    add("finding", 2.2, "framing.not_json", "error", "agent frame is not JSON", g)
    add("frame", 2.3, c2a, b'{"id":"crlf","type":"get_state"}', cr=True)
    add("frame", 2.3, a2c, b'{"type":"turn_end","message":{"role":"assistant","stopReason":"stop"},"toolResults":[]}')
    add("frame", 2.31, a2c, b'{"type":"agent_end","messages":[]}')
    add("eof", 3.0, "c2a")
    add("frame", 3.05, a2c, b'{"type":"agent_start"', nl=False)
    add("eof", 3.1, "a2c")
    add("exit", 3.2, 0)
    return out


def write_sample(path: Path) -> Path:
    """Write the sample recording to ``path``."""
    with open(path, "wb") as f:
        f.write(encode_entry(HEADER))
        for event in sample_events():
            f.write(event_line(event))
    return path
