"""``rpcspy repl`` typed into through a real pseudo-terminal, in front of the real agents (fake model server)."""

from __future__ import annotations

import json
from pathlib import Path

from rpcspy.recording import open_recording
from tests.interactive.terminal import Terminal


def repl_env(agent, tmp_path: Path) -> dict[str, str]:
    (tmp_path / "run").mkdir(exist_ok=True)
    return {**agent.env, "NO_COLOR": "1", "XDG_STATE_HOME": str(tmp_path / "state"),
            "XDG_RUNTIME_DIR": str(tmp_path / "run")}


def test_prompt_state_and_quit(agent, fake_llm, tmp_path: Path) -> None:
    rec = tmp_path / "repl.jsonl"
    t = Terminal.rpcspy("repl", "-o", str(rec), "--", *agent.argv, env=repl_env(agent, tmp_path), cwd=agent.cwd)
    try:
        t.wait_for("rpcspy>", "idle", timeout=60)
        t.set_mark()
        t.line("prompt hello")
        # the reply's summary closes its streamed block ("└ stop · ..."), or heads it when the
        # whole reply arrived in one batch ("assistant  stop · ..."): either way it is shown
        shown = t.wait_for("✓ prompt #r1", "Hello \\u2028world!", "stop · 3 tokens", timeout=60)
        assert "→ prompt #r1  message=\"hello\"" in shown
        t.set_mark()
        t.line("get_state")
        assert '"provider":"fake"' in t.wait_for("✓ get_state #r2", timeout=30)
        t.set_mark()
        t.key("c-d")
        t.wait_for("agent exited with status 0", timeout=30)
        assert t.wait_exit() == 0
    finally:
        t.close()
    sent = [json.loads(f.data) for f in open_recording(rec).frames() if f.dir == "c2a"]
    assert sent == [{"id": "r1", "type": "prompt", "message": "hello"}, {"id": "r2", "type": "get_state"}]
    header = open_recording(rec).header
    assert (header.mode, header.argv) == ("repl", agent.argv)
    assert len(fake_llm.chat_requests) == 1


def test_tools_bash_and_abort_on_pi(pi_agent, fake_llm, tmp_path: Path) -> None:
    rec = tmp_path / "pi.jsonl"
    t = Terminal.rpcspy("repl", "-o", str(rec), "--", *pi_agent.argv, env=repl_env(pi_agent, tmp_path),
                        cwd=pi_agent.cwd)
    try:
        t.wait_for("rpcspy>", "idle", timeout=60)
        t.set_mark()
        t.line("prompt tool: echo out-of-the-tool")
        t.wait_for("⚙ bash", "tool bash done", "Tool said: out-of-the-tool", timeout=60)
        t.set_mark()
        t.line("bash echo straight-from-bash")
        t.wait_for("✓ bash #r2", "straight-from-bash", timeout=30)
        t.set_mark()
        t.line("prompt slow: 200")
        t.wait_for("● streaming", "tick 3", timeout=60)
        t.key("c-c")
        t.wait_for("Ctrl-C: sending abort", "aborted", "idle  [Ctrl-C: quit]", timeout=30)
        t.set_mark()
        t.key("c-c")
        t.wait_for("agent exited with status 0", timeout=30)
        assert t.wait_exit() == 0
    finally:
        t.close()
    sent = [json.loads(f.data) for f in open_recording(rec).frames() if f.dir == "c2a"]
    assert [s["type"] for s in sent] == ["prompt", "bash", "prompt", "abort"]
    findings = [e for e in open_recording(rec).entries() if type(e).__name__ == "Finding"]
    assert all(f.severity != "error" for f in findings), [f.message for f in findings]
