"""The live view: timeline items as ``rpcspy show`` prints them, assistant text while it streams."""

from __future__ import annotations

import io
import json

import pytest
from rich.console import Console

from rpcspy.events import Finding, Frame
from rpcspy.interactive.live import LiveView
from rpcspy.recording import open_recording
from rpcspy.recording.entries import events
from tests.paths import REPO

INPUTS = REPO / "tests" / "golden" / "inputs"
GOLDEN = ["pi073_10_streaming_steer_followup_queue", "pi073_60_extension_ui", "pi087_20_bash_and_abort_bash",
          "pi073_02_tool_call"]


def printed(renderables: list, width: int = 100, color: bool = False) -> str:
    out = io.StringIO()
    console = Console(file=out, width=width, color_system="standard" if color else None, force_terminal=color)
    for r in renderables:
        console.print(r)
    return out.getvalue()


def live_render(name: str, batch: int = 4) -> str:
    """A recording delivered ``batch`` events at a time, as the live sources deliver it."""
    view = LiveView(wrap=70)
    evs = list(events(open_recording(INPUTS / f"{name}.jsonl").entries()))
    out = []
    for i in range(0, len(evs), batch):
        out += view.feed_all(evs[i:i + batch])
    out += view.finish()
    return printed(out)


@pytest.mark.parametrize("name", GOLDEN)
def test_live_view_matches_golden(name: str, live_golden) -> None:
    live_golden(f"{name}.txt", live_render(name))


def mu(seq: int, kind: str, index: int, delta: str = "") -> Frame:
    ame = {"type": kind, "contentIndex": index}
    if kind.endswith("_delta"):
        ame["delta"] = delta
    return Frame(seq, seq / 100, "a2c", json.dumps({"type": "message_update", "assistantMessageEvent": ame}).encode())


def msg(seq: int, kind: str, content: list) -> Frame:
    body = {"type": kind, "message": {"role": "assistant", "content": content, "stopReason": "stop",
                                      "usage": {"output": 12}}}
    return Frame(seq, seq / 100, "a2c", json.dumps(body).encode())


def test_text_is_shown_line_by_line_while_it_streams() -> None:
    view = LiveView(wrap=40)
    start = view.feed_all([msg(1, "message_start", []), mu(2, "thinking_start", 0), mu(3, "thinking_delta", 0, "hmm, ")])
    assert "assistant" in printed(start) and "hmm" not in printed(start)
    assert view.tail == "hmm, "
    step = printed(view.feed_all([mu(4, "thinking_delta", 0, "let me see\nok"), mu(5, "thinking_end", 0),
                                  mu(6, "text_start", 1), mu(7, "text_delta", 1, "First line\nSec")]))
    assert step.splitlines() == [" " * 19 + "(thinking) hmm, let me see", " " * 19 + "ok", " " * 19 + "First line"]
    assert view.tail == "Sec"
    step = printed(view.feed_all([mu(8, "text_delta", 1, "ond " + "word " * 12)]))
    assert step.strip().startswith("Second word word") and len(step.splitlines()) == 1, "a long line prints at a space"
    end = printed(view.feed_all([mu(9, "text_end", 1), msg(10, "message_end", [{"type": "text", "text": "x"}])]))
    lines = end.splitlines()
    assert lines[-1].strip() == "└ stop · 12 tokens · 8 updates · 90 ms"
    assert "word" in "".join(lines[:-1]) and view.tail == ""
    whole = printed(start) + step + end
    assert whole.count("Second") == 1, "nothing is printed twice"


def test_thinking_is_dimmed_and_findings_follow_the_message() -> None:
    view = LiveView()
    out = view.feed_all([msg(1, "message_start", []), mu(2, "thinking_start", 0), mu(3, "thinking_delta", 0, "deep\n")])
    out += view.feed_all([msg(4, "message_end", [{"type": "thinking", "thinking": "deep"}]),
                          Finding(5, 0.05, "stream.x", "warning", "stream", "odd end", frame=4)])
    colored = printed(out, color=True)
    assert "\x1b[2;3m" in colored or "\x1b[3;2m" in colored, "thinking in dim italics"
    plain = printed(out)
    assert "⚠ warning stream.x: odd end" in plain
    assert plain.index("deep") < plain.index("odd end") < plain.index("└")


def test_a_message_delivered_at_once_prints_like_show() -> None:
    view = LiveView()
    out = printed(view.feed_all([msg(1, "message_start", []), mu(2, "text_start", 0), mu(3, "text_delta", 0, "hi"),
                                 msg(4, "message_end", [{"type": "text", "text": "hi"}])]))
    assert out.splitlines()[1].strip() == "hi" and "└" not in out


def test_agent_text_cannot_drive_the_terminal() -> None:
    view = LiveView()
    out = printed(view.feed_all([msg(1, "message_start", []), mu(2, "text_start", 0),
                                 mu(3, "text_delta", 0, "\x1b[2J\x1b]0;pwned\x07 line\n")]), color=True)
    assert "\x1b[2J" not in out and "\x1b]0" not in out and "\\e[2J" in out


def test_info_findings_are_hidden_unless_asked_for() -> None:
    frame = Frame(1, 0.1, "a2c", b'{"type":"agent_start","newField":1}')
    info = Finding(seq=2, t=0.1, rule="schema.unknown_field", severity="info", group="schema",
                   message="unknown field 'newField' in agent_start", frame=1, dir="a2c", path="$.newField")
    warning = Finding(seq=3, t=0.1, rule="correlation.unanswered", severity="warning", group="correlation",
                      message="command never answered", frame=1, dir="a2c")
    quiet, loud = LiveView(), LiveView(show_info=True)
    shown = [printed(view.feed_all([frame, info, warning]) + view.finish()) for view in (quiet, loud)]
    assert "unknown field" not in shown[0] and "never answered" in shown[0]
    assert "unknown field" in shown[1] and "never answered" in shown[1]
