"""``rpcspy repl`` typed into through a real pseudo-terminal, against ``rpcspy replay`` of recorded sessions.

Each test reads what the terminal shows (escape sequences removed) and the
recording the REPL session wrote.
"""

from __future__ import annotations

import json
import os
import signal
import sys
from pathlib import Path

import pytest

from rpcspy.recording import open_recording
from tests.interactive.terminal import Terminal
from tests.paths import REPO

INPUTS = REPO / "tests" / "golden" / "inputs"


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    return {**os.environ, "NO_COLOR": "1", "XDG_STATE_HOME": str(tmp_path / "state"),
            "XDG_RUNTIME_DIR": str(tmp_path / "run")}


def repl(rec: Path, transcript: str, env: dict[str, str], *replay_opts: str) -> Terminal:
    (Path(env["XDG_RUNTIME_DIR"])).mkdir(exist_ok=True)
    return Terminal.rpcspy("repl", "-o", str(rec), "--", sys.executable, "-m", "rpcspy", "replay", *replay_opts,
                           str(INPUTS / transcript), env=env)


def client_frames(rec: Path) -> list:
    return [json.loads(f.data) if f.data.startswith(b"{") else f.data
            for f in open_recording(rec).frames() if f.dir == "c2a"]


def test_commands_in_short_syntax_and_their_answers(tmp_path: Path, env: dict[str, str]) -> None:
    rec = tmp_path / "s.jsonl"
    t = repl(rec, "pi087_01_basic_text_prompt.jsonl", env, "--speed", "0", "--match", "type")
    try:
        t.wait_for("rpcspy>", "idle")
        t.set_mark()
        t.line("prompt hi there")
        shown = t.wait_for("✓ prompt #r1", "world!", "agent_settled")
        assert "→ prompt #r1  message=\"hi there\"" in shown
        assert "Hello \\u2028world!" in shown, "the assistant's text, U+2028 made visible"
        t.set_mark()
        t.type("get_st")
        t.key("tab")  # completes to get_state
        t.key("enter")
        assert "→ get_state #r2" in t.wait_for("✓ get_state #r2")
        t.set_mark()
        t.key("c-d")
        t.wait_for("agent exited with status 0")
        assert t.wait_exit() == 0
    finally:
        t.close()
    assert open_recording(rec).header.mode == "repl"
    assert client_frames(rec) == [{"id": "r1", "type": "prompt", "message": "hi there"},
                                  {"id": "r2", "type": "get_state"}]
    answers = [json.loads(f.data) for f in open_recording(rec).frames() if f.dir == "a2c"]
    assert {"r1", "r2"} <= {a.get("id") for a in answers if a.get("type") == "response"}
    history = Path(env["XDG_STATE_HOME"]) / "rpcspy" / "history"
    assert "prompt hi there" in history.read_text() and "get_state" in history.read_text()


def test_validation_refuses_bang_sends_and_json_spans_lines(tmp_path: Path, env: dict[str, str]) -> None:
    rec = tmp_path / "v.jsonl"
    t = repl(rec, "pi087_01_basic_text_prompt.jsonl", env, "--speed", "0", "--match", "type")
    try:
        t.wait_for("rpcspy>", "idle")
        t.set_mark()
        t.line("set_thinking_level ultra")
        t.wait_in_order("✗ not sent: invalid value 'ultra' for level", "prefix with !", "↑ recalls the line")
        # the prompt comes back empty: the next line is sent on its own, not appended to the refused one
        t.set_mark()
        t.line("get_state")
        t.wait_for("→ get_state #r1")
        t.set_mark()
        t.key("up")
        t.key("up")  # history: the refused line is there to fix; entering it again is refused again
        t.key("enter")  # (the screen is not read here: prompt-toolkit redraws only the cells that change)
        t.wait_for("✗ not sent: invalid value 'ultra' for level")
        t.set_mark()
        t.type("half typed")
        t.key("c-c")  # clears the line (and does not quit)
        t.set_mark()
        t.line("!set_thinking_level ultra")
        t.wait_for("→ set_thinking_level #r2  level=\"ultra\"")
        t.set_mark()
        t.line("{")
        t.line('  "type": "get_state",')
        t.line('  "id": "mine"')
        t.line("}")
        t.wait_for("→ get_state #mine", "✓ get_state #mine")
        t.set_mark()
        t.line("promt hello")
        t.wait_for("did you mean prompt?")
        t.line("/quit")  # the prompt is empty again: /quit is a line of its own
        assert t.wait_exit() == 0
    finally:
        t.close()
    assert client_frames(rec) == [{"id": "r1", "type": "get_state"},
                                  {"id": "r2", "type": "set_thinking_level", "level": "ultra"},
                                  {"type": "get_state", "id": "mine"}]


def test_dialogs_are_answered_in_place(tmp_path: Path, env: dict[str, str]) -> None:
    rec = tmp_path / "d.jsonl"
    t = repl(rec, "pi073_60_extension_ui.jsonl", env, "--speed", "0")
    try:
        t.wait_for("rpcspy>", "ui setTitle")
        t.set_mark()
        t.line("prompt /ask-select-nt")
        t.wait_for("select: Pick one (no timeout)", "1. A", "2. B", "choose 1-2>")
        t.set_mark()
        t.line("3")
        t.wait_for("type a number from 1 to 2")
        t.set_mark()
        t.line("2")
        t.wait_for('message="select-nt -> B"', "✓ prompt #r1")
        t.set_mark()
        t.line("prompt /ask-confirm")
        t.wait_for("confirm: Sure?", "Really do it?", "[y/n]>")
        t.set_mark()
        t.line("y")
        t.wait_for('message="confirm -> true"')
        t.set_mark()
        t.line("prompt /ask-input placeholder-text")
        t.wait_for("input: Your name")
        t.set_mark()
        t.key("c-c")  # cancels the dialog, does not leave
        t.wait_for('message="input -> undefined"')
        t.set_mark()
        t.key("c-d")
        assert t.wait_exit() == 0
    finally:
        t.close()
    frames = [json.loads(f.data) for f in open_recording(rec).frames() if f.data.startswith(b"{")]
    requests = {f["title"]: f["id"] for f in frames if f.get("type") == "extension_ui_request" and "title" in f
                and f.get("method") in ("select", "confirm", "input")}
    answers = [f for f in frames if f.get("type") == "extension_ui_response"]
    assert answers == [
        {"type": "extension_ui_response", "id": requests["Pick one (no timeout)"], "value": "B"},
        {"type": "extension_ui_response", "id": requests["Sure?"], "confirmed": True},
        {"type": "extension_ui_response", "id": requests["Your name"], "cancelled": True},
    ]


@pytest.mark.parametrize("press", ["key", "sigint"])
def test_ctrl_c_aborts_while_streaming_and_leaves_when_idle(tmp_path: Path, env: dict[str, str], press: str) -> None:
    """Ctrl-C as a key, or as SIGINT: what the terminal sends when Ctrl-C is pressed while the REPL
    prints (prompt-toolkit prints in cooked mode); both abort the stream, neither quits."""
    rec = tmp_path / "a.jsonl"
    t = repl(rec, "pi073_13_abort_mid_stream.jsonl", env, "--speed", "1")
    try:
        t.wait_for("rpcspy>", "idle")
        t.line("abort")  # the recording starts with an abort while idle: play it first
        t.wait_for("✓ abort #r1")
        t.set_mark()
        t.line("prompt slow please")
        t.wait_for("● streaming", "[Ctrl-C: abort]")
        t.set_mark()
        if press == "key":
            t.key("c-c")
        else:
            os.kill(t.child.pid, signal.SIGINT)
        t.wait_for("Ctrl-C: sending abort", "Request was aborted", "✓ abort #r3", "idle  [Ctrl-C: quit]")
        t.set_mark()
        t.key("c-c")
        t.wait_for("agent exited with status 0")
        assert t.wait_exit() == 0
    finally:
        t.close()
    types = [f.get("type") if isinstance(f, dict) else f for f in client_frames(rec)]
    assert types == ["abort", "prompt", "abort"]


def test_editor_dialog_and_a_dialog_that_times_out(tmp_path: Path, env: dict[str, str]) -> None:
    rec = tmp_path / "e.jsonl"
    t = repl(rec, "pi073_60_extension_ui.jsonl", env, "--speed", "1")
    try:
        t.wait_for("rpcspy>", "ui setTitle")
        t.set_mark()
        t.line("prompt /ask-select")
        t.wait_for("select: Pick one  (times out after 0.8 s)", "s left")
        t.wait_for("dialog select timed out: the agent went on with its default", 'message="select -> undefined"')
        t.set_mark()
        t.line("prompt /rpc-editor")
        t.wait_for("editor: Edit some text", "Esc Enter sends")
        t.type("\x7f" * len("Line 1\nLine 2\nLine 3"))  # rub out the prefilled text
        t.type("a")
        t.key("enter")  # a new line: Enter does not send in the editor
        t.type("b")
        t.key("esc")
        t.key("enter")
        t.wait_for('→ answer', 'value="a\\nb"', "Editor submitted (2 lines)")
        t.set_mark()
        t.key("c-d")
        assert t.wait_exit() == 0
    finally:
        t.close()
    frames = [json.loads(f.data) for f in open_recording(rec).frames() if f.data.startswith(b"{")]
    answers = [f for f in frames if f.get("type") == "extension_ui_response"]
    editor = [f for f in frames if f.get("method") == "editor"]
    assert answers == [{"type": "extension_ui_response", "id": editor[0]["id"], "value": "a\nb"}]


def test_why_shows_what_the_session_waits_on(tmp_path: Path, env: dict[str, str]) -> None:
    rec = tmp_path / "s.jsonl"
    t = repl(rec, "pi087_01_basic_text_prompt.jsonl", env, "--speed", "0", "--match", "type")
    try:
        t.wait_for("rpcspy>", "idle")
        t.set_mark()
        t.line("/why")
        assert "why: nothing outstanding" in t.wait_for("why: nothing outstanding")
        t.set_mark()
        t.line("prompt hi there")
        t.wait_for("agent_settled")
        t.set_mark()
        t.line("/why")
        shown = t.wait_for("spoke last")
        assert "why: nothing outstanding" in shown and "the agent spoke last" in shown
        t.key("c-d")
        assert t.wait_exit() == 0
    finally:
        t.close()
