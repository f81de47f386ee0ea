"""A dialog the agent opened, asked at the REPL's prompt: its own prompt, its deadline, its answer."""

from __future__ import annotations

import asyncio
import time
from typing import Any, Protocol

from prompt_toolkit import PromptSession
from prompt_toolkit.completion import WordCompleter
from rich.text import Text

from rpcspy.interactive.dialogs import Dialog
from rpcspy.interactive.live import LiveView
from rpcspy.interactive.state import OpenDialog
from rpcspy.interactive.syntax import encode

ENDED, STALE, TIMEOUT, EARLY_CTRL_C = (object() for _ in range(4))
"""What a prompt returns besides the text typed: the session ended, the dialog was closed elsewhere, its
time ran out, or Ctrl-C was pressed while no prompt was open."""


class Prompter(Protocol):
    """What asking needs of the REPL (:class:`rpcspy.interactive.app.ReplApp`)."""

    loop: asyncio.AbstractEventLoop | None
    view: LiveView
    asking: tuple[Any, Any] | None
    """(dialog id, its prompt's application) while a dialog is asked."""

    def out(self, *things: Any, style: str = "") -> None: ...

    async def in_prompt(self, session: PromptSession[Any], *args: Any, **kw: Any) -> Any: ...

    async def send_line(self, line: bytes) -> None: ...


async def ask(app: Prompter, opened: OpenDialog, received: float) -> None:
    """Ask ``opened`` at its own prompt until it is answered, cancelled, timed out or closed elsewhere."""
    dialog = Dialog.from_request(opened.request)
    lines = dialog.lines()
    app.out(Text("? " + lines[0], "bold magenta"), *(Text("  " + x) for x in lines[1:]))
    deadline = received + dialog.timeout_ms / 1000 if dialog.timeout_ms is not None else None
    options = list(dialog.options) + [str(i) for i in range(1, len(dialog.options) + 1)]
    session: PromptSession[Any] = PromptSession(
        completer=WordCompleter(options) if dialog.method == "select" else None,
        multiline=dialog.method == "editor", erase_when_done=True, refresh_interval=0.5,
        bottom_toolbar=lambda: _toolbar(dialog, deadline), enable_open_in_editor=True)
    default = dialog.prefill if dialog.method == "editor" else ""
    while True:
        app.asking = (dialog.id, session.app)
        timer = app.loop.call_later(max(deadline - time.monotonic(), 0), _expire, session.app) \
            if deadline is not None and app.loop is not None else None
        try:
            text = await app.in_prompt(session, dialog.prompt(), default=default,
                                       placeholder=dialog.placeholder or None)
        except (KeyboardInterrupt, EOFError):
            text = None
        finally:
            app.asking = None
            if timer is not None:
                timer.cancel()
        if text is TIMEOUT:
            why = "timed out: the agent went on with its default"
            app.out(f"  dialog {dialog.method} {why}", style="yellow")
            app.view.state.give_up(dialog.id, why)
            return
        if text is STALE:
            why = app.view.state.why_closed(dialog.id)
            app.out(f"  dialog {dialog.method} {why}" + (" elsewhere" if why == "answered" else ""),
                    style="yellow")
            return
        if text is ENDED:
            return
        if text is None or text is EARLY_CTRL_C:
            answer = dialog.cancel()
        else:
            try:
                answer = dialog.answer(text)
            except ValueError as exc:
                app.out(f"  {exc}", style="yellow")
                continue
        await app.send_line(encode(answer))
        return


def _expire(prompt_app: Any) -> None:
    if prompt_app.is_running:
        prompt_app.exit(result=TIMEOUT)


def _toolbar(dialog: Dialog, deadline: float | None) -> str:
    keys = "Esc Enter sends, Ctrl-X Ctrl-E opens $EDITOR" if dialog.method == "editor" else "Enter answers"
    left = f" · {max(deadline - time.monotonic(), 0):.0f} s left" if deadline is not None else ""
    return f"dialog {dialog.method}: {keys}, Ctrl-C cancels{left}"
