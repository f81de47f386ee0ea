"""Small frame-list builders for checker tests.

``C(obj)`` is a client (stdin) frame, ``A(obj)`` an agent (stdout) frame; objects are
JSON-encoded, bytes are taken verbatim. ``check(*frames)`` numbers them 1..n (seq),
feeds a fresh :class:`Checker`, calls ``finish`` and returns every finding.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from rpcspy.checker import Checker
from rpcspy.events import Finding, Frame


@dataclass
class F:
    dir: str
    data: bytes
    t: float | None = None
    nl: bool = True
    cr: bool = False


def _bytes(obj: Any) -> bytes:
    if isinstance(obj, bytes):
        return obj
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def C(obj: Any, **kw: Any) -> F:
    return F("c2a", _bytes(obj), **kw)


def A(obj: Any, **kw: Any) -> F:
    return F("a2c", _bytes(obj), **kw)


def to_frames(items: list[F] | tuple[F, ...]) -> list[Frame]:
    out = []
    for i, f in enumerate(items, start=1):
        t = f.t if f.t is not None else i * 0.01
        out.append(Frame(i, t, f.dir, f.data, f.nl, f.cr))  # type: ignore[arg-type]
    return out


def check(*items: F, finish: bool = True, exit_code: int | None = None, **kw: Any) -> list[Finding]:
    kw.setdefault("dialect", "auto")
    checker = Checker(**kw)
    out: list[Finding] = []
    frames = to_frames(items)
    for frame in frames:
        out += checker.feed(frame)
    if finish:
        last = frames[-1].t if frames else 0.0
        out += checker.finish(last + 10.0, exit_code=exit_code)
    return out


def hits(findings: list[Finding], rule: str) -> list[int | None]:
    """Frame seqs at which ``rule`` fired."""
    return [f.frame for f in findings if f.rule == rule]


def rules(findings: list[Finding]) -> set[str]:
    return {f.rule for f in findings}


# ---- frame builders ------------------------------------------------------------------------
def cmd(type_: str, id_: Any = None, **fields: Any) -> dict:
    obj: dict = {"type": type_, **fields}
    if id_ is not None:
        obj = {"id": id_, **obj}
    return obj


def ok(command: str, id_: Any = None, data: Any = None) -> dict:
    obj: dict = {"type": "response", "command": command, "success": True}
    if id_ is not None:
        obj = {"id": id_, **obj}
    if data is not None:
        obj["data"] = data
    return obj


def err(command: Any, id_: Any = None, error: str = "failed") -> dict:
    obj: dict = {"type": "response", "success": False, "error": error}
    if command is not None:
        obj["command"] = command
    if id_ is not None:
        obj = {"id": id_, **obj}
    return obj


def ev(type_: str, **fields: Any) -> dict:
    return {"type": type_, **fields}


USAGE = {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 0,
         "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}}


def user(text: str = "hi") -> dict:
    return {"role": "user", "content": [{"type": "text", "text": text}], "timestamp": 1}


def assistant(*content: dict, stop: str = "stop") -> dict:
    return {"role": "assistant", "content": list(content), "api": "openai-completions", "provider": "fake",
            "model": "fake-model", "usage": USAGE, "stopReason": stop, "timestamp": 2}


def text(t: str) -> dict:
    return {"type": "text", "text": t}


def tool_call(id_: str, args: dict, name: str = "bash") -> dict:
    return {"type": "toolCall", "id": id_, "name": name, "arguments": args}


def upd(kind: str, ci: int, **fields: Any) -> dict:
    """A delta-only (pi 0.84+) message_update."""
    return {"type": "message_update", "usage": USAGE,
            "assistantMessageEvent": {"type": kind, "contentIndex": ci, **fields}}


def ui_req(id_: str, method: str, **fields: Any) -> dict:
    return {"type": "extension_ui_request", "id": id_, "method": method, **fields}


def ui_resp(id_: Any, **fields: Any) -> dict:
    return {"type": "extension_ui_response", "id": id_, **fields}


def run_open() -> list[F]:
    """agent_start, turn_start, user message: the start of a run."""
    return [A(ev("agent_start")), A(ev("turn_start")),
            A(ev("message_start", message=user())), A(ev("message_end", message=user()))]


def run_close(final: dict | None = None) -> list[F]:
    final = final or assistant(text("ok"))
    return [A(ev("turn_end", message=final, toolResults=[])), A(ev("agent_end", messages=[final]))]
