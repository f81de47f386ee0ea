"""The REPL: a prompt-toolkit prompt under the agent's live stream (``rpcspy repl`` and ``rpcspy inject``).

Output is printed above the prompt (``patch_stdout``); the status bar shows what
is running, waiting and queued, and the line the agent is writing. Dialogs take
over the prompt while they are open and give it back, text and all. Keys:
Tab completes, Enter sends (or continues open JSON), Ctrl-C clears the line, else
aborts what runs, else leaves; Ctrl-D closes the agent's stdin and waits for it
(``inject``: detaches).
"""

from __future__ import annotations

import asyncio
import sys
import time
from collections import deque
from typing import Any

from prompt_toolkit import PromptSession
from prompt_toolkit.application import get_app
from prompt_toolkit.filters import Condition
from prompt_toolkit.key_binding import KeyBindings
from prompt_toolkit.patch_stdout import patch_stdout
from rich.console import Console
from rich.text import Text

from rpcspy.events import Event, Frame
from rpcspy.interactive import acp
from rpcspy.interactive.ask import EARLY_CTRL_C, ENDED, STALE, ask
from rpcspy.interactive.complete import ReplCompleter
from rpcspy.interactive.history import open_history
from rpcspy.interactive.live import LiveView
from rpcspy.interactive.schema import CommandSchema
from rpcspy.interactive.sigint import TypedAhead
from rpcspy.interactive.state import OpenDialog
from rpcspy.interactive.syntax import (
    HELP,
    META_COMMANDS,
    IdAllocator,
    encode,
    incomplete,
    parse,
    prepare,
)
from rpcspy.interactive.why_watch import WhyWatch, why_panel
from rpcspy.protocol.spec import ACP_V1

_DIALOG, _QUIT = object(), object()
class ReplApp:
    """One interactive session over a backend (see :mod:`rpcspy.interactive.backends`)."""

    def __init__(self, backend: Any, *, dialect: str = "auto", history: str | None = None) -> None:
        self.backend = backend
        self.fixed = None if dialect == "auto" else dialect
        self.detector: Any = None
        if self.fixed is None:
            try:
                from rpcspy.protocol import DialectDetector

                self.detector = DialectDetector()
            except ImportError:
                pass
        self.ids = IdAllocator()
        self.acp = acp.AcpContext()
        self.view = LiveView()
        self.waits = WhyWatch()
        self.history = open_history(history)
        self.console: Console | None = None
        self.loop: asyncio.AbstractEventLoop | None = None
        self._incoming: deque[Event] = deque()
        self._draining = False
        self._dialogs: deque[tuple[OpenDialog, float]] = deque()
        self.asking: tuple[Any, Any] | None = None
        """(dialog id, its prompt's application) while a dialog is asked (rpcspy.interactive.ask)."""
        self._saved = ""
        self._typed_ahead: TypedAhead | None = None
        self._ended = asyncio.Event()
        self.session: PromptSession[Any] | None = None

    # --- schema --------------------------------------------------------------------------
    def schema(self) -> CommandSchema:
        if self.fixed is not None:
            return CommandSchema(self.fixed)
        if self.detector is not None and self.detector.sure:
            return CommandSchema(self.detector.dialect)
        return CommandSchema(None)

    def acp_mode(self) -> bool | None:
        """True when the session speaks ACP, False when it speaks pi's RPC, None while unknown."""
        dialect = self.fixed or (self.detector.dialect if self.detector is not None and self.detector.sure else None)
        return None if dialect is None else dialect == ACP_V1

    def acp_context(self) -> acp.AcpContext | None:
        """The ACP context for completion, unless the session is known to speak pi's RPC."""
        return None if self.acp_mode() is False else self.acp

    # --- output --------------------------------------------------------------------------
    def out(self, *things: Any, style: str = "") -> None:
        assert self.console is not None
        for thing in things:
            if isinstance(thing, str):
                self.console.print(Text(thing, style), highlight=False)
            else:
                self.console.print(thing)

    # --- events from the backend's threads ------------------------------------------------
    def _from_thread(self, events: list[Event]) -> None:
        """Called by the backend's threads (the proxy's hub): must never raise into them."""
        try:
            if self.loop is not None:
                self.loop.call_soon_threadsafe(self._take, events)
        except RuntimeError:  # the loop is closed: the REPL is gone, the recording goes on
            pass

    def _end_from_thread(self) -> None:
        try:
            if self.loop is not None:
                self.loop.call_soon_threadsafe(self._on_end)
        except RuntimeError:
            pass

    def _take(self, events: list[Event]) -> None:
        self._incoming.extend(events)
        if not self._draining:
            self._draining = True
            self.loop.call_soon(self._drain)  # type: ignore[union-attr]

    def _drain(self) -> None:
        self._draining = False
        events, self._incoming = list(self._incoming), deque()
        if self.console is None:
            return
        self.view.wrap = max(self.console.width - 22, 20)
        self.waits.feed(events)
        for event in events:
            if self.detector is not None and not self.detector.sure and isinstance(event, Frame) \
                    and event.dir == "a2c":
                self._detect(event)
            if isinstance(event, Frame) and self.acp_mode() is not False:
                self.acp.feed(event.dir, event.seq, event.t, event.data)
            self.out(*self.view.feed(event))
        self.out(*self.view.flush())
        now = time.monotonic()
        self._dialogs.extend((d, now) for d in self.view.state.take_opened())
        self._interrupt_for_dialogs()
        self._refresh()

    def _detect(self, frame: Frame) -> None:
        import json

        try:
            self.detector.feed(json.loads(frame.data), "a2c")
        except ValueError:
            pass

    def _on_end(self) -> None:
        self._drain()  # events delivered before the end were queued before this call
        if self.console is not None:
            self.out(*self.view.finish())
        self._ended.set()
        app = self._running_app()
        if app is not None:
            app.exit(result=ENDED)

    def _running_app(self) -> Any:
        if self.asking is not None:
            return self.asking[1] if self.asking[1].is_running else None
        if self.session is not None and self.session.app.is_running:
            return self.session.app
        return None

    def _interrupt_for_dialogs(self) -> None:
        if self.asking is not None:
            dialog_id, app = self.asking
            if not self.view.state.is_open(dialog_id) and app.is_running:
                app.exit(result=STALE)
        elif self._dialogs and self.session is not None and self.session.app.is_running:
            self._saved = self.session.default_buffer.text
            self.session.app.exit(result=_DIALOG)

    def _refresh(self) -> None:
        app = self._running_app()
        if app is not None:
            app.invalidate()

    # --- the status bar ------------------------------------------------------------------
    def toolbar(self) -> Any:
        state = self.view.state
        parts: list[tuple[str, str]] = []
        for style, text in state.status_parts():
            if parts:
                parts.append(("", " · "))
            parts.append((style, text))
        idle = "detach" if self.backend.injecting else "quit"
        hint = "  [Ctrl-C: " + (state.abort_command() or idle) + "]"
        parts.append(("", hint))
        if self.view.tail:
            width = self.console.width if self.console else 80
            parts.append(("", "\n┆ " + self.view.tail[-(width - 3):]))
        return parts

    # --- the main loop -------------------------------------------------------------------
    def run(self) -> int:
        return asyncio.run(self._main())

    async def _main(self) -> int:
        self.loop = asyncio.get_running_loop()
        self._typed_ahead = TypedAhead(self.loop)
        self._ended = asyncio.Event()
        with patch_stdout(raw=True):
            self.console = Console(file=sys.stdout, highlight=False)
            self.session = PromptSession(history=self.history, completer=ReplCompleter(self.schema, self.acp_context),
                                         complete_while_typing=False, bottom_toolbar=self.toolbar,
                                         key_bindings=self._bindings(), erase_when_done=True,
                                         prompt_continuation=lambda width, *_: "." * (width - 1) + " ")
            self._intro()
            try:
                self.backend.start(self._from_thread, self._end_from_thread)
            except (OSError, ConnectionError, TimeoutError) as exc:
                self.out(f"cannot start: {exc}", style="bold red")
                return 1
            code = await self._loop()
            self.out(*self.view.finish())
        return code

    def _intro(self) -> None:
        what = "injecting into" if self.backend.injecting else "agent:"
        self.out(f"rpcspy {'inject' if self.backend.injecting else 'repl'}: {what} {self.backend.label}", style="bold")
        rec = self.backend.record_path
        if rec:
            self.out(f"recording to {rec}", style="dim")
        self.out("Tab completes · /help · Ctrl-D " + ("detaches" if self.backend.injecting else "quits"), style="dim")

    def _prompt_text(self) -> str:
        return "inject> " if self.backend.injecting else "rpcspy> "

    async def _loop(self) -> int:
        assert self.session is not None
        while True:
            if self._dialogs:
                dialog, received = self._dialogs.popleft()
                if self.view.state.is_open(dialog.id):
                    await ask(self, dialog, received)
                continue
            if self._ended.is_set():
                return await self._finish(ended=True)
            try:
                result = await self.in_prompt(self.session, self._prompt_text(), default=self._saved)
            except (EOFError, KeyboardInterrupt):
                result = _QUIT
            if result is EARLY_CTRL_C:
                if self._saved:
                    self._saved = ""
                elif not self._ctrl_c_on_empty():
                    return await self._finish(ended=False)
                continue
            if result is _DIALOG:
                continue
            self._saved = ""
            if result is ENDED:
                return await self._finish(ended=True)
            if result is _QUIT:
                return await self._finish(ended=False)
            if await self._handle(result) is _QUIT:
                return await self._finish(ended=False)

    def _bindings(self) -> KeyBindings:
        kb = KeyBindings()

        @kb.add("enter", filter=Condition(lambda: incomplete(get_app().current_buffer.text)))
        def _continue(event: Any) -> None:
            event.current_buffer.insert_text("\n")

        # "<sigint>": prompt-toolkit prints in cooked mode (run_in_terminal), where Ctrl-C
        # arrives as SIGINT; its own <sigint> binding would raise KeyboardInterrupt (quit)
        # under a user who pressed Ctrl-C to abort while the agent streamed.
        @kb.add("c-c")
        @kb.add("<sigint>")
        def _interrupt(event: Any) -> None:
            buf = event.app.current_buffer
            if buf.text:
                buf.reset()
            elif not self._ctrl_c_on_empty():
                event.app.exit(result=_QUIT)

        return kb

    def _ctrl_c_on_empty(self) -> bool:
        """Ctrl-C at an empty prompt: send the abort that fits (True), or False when idle (leave)."""
        command = self.view.state.abort_command()
        if command is None:
            return False
        self.out(f"Ctrl-C: sending {command}", style="yellow")
        asyncio.ensure_future(self._send_obj({"type": command}))
        return True

    async def in_prompt(self, session: PromptSession[Any], *args: Any, **kw: Any) -> Any:
        """``session.prompt_async``, or EARLY_CTRL_C for a Ctrl-C pressed while no prompt was open."""
        assert self._typed_ahead is not None
        try:
            if self._typed_ahead.take():
                return EARLY_CTRL_C
            return await session.prompt_async(*args, **kw)
        finally:
            self._typed_ahead.closed()

    async def _handle(self, text: str) -> Any:
        schema = self.schema()
        mode = self.acp_mode()
        short = None if mode is False else acp.parse_line(text, self.acp, sure=bool(mode))
        parsed = short if short is not None else parse(text, schema)
        if parsed.kind == "empty":
            return None
        if parsed.kind == "meta":
            return self._meta(parsed.meta, parsed.arg)
        out = prepare(parsed, schema, self.ids)
        if out.refused:
            self.out(Text.assemble(("✗ not sent: ", "bold red"), (out.refused, "red")))
            self.out("  ↑ recalls the line to fix it", style="dim")  # the prompt comes back empty
            return None
        for remark in out.remarks:
            self.out(f"  note: {remark}", style="dim")
        await self.send_line(out.line)
        return None

    async def _send_obj(self, obj: dict[str, Any]) -> None:
        await self.send_line(encode(self.ids.assign(obj)))

    async def send_line(self, line: bytes) -> None:
        assert self.loop is not None
        error = await self.loop.run_in_executor(None, self.backend.send, line)
        if error:
            self.out(f"✗ not sent: {error}", style="bold red")

    def _meta(self, name: str, arg: str) -> Any:
        if name in ("quit", "exit"):
            return _QUIT
        if name == "help":
            self.out(acp.HELP if self.acp_mode() else HELP, style="")
            for meta, help_ in META_COMMANDS.items():
                self.out(f"  /{meta:<8} {help_}", style="dim")
        elif name == "dialect":
            from rpcspy.interactive.schema import dialects

            if arg:
                if arg not in dialects() and arg != "auto":
                    self.out(f"unknown dialect {arg!r}: one of auto, {', '.join(dialects())}", style="red")
                else:
                    self.fixed = None if arg == "auto" else arg
            current = self.fixed or (self.detector.dialect + " (detected)" if self.detector and self.detector.sure
                                     else "not known yet (all dialects)")
            self.out(f"dialect: {current}", style="dim")
        elif name == "raw":
            asyncio.ensure_future(self.send_line((arg + "\n").encode()))
        elif name == "why":
            self.out(why_panel(self.waits.now()))
        return None

    # --- the end -------------------------------------------------------------------------
    async def _finish(self, ended: bool) -> int:
        if self.backend.injecting:
            if ended:
                self.out("the session ended", style="bold")
            else:
                self.backend.detach()
                self.out("detached", style="dim")
            return 0
        if not ended:
            self.out("closing the agent's stdin; waiting for it to exit (Ctrl-C stops it)", style="dim")
            self.backend.close_input()
            assert self._typed_ahead is not None
            with self._typed_ahead.instead(self.backend.terminate):
                await self._ended.wait()
        code = self.backend.wait(5.0)
        self.out(f"agent exited with status {code}", style="bold")
        return code if code is not None else 1

