"""A recording whose every string an agent or client controls carries terminal attacks.

Used by tests/cli/test_terminal_escapes.py: every command that prints recorded text must show
these strings inert (no raw C0/C1 control, DEL or bidi override reaches the terminal, and rich
markup stays literal text).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

#: One of each family: OSC title, OSC 52 clipboard, OSC 8 hidden link, CSI colour (7-bit and C1),
#: C1 OSC/DCS, DEL, backspace and CR overwrite, NUL, bidi overrides and isolates, rich markup.
PAYLOAD = ("A\x1b]0;PWNED\x07B\x1b]52;c;UFdORUQ=\x07C\x1b]8;;https://evil.example/\x1b\\link\x1b]8;;\x1b\\"
           "D\x1b[38;5;199mE\x9b38;5;199mF\x9d0;C1PWNED\x9cG\x90qDCS\x9cH\x7fI\x08J\rK\x00L"
           "\u202eM\u202dN\u2066O\u2067P\u2068Q\u2069R\u200eS\u200fT\u061cU\u202aV\u202bW\u202cX"
           "[bold red]MARKUP[/bold red][link=https://evil.example/]Z[/link]")

#: Characters that must never reach a terminal raw from recorded text (newline and tab excepted).
FORBIDDEN = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
#: Colour output may hold rich's own SGR sequences; anything else with ESC is forged.
_SGR = re.compile(r"\x1b\[[0-9;]*m")


def field(name: str = "") -> str:
    return name + PAYLOAD


def entries() -> list[dict[str, Any]]:
    p = PAYLOAD
    a2c = "a2c"
    frames: list[tuple[str, Any]] = [
        ("c2a", {"id": "s1", "type": "get_state"}),
        (a2c, {"id": "s1", "type": "response", "command": "get_state", "success": True,
               "data": {p: 1, "model": {"id": p, "provider": p}, "sessionId": p}}),
        ("c2a", {"id": "p1", "type": "prompt", "message": p, p: True}),
        (a2c, {"id": "p1", "type": "response", "command": "prompt", "success": True}),
        (a2c, {"type": "agent_start"}),
        (a2c, {"type": p}),
        (a2c, {"type": "message_start", "message": {"role": "assistant", "content": [], "model": p,
                                                    "stopReason": p}}),
        (a2c, {"type": "message_update", "assistantMessageEvent": {"type": "text_delta", "contentIndex": 0,
                                                                   "delta": p}}),
        (a2c, {"type": "message_update", "assistantMessageEvent": {"type": p, "contentIndex": 0}}),
        (a2c, {"type": "message_end", "message": {"role": "assistant", "content": [{"type": "text", "text": p},
                                                                                  {"type": p, p: p}],
                                                  "stopReason": p, "errorMessage": p}}),
        (a2c, {"type": "tool_execution_start", "toolCallId": p, "toolName": p, "args": {"command": p, p: p}}),
        (a2c, {"type": "tool_execution_end", "toolCallId": p, "toolName": p,
               "result": {"content": [{"type": "text", "text": p}]}, "isError": True}),
        (a2c, {"type": "agent_end", "messages": [{"role": p, "content": p}]}),
        ("c2a", {"id": "x1", "type": p}),
        (a2c, {"id": "x1", "type": "response", "command": p, "success": False, "error": p}),
        (a2c, {"type": "extension_ui_request", "id": "d1", "method": "select", "title": p, "options": [p]}),
        ("c2a", {"type": "extension_ui_response", "id": "d1", "value": p}),
        (a2c, {"type": "extension_ui_request", "id": "d2", "method": p, "title": p}),
        ("c2a", {"id": p, "type": "prompt", "message": p}),
        (a2c, {"type": "agent_start"}),
        (a2c, {"type": "message_update", "assistantMessageEvent": {"type": "text_delta", "contentIndex": 0,
                                                                   "delta": p}}),
    ]
    out: list[dict[str, Any]] = [{"kind": "start", "pid": 1, "argv": [p]}]
    for d, j in frames:
        out.append({"kind": "frame", "dir": d, "json": j})
    out += [
        {"kind": "frame", "dir": "err", "text": p},
        {"kind": "frame", "dir": a2c, "text": p},
        {"kind": "note", "level": "warning", "text": p},
        {"kind": "finding", "rule": p, "severity": "error", "group": p, "message": p, "frame": 3, "dir": a2c,
         "path": p},
        {"kind": "spawn_failed", "error": p, "code": 127},
    ]
    for seq, e in enumerate(out, 1):
        e["seq"] = seq
        e["t"] = round(0.1 * seq, 6)
    return out


def header() -> dict[str, Any]:
    p = PAYLOAD
    return {"format": "rpcspy-recording", "version": 1, "rpcspy": p, "argv": ["pi", p], "cwd": p,
            "started": p, "started_unix": 1700000000.0, "pid": 1, "mode": "proxy", "source": p}


def write(path: Path, *, exit_entry: bool = True) -> Path:
    """The hostile recording at ``path`` (ending with an exit entry unless told not to)."""
    lines = [header(), *entries()]
    if exit_entry:
        lines.append({"kind": "exit", "seq": len(lines), "t": 9.0, "code": 1, "signal": None})
    path.write_text("".join(json.dumps(e, ensure_ascii=False) + "\n" for e in lines), encoding="utf-8")
    return path


def raw_controls(output: str) -> list[str]:
    """The forbidden characters in ``output`` (rich's own colour codes aside), with some context."""
    text = _SGR.sub("", output.replace("\x1b[38;5;199m", "\x1b!"))  # a forged SGR must stay visible
    return [repr(text[max(m.start() - 20, 0):m.end() + 20]) for m in FORBIDDEN.finditer(text)]


def markup_eaten(output: str) -> bool:
    """True when rich interpreted recorded markup: MARKUP shown without its literal tag."""
    return "XMARKUP" in output
