"""``rpcspy repl`` as an ACP client (JSON-RPC 2.0), typed into through a pseudo-terminal, in front of the SDK-built
test agent (tests/support/acp_agent.py): requests numbered, notifications not, the ACP timeline shown live."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from rpcspy.recording import open_recording
from tests.interactive.terminal import Terminal

pytest.importorskip("acp")
REPO = Path(__file__).resolve().parents[2]


def repl_on_test_agent(tmp_path: Path, rec: Path, *, cwd: Path) -> Terminal:
    """``rpcspy repl -o REC`` in a pty in front of the SDK test agent, with its own state and runtime dirs."""
    (tmp_path / "run").mkdir()
    env = {"NO_COLOR": "1", "XDG_STATE_HOME": str(tmp_path / "state"), "XDG_RUNTIME_DIR": str(tmp_path / "run")}
    return Terminal.rpcspy("repl", "-o", str(rec), "--", sys.executable, "-m", "tests.support.acp_agent",
                           env={**os.environ, **env}, cwd=cwd)


def test_the_repl_speaks_acp(tmp_path: Path) -> None:
    rec = tmp_path / "repl.jsonl"
    t = repl_on_test_agent(tmp_path, rec, cwd=REPO)
    try:
        t.wait_for("rpcspy>", timeout=60)
        t.line('{"method":"initialize","params":{"protocolVersion":1}}')
        t.wait_for("✓ initialize #r1", timeout=60)
        t.set_mark()
        t.line(f'{{"method":"session/new","params":{{"cwd":"{tmp_path}","mcpServers":[]}}}}')
        t.wait_for("✓ session/new #r2", "test-session-1", timeout=60)
        t.set_mark()
        t.line('{"method":"session/prompt","params":{"sessionId":"test-session-1","prompt":[{"type":"text","text":"hi"}]}}')
        t.wait_for("hello from the test agent", "end_turn", timeout=60)
        t.set_mark()
        t.line('{"method":"session/cancel","params":{"sessionId":"test-session-1"}}')  # a notification: no id
        t.line('{"method":"session/new","params":{}}')  # refused: the schema wants cwd and mcpServers
        t.wait_for("not sent", timeout=30)
        t.key("c-d")
        assert t.wait_exit() == 0
    finally:
        t.close()
    sent = [json.loads(f.data) for f in open_recording(rec).frames() if f.dir == "c2a"]
    assert [(m.get("id"), m["method"]) for m in sent] == [("r1", "initialize"), ("r2", "session/new"),
                                                         ("r3", "session/prompt"), (None, "session/cancel")]
    assert all(m["jsonrpc"] == "2.0" for m in sent)


def test_the_acp_short_syntax_and_completion(tmp_path: Path) -> None:
    """`initialize`, `new`, `prompt TEXT`, `answer OPTION` (completed from the open permission request's
    options) and `cancel`, on the session the agent opened; method names complete from the ACP spec."""
    rec = tmp_path / "repl.jsonl"
    t = repl_on_test_agent(tmp_path, rec, cwd=tmp_path)
    try:
        t.wait_for("rpcspy>", timeout=60)
        t.type("initi")
        t.key("tab")  # initialize: a word of ACP's, offered before the dialect is known
        t.key("enter")
        t.wait_for("✓ initialize #r1", timeout=60)
        t.set_mark()
        t.line("new")
        t.wait_for("✓ session/new #r2", "test-session-1", timeout=60)
        t.set_mark()
        t.line("prompt hello")
        t.wait_for("hello from the test agent", "end_turn", timeout=60)
        t.set_mark()
        t.line("prompt deny")
        t.wait_for("permission?", timeout=60)
        t.set_mark()
        t.type("answer rej")
        t.key("tab")  # the request's own option ids
        t.key("enter")
        t.wait_for("permission: reject", timeout=60)
        t.set_mark()
        t.type("session/set_m")
        t.key("tab")  # session/set_mode, from the spec
        t.type(" ")
        t.key("tab")  # its one param not filled in: modeId=
        t.type("ask")
        t.key("enter")
        t.wait_for("session/set_mode #r5", timeout=60)
        t.set_mark()
        t.line("prompt slow:1")
        t.wait_for("tick", timeout=60)
        t.line("cancel")
        t.wait_for("cancelled", timeout=60)
        t.key("c-d")
        assert t.wait_exit() == 0
    finally:
        t.close()
    sent = [json.loads(f.data) for f in open_recording(rec).frames() if f.dir == "c2a"]
    assert [(m.get("id"), m.get("method")) for m in sent] == [
        ("r1", "initialize"), ("r2", "session/new"), ("r3", "session/prompt"), ("r4", "session/prompt"),
        (0, None), ("r5", "session/set_mode"), ("r6", "session/prompt"), (None, "session/cancel")]
    assert sent[1]["params"] == {"cwd": str(tmp_path), "mcpServers": []}
    assert sent[2]["params"] == {"sessionId": "test-session-1", "prompt": [{"type": "text", "text": "hello"}]}
    assert sent[4]["result"] == {"outcome": {"outcome": "selected", "optionId": "reject"}}
    assert sent[5]["params"] == {"modeId": "ask", "sessionId": "test-session-1"}
    assert sent[7]["params"] == {"sessionId": "test-session-1"}
