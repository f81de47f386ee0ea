"""Asking a dialog at the prompt (rpcspy.interactive.ask); the whole flow runs through a pty in test_repl_replay."""

from __future__ import annotations

import time

from rpcspy.interactive import ask
from rpcspy.interactive.dialogs import Dialog


def test_the_toolbar_says_the_keys_and_the_time_left() -> None:
    editor = Dialog.from_request({"type": "extension_ui_request", "id": "d", "method": "editor", "title": "t"})
    select = Dialog.from_request({"type": "extension_ui_request", "id": "e", "method": "select", "title": "t",
                                  "options": ["a"]})
    assert "Ctrl-X Ctrl-E opens $EDITOR" in ask._toolbar(editor, None) and "left" not in ask._toolbar(editor, None)
    assert "Enter answers" in ask._toolbar(select, time.monotonic() + 30) and "s left" in ask._toolbar(select, 0.0)


def test_a_deadline_ends_a_running_prompt_with_timeout_only() -> None:
    class App:
        is_running = True
        result = None

        def exit(self, result: object) -> None:
            self.result = result

    running, gone = App(), App()
    gone.is_running = False
    ask._expire(running)
    ask._expire(gone)
    assert running.result is ask.TIMEOUT and gone.result is None
