"""WhyWatch: the outstanding list is shown once the session is quiet, and only when it changed."""

from __future__ import annotations

from rpcspy.events import Frame
from rpcspy.interactive.why_watch import WhyWatch, why_panel


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def frame(seq: int, t: float, direction: str, data: bytes) -> Frame:
    return Frame(seq, t, direction, data)  # type: ignore[arg-type]


def test_due_only_when_quiet_and_changed() -> None:
    clock = Clock()
    w = WhyWatch(quiet=3.0, clock=clock)
    w.feed([frame(1, 0.5, "c2a", b'{"id":"s","type":"get_state"}')])
    assert w.due() is None, "not quiet yet"
    clock.now += 3.5
    d = w.due()
    assert d is not None and [i.kind for i in d.outstanding] == ["command"]
    assert "no response for 3.5 s" in d.outstanding[0].text, "time goes on while nothing arrives"
    clock.now += 5
    assert w.due() is None, "nothing new since it was shown"
    w.feed([frame(2, 9.0, "a2c", b'{"type":"agent_start"}')])
    clock.now += 4
    assert [i.kind for i in w.due().outstanding] == ["command", "run"]  # type: ignore[union-attr]
    w.feed([frame(3, 9.5, "a2c", b'{"id":"s","type":"response","command":"get_state","success":true}')])
    clock.now += 4
    assert [i.kind for i in w.due().outstanding] == ["run"]  # type: ignore[union-attr]


def test_panel_renders_the_sentences() -> None:
    from rich.console import Console

    w = WhyWatch()
    w.feed([frame(1, 0.5, "c2a", b'{"id":"s","type":"get_state"}')])
    console = Console(width=100, record=True, file=open("/dev/null", "w"))
    console.print(why_panel(w.now()))
    text = console.export_text()
    assert "why: waiting on" in text and "`get_state` (id 's', frame 1)" in text
