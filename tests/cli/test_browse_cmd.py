"""``rpcspy browse``, driven through a pseudo-terminal."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from rpcspy.cli import main
from tests.browse.screen import Screen
from tests.render.sample import write_sample


@pytest.fixture
def sample(tmp_path: Path) -> Path:
    return write_sample(tmp_path / "sample.jsonl")


@pytest.fixture
def term():
    made: list[Screen] = []

    def start(*args: str, ready: str = "") -> Screen:
        made.append(Screen.rpcspy("browse", *args, rows=30, cols=120))
        made[-1].wait_screen(ready)
        return made[-1]

    yield start
    for t in made:
        t.close()


def quits(t: Screen) -> None:
    t.type("q")
    assert t.wait_exit() == 0


def test_rows_help_and_quit(sample: Path, term) -> None:
    t = term(str(sample))
    t.wait_screen("sample.jsonl", "26 rows", "→ prompt #p1", "← assistant", "? for keys")
    t.type("?")
    t.wait_screen("keys", "next / previous finding", "follow: stay at the end", "quit")
    t.type("x")  # any key closes the help
    t.settle()
    quits(t)


def test_search_unfold_and_the_frame_pane(sample: Path, term) -> None:
    t = term(str(sample), ready="26 rows")
    t.type("/")
    t.line("steer")
    t.wait_screen('"type": "steer"', '"message": "be brief"')  # the frame pane shows the row's one frame
    t.type("/")
    t.line("a.txt")  # found in the frames of a tool's output
    t.wait_screen("tool bash output #call_1", "2 frames (#27..#28): Enter unfolds them")
    t.key("enter")
    t.wait_screen("#27 ← a2c  t=1.520000", "#28 ← a2c  t=1.530000")
    t.type("j")
    t.wait_screen('"type": "tool_execution_update"')
    t.type("JJJJJJ")  # scroll the frame pane
    t.wait_screen('"text": "a.txt\\n"')
    quits(t)


def test_live_filter_and_findings(sample: Path, term) -> None:
    t = term(str(sample), ready="26 rows")
    t.type("f")
    t.type("type == 'prompt")
    t.wait_screen("bad --where expression at column 9")  # told while typing
    t.type("'")
    t.wait_screen("Enter applies the filter")
    t.key("enter")
    t.wait_screen("rows matching: 1", "where type == 'prompt'", '"message": "say hello"')
    t.type("f")
    t.type("\x15")  # Ctrl-U: clear the line
    t.line("")
    t.wait_screen("filter cleared")
    t.type("]")
    t.wait_screen("info stream.partial_ahead: partial text is ahead of the deltas")
    t.type("]")
    t.wait_screen("warning correlation.idless_error")
    quits(t)


def test_follows_a_growing_recording(sample: Path, tmp_path: Path, term) -> None:
    lines = sample.read_bytes().splitlines(keepends=True)
    cut = next(n for n, line in enumerate(lines) if b'"type":"steer"' in line)
    path = tmp_path / "growing.jsonl"
    path.write_bytes(b"".join(lines[:cut]))
    t = term("--follow", str(path))
    t.wait_screen("FOLLOW", "user  \"say hello\"")
    with open(path, "ab") as f:
        f.write(b"".join(lines[cut:]))
    t.wait_screen("26 rows", "✗ nope", "■ exit 0", timeout=20)  # read as it grows, the view at the end
    quits(t)


def test_needs_a_terminal_and_a_recording(sample: Path, tmp_path: Path, term) -> None:
    res = CliRunner().invoke(main, ["browse", str(sample)])
    assert res.exit_code == 2 and "needs a terminal" in res.output
    (tmp_path / "x.txt").write_text("hello\n")
    t = term(str(tmp_path / "x.txt"))
    t.wait_screen("not an rpcspy recording")
    assert t.wait_exit() == 2  # unreadable input: the usage status, as in every command (docs/exit-codes.md)
    help_text = CliRunner().invoke(main, ["browse", "--help"]).output
    assert "Keys:" in help_text and "next / previous finding" in help_text and "--where EXPR" in help_text


def test_at_80x24_the_help_is_whole_and_unfolded_frames_show_what_they_are(sample: Path) -> None:
    from rpcspy.browse.keys import KEYS

    t = Screen.rpcspy("browse", str(sample), rows=24, cols=80)
    try:
        t.wait_screen("26 rows")
        t.type("?")
        shown = t.wait_screen("keys", "quit", "_dir == 'err'")
        inside = [ln[ln.index("│") + 1:ln.rindex("│")] for ln in shown.splitlines() if ln.count("│") >= 2]
        words = " ".join(" ".join(inside).split())  # the box's text, unwrapped
        for _key, what in KEYS:  # every description whole, wrapped inside the box, none clipped
            assert " ".join(what.split()[-2:]) in words, what
        assert "_dir == 'err'" in words
        t.type("x")
        t.type("/")
        t.line("a.txt")
        t.wait_screen("2 frames (#27..#28): Enter unfolds them")
        t.key("enter")
        t.type("jj")  # onto the row's frames (the list is 12 lines high here)
        shown = t.wait_screen("#27 ← a2c  t=1.520000", "#28 ← a2c  t=1.530000")
        line = next(ln for ln in shown.splitlines() if "#27 ← a2c" in ln)
        assert '{"type":"tool_execution_update"' in line.replace(" ", "").replace("B{", "{")  # not just a byte count
        t.type("q")
        assert t.wait_exit() == 0
    finally:
        t.close()
