"""Rich views of items: fit the width, escape what an agent prints, colour only when asked."""

from __future__ import annotations

import io

from rich.console import Console

from rpcspy.events import Finding
from rpcspy.render.items import Block, Item
from rpcspy.render.text import INDENT, ItemView, TextOptions, print_items, print_timeline
from rpcspy.render.timeline import Timeline
from tests.render.sample import sample_events

DEFAULT_OPTS = TextOptions()


def render(item: Item, width: int = 100, opts: TextOptions = DEFAULT_OPTS, color: bool = False) -> str:
    out = io.StringIO()
    console = Console(file=out, width=width, color_system="truecolor" if color else None, force_terminal=color)
    console.print(ItemView(item, opts))
    return out.getvalue()


def test_headline_fields() -> None:
    item = Item(kind="response", seq=12, t=1.5, dir="a2c", label="✓ prompt", ref="p1", latency=0.1005,
                summary="data")
    assert render(item) == "    1.500    #12 ← ✓ prompt #p1 (100 ms)  data\n"


def test_injected_frames_are_marked() -> None:
    from rpcspy.events import Frame

    item = Item(kind="command", seq=3, t=1.0, dir="c2a", label="steer", ref="s1")
    item.add_frame(Frame(3, 1.0, "c2a", b"{}", injected=True), False)
    assert item.injected
    assert render(item) == "    1.000     #3 → steer (injected) #s1\n"
    assert "\x1b[2m (injected)" in render(item, color=True)  # dim


def test_headline_is_cut_to_the_width_and_blocks_wrap_under_the_indent() -> None:
    item = Item(kind="assistant", seq=1, t=0.0, dir="a2c", label="assistant", summary="s" * 300,
                blocks=[Block("text", "word " * 40)])
    lines = render(item, width=60).splitlines()
    assert all(len(line) <= 60 for line in lines)
    assert lines[0].endswith("…")
    assert len(lines) > 2 and all(line.startswith(" " * INDENT) for line in lines[1:])
    assert all(line == line.rstrip() for line in lines)


def test_terminal_escapes_from_the_agent_never_reach_the_terminal() -> None:
    item = Item(kind="stderr", seq=1, t=0.0, dir="err", label="stderr", summary="\x1b[2J",
                blocks=[Block("output", "\x1b[31mred\x07")])
    text = render(item, color=False)
    assert "\x1b" not in text and "\x07" not in text
    assert "\\e[31mred\\x07" in text


def test_clipping_of_long_output_unless_full() -> None:
    body = "\n".join(f"line {i}" for i in range(40)) + "\n" + "x" * 1000
    item = Item(kind="tool_end", seq=1, t=0.0, dir="a2c", label="tool bash done", blocks=[Block("output", body, clip=True)])
    clipped = render(item)
    assert "line 11" in clipped and "line 12" not in clipped and "… 29 more lines" in clipped
    full = render(item, opts=TextOptions(full=True))
    assert "line 39" in full and "more lines" not in full
    one_line = Item(kind="stderr", seq=1, t=0.0, dir="err", label="stderr", blocks=[Block("output", "y" * 5000, clip=True)])
    assert "(4,700 more)" in render(one_line)


def test_assistant_text_is_never_clipped() -> None:
    body = "\n".join(f"para {i}" for i in range(30))
    item = Item(kind="assistant", seq=1, t=0.0, dir="a2c", label="assistant", blocks=[Block("text", body)])
    assert "para 29" in render(item)


def test_findings_under_their_item_and_colour_on_a_terminal() -> None:
    f = Finding(2, 0.0, "framing.crlf", "warning", "framing", "ends in CR LF", frame=1, path="$.x")
    item = Item(kind="command", seq=1, t=0.0, dir="c2a", label="get_state", findings=[f])
    plain = render(item)
    assert plain.splitlines()[1] == " " * INDENT + "⚠ warning framing.crlf: ends in CR LF  (at $.x)"
    assert "\x1b[" in render(item, color=True)


def test_print_items_counts_and_skips_hidden() -> None:
    out = io.StringIO()
    console = Console(file=out, width=100, color_system=None)
    items = [Item(kind="note", seq=1, t=0, label="a"), Item(kind="note", seq=2, t=0, label="b", selected=False)]
    counts = print_items(console, items)
    assert (counts.shown, counts.hidden) == (1, 1)
    assert "a" in out.getvalue() and " b" not in out.getvalue()
    assert counts.line() == "── 1 items · 1 hidden by the filter · 0 findings"


def test_print_timeline_on_the_sample() -> None:
    out = io.StringIO()
    counts = print_timeline(Console(file=out, width=100, color_system=None), sample_events(), Timeline())
    text = out.getvalue()
    assert counts.findings == 3
    assert "→ prompt #p1" in text and "✓ prompt #p1 (100 ms)" in text
    assert "Hello \\u2028world" in text  # the raw U+2028 does not break the line
