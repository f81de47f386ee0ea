"""The full-screen browser: a prompt-toolkit application around :class:`~rpcspy.browse.model.BrowseModel`.

Layout: a status line, the timeline (rows, unfolded frames under their row),
the frame pane, and an input line while ``/`` or ``f`` is typed. A background
task reads what the recording's index has not read yet, a chunk at a time, so
a large recording shows while it loads and a growing one keeps growing on screen.
"""

from __future__ import annotations

import asyncio
import os
from typing import Any

from prompt_toolkit.application import Application
from prompt_toolkit.buffer import Buffer
from prompt_toolkit.filters import Condition
from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.key_binding import KeyBindings
from prompt_toolkit.layout import ConditionalContainer, Float, FloatContainer, HSplit, Layout, Window
from prompt_toolkit.layout.controls import BufferControl, FormattedTextControl
from prompt_toolkit.layout.dimension import Dimension
from prompt_toolkit.styles import Style
from prompt_toolkit.widgets import Frame as Box

from rpcspy.browse.keys import help_text
from rpcspy.browse.model import BrowseModel
from rpcspy.recording.entries import events

POLL_SECONDS = 0.5

STYLE = Style.from_dict({
    "status": "reverse", "cursor": "reverse", "frame": "#888888", "sev-error": "#ff5f5f",
    "sev-warning": "#d7af00", "sev-info": "#5f87ff", "pane": "", "rule": "#444444", "input": "bold",
})


def _wrap(text: str, width: int) -> list[str]:
    out: list[str] = []
    for line in text.split("\n"):
        out += [line[i:i + width] for i in range(0, len(line), width)] or [""]
    return out


class BrowserApp:
    """One recording on screen."""

    def __init__(self, index: Any, model: BrowseModel, *, name: str) -> None:
        self.index, self.model, self.name = index, model, name
        self.help = False
        self.mode: str | None = None  # "/" or "f" while the input line is open
        self.detail_top = 0
        self._detail_key: Any = None
        self.input = Buffer(multiline=False, on_text_changed=self._typed)
        self.list_window = Window(FormattedTextControl(self._list_text, focusable=True, show_cursor=False),
                                  height=lambda: Dimension.exact(max((self._size()[0] - 3) * 3 // 5, 1)))
        self.detail_window = Window(FormattedTextControl(self._detail_text), style="class:pane")
        typing = Condition(lambda: self.mode is not None)
        self.input_window = Window(BufferControl(self.input), height=1, style="class:input",
                                   get_line_prefix=lambda *_: self.mode or "")
        body = HSplit([
            Window(FormattedTextControl(lambda: [("class:status", self.model.status(self.name))]), height=1,
                   style="class:status"),
            self.list_window,
            Window(height=1, char="─", style="class:rule"),
            self.detail_window,
            ConditionalContainer(self.input_window, filter=typing),
            Window(FormattedTextControl(lambda: [("class:message", self.model.message or "? for keys")]),
                   height=1, style="class:message"),
        ])
        help_box = ConditionalContainer(Box(Window(FormattedTextControl(self._help_text)), title="keys"),
                                        filter=Condition(lambda: self.help))
        self.app: Application[int] = Application(
            layout=Layout(FloatContainer(body, [Float(help_box)]), focused_element=self.list_window),
            key_bindings=self._keys(typing), style=STYLE, full_screen=True, mouse_support=False)

    # -- drawing ---------------------------------------------------------------------------------
    @staticmethod
    def _height(window: Window, default: int) -> int:
        info = window.render_info
        return info.window_height if info is not None else default

    def _size(self) -> tuple[int, int]:
        try:
            size = self.app.output.get_size()
            return size.rows, size.columns
        except Exception:  # noqa: BLE001  no terminal yet
            return 24, 80

    def _list_text(self) -> StyleAndTextTuples:
        rows, cols = self._size()
        out: StyleAndTextTuples = []
        for style, text in self.model.window(self._height(self.list_window, rows * 3 // 5)):
            out.append((style, text[:cols].ljust(cols) + "\n"))
        return out

    def _detail_text(self) -> StyleAndTextTuples:
        rows, cols = self._size()
        key = self.model.current
        if key != self._detail_key:
            self._detail_key, self.detail_top = key, 0
        lines = _wrap(self.model.detail(), max(cols, 10))
        height = self._height(self.detail_window, rows * 2 // 5)
        self.detail_top = max(0, min(self.detail_top, len(lines) - height))
        return [("", "\n".join(lines[self.detail_top:self.detail_top + height]))]

    def _help_text(self) -> str:
        import textwrap

        inner = max(self._size()[1] - 4, 30)  # the box's border and padding: nothing is clipped at 80 columns
        note = ("The filter is a JMESPath expression on each frame's JSON, plus _dir, _seq, _t, _kind and _text; "
                "e.g.  type == 'prompt'  or  _dir == 'err'")
        return help_text(inner) + "\n\n" + "\n".join(textwrap.wrap(note, inner - 2, initial_indent="  ",
                                                                   subsequent_indent="  "))

    # -- input line ------------------------------------------------------------------------------
    def _typed(self, _: Buffer) -> None:
        if self.mode == "f" and self.input.text.strip():  # say at once whether the expression compiles
            from rpcspy.where import compile_where

            try:
                compile_where(self.input.text)
                self.model.message = "Enter applies the filter"
            except ValueError as exc:
                self.model.message = str(exc).splitlines()[0]

    def _open_input(self, mode: str) -> None:
        self.mode = mode
        self.input.text = self.model.where.text if mode == "f" and self.model.where else ""
        self.input.cursor_position = len(self.input.text)
        self.app.layout.focus(self.input_window)

    def _close_input(self) -> None:
        self.mode = None
        self.app.layout.focus(self.list_window)

    def _submit(self) -> None:
        mode, text = self.mode, self.input.text
        if mode == "f":
            if not self.model.set_filter(text):
                return  # stay in the input line with the error shown
        elif text:
            self.model.search(text)
        self._close_input()

    # -- keys ------------------------------------------------------------------------------------
    def _keys(self, typing: Condition) -> KeyBindings:
        kb = KeyBindings()
        m = self.model
        browsing = ~typing & Condition(lambda: not self.help)

        def page() -> int:
            return max(self._height(self.list_window, 10) - 1, 1)

        def on(*keys: str, action: Any) -> None:
            kb.add(*keys, filter=browsing)(lambda event: action())

        for keys, action in (
            (("down",), lambda: m.move(1)), (("j",), lambda: m.move(1)),
            (("up",), lambda: m.move(-1)), (("k",), lambda: m.move(-1)),
            (("pagedown",), lambda: m.move(page())), (("pageup",), lambda: m.move(-page())),
            (("g",), m.home), (("home",), m.home), (("G",), m.end), (("end",), m.end),
            (("enter",), m.toggle), ((" ",), m.toggle),
            (("right",), lambda: m.toggle(True)), (("left",), lambda: m.toggle(False)),
            (("n",), lambda: m.search()), (("N",), lambda: m.search(forward=False)),
            (("]",), m.next_finding), (("[",), lambda: m.next_finding(forward=False)),
            (("J",), lambda: self._scroll(1)), (("K",), lambda: self._scroll(-1)),
            (("c-d",), lambda: self._scroll(10)), (("c-u",), lambda: self._scroll(-10)),
            (("/",), lambda: self._open_input("/")), (("f",), lambda: self._open_input("f")),
            (("F",), self._toggle_follow),
        ):
            on(*keys, action=action)

        @kb.add("?", filter=browsing)
        def _(event: Any) -> None:
            self.help = True

        @kb.add("<any>", filter=Condition(lambda: self.help))
        def _(event: Any) -> None:
            self.help = False

        @kb.add("q", filter=browsing)
        @kb.add("c-c")
        def _(event: Any) -> None:
            event.app.exit(result=0)

        @kb.add("enter", filter=typing)
        def _(event: Any) -> None:
            self._submit()

        @kb.add("escape", filter=typing)
        @kb.add("c-g", filter=typing)
        def _(event: Any) -> None:
            self.model.message = ""
            self._close_input()

        return kb

    def _scroll(self, n: int) -> None:
        self.detail_top = max(0, self.detail_top + n)

    def _toggle_follow(self) -> None:
        self.model.follow = not self.model.follow
        if self.model.follow:
            self.model.end()
            self.model.follow = True

    # -- reading the recording ---------------------------------------------------------------------
    async def _read(self) -> None:
        while True:
            entries, more = self.index.poll()
            if entries:
                self.model.feed(events(entries), end=not more)
                self.app.invalidate()
            await asyncio.sleep(0 if more else POLL_SECONDS)

    def run(self) -> int:
        def start() -> None:
            self.app.create_background_task(self._read())

        result = self.app.run(pre_run=start)
        return result or 0


def browse(path: str | os.PathLike[str], *, select: Any = None, flagged: Any = None, follow: bool = False,
           name: str = "", dialect: str | None = None) -> int:
    """Open the browser on a recording (``RecordingError`` if it is not one); its exit status.
    ``select``, ``flagged`` and ``dialect`` are the timeline's (the shared filter options, the
    dialect as ``check`` detects it)."""
    from rpcspy.recording.index import RecordingIndex

    index = RecordingIndex(path)
    try:
        model = BrowseModel(index.frame, select=select, flagged=flagged, follow=follow, dialect=dialect)
        return BrowserApp(index, model, name=name or os.path.basename(index.path)).run()
    finally:
        index.close()
