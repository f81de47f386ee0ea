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


def test_the_repl_speaks_acp(tmp_path: Path) -> None:
    rec = tmp_path / "repl.jsonl"
    (tmp_path / "run").mkdir()
    env = {"NO_COLOR": "1", "XDG_STATE_HOME": str(tmp_path / "state"), "XDG_RUNTIME_DIR": str(tmp_path / "run")}
    t = Terminal.rpcspy("repl", "-o", str(rec), "--", sys.executable, "-m", "tests.support.acp_agent",
                        env={**os.environ, **env}, cwd=REPO)
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
