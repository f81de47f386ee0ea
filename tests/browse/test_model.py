"""The browser's view model: rows, folding, filter, search, findings, the frame pane, following."""

from __future__ import annotations

from rpcspy.browse.model import BrowseModel
from rpcspy.events import Frame
from rpcspy.filters import build_filter
from tests.render.sample import sample_events

EVENTS = sample_events()
FRAMES = {e.seq: e for e in EVENTS if isinstance(e, Frame)}


class Loader:
    """Frames by seq, counting reads (the model must not keep frames)."""

    def __init__(self) -> None:
        self.reads = 0

    def __call__(self, seq: int) -> Frame | None:
        self.reads += 1
        return FRAMES.get(seq)


def model(**kw) -> BrowseModel:
    m = BrowseModel(Loader(), **kw)
    m.feed(EVENTS)
    return m


def row_seqs(m: BrowseModel) -> list[int]:
    return [m.rows[i].seq for i, s in m.lines if s < 0]


def at(m: BrowseModel) -> int:
    i, s = m.current
    return s if s >= 0 else m.rows[i].seq


def test_rows_are_timeline_items_that_keep_no_frames() -> None:
    m = model()
    assert row_seqs(m)[:5] == [1, 2, 4, 5, 6] and len(m.rows) == 26
    assistant = next(r for r in m.rows if r.seq == 10)
    assert "assistant" in assistant.text and list(assistant.seqs) == [10, 11, 12, 13, 14, 16]
    assert assistant.severity == "info" and assistant.findings[0].startswith("info stream.partial_ahead")
    assert not any(hasattr(r, "frames") for r in m.rows)
    assert m.load.reads == 0  # nothing was read back while building rows


def test_fold_and_unfold() -> None:
    m = model()
    m.cursor = row_seqs(m).index(10)
    m.toggle()
    assert m.lines[m.cursor + 1:m.cursor + 7] == [(m.current[0], s) for s in (10, 11, 12, 13, 14, 16)]
    m.move(3)
    assert at(m) == 12
    assert m.detail().startswith("#12 ← a2c  t=1.260000") and '"thinking_delta"' in m.detail()
    m.toggle(False)  # from a frame line: folds its row, the cursor back on the row
    assert at(m) == 10 and len(m.lines) == 26
    m.toggle(True)
    m.toggle(True)  # unfolding twice changes nothing
    assert len(m.lines) == 32
    m.cursor = 0
    m.toggle()  # the start row has no frames
    assert len(m.lines) == 32


def test_window_keeps_the_cursor_in_view() -> None:
    m = model()
    m.end()
    view = m.window(5)
    assert len(view) == 5 and "cursor" in view[-1][0] and "exit" in view[-1][1]
    m.home()
    view = m.window(5)
    assert "cursor" in view[0][0] and "started" in view[0][1]
    assert any("sev-error" in style for style, _ in model().window(40))


def test_filter_with_a_where_expression() -> None:
    m = model()
    assert m.set_filter("type == 'prompt' || _kind == 'exit'")
    assert row_seqs(m) == [4, 43] and m.message == "rows matching: 2"
    assert "where type == 'prompt'" in m.status("rec")
    assert not m.set_filter("type == 'prompt")
    assert m.message.startswith("bad --where expression at column 9") and row_seqs(m) == [4, 43]
    assert m.set_filter("")
    assert len(row_seqs(m)) == 26


def test_filter_keeps_the_cursor_near_its_row() -> None:
    m = model()
    m.cursor = row_seqs(m).index(30)
    m.set_filter("_dir == 'c2a'")
    assert at(m) == 31  # the first matching row from there on


def test_search_rows_and_frame_text() -> None:
    m = model()
    assert m.search("steer") and at(m) == 17
    assert m.search() and at(m) == 18  # the response to the steer
    assert m.search("Delete it") and at(m) == 30  # only in the frame: the row shows title and message cut
    assert m.search("steer", forward=False) and at(m) == 18
    assert not m.search("no such text") and "no match" in m.message and at(m) == 18
    assert not m.search("STEER")  # capitals: case-sensitive


def test_next_finding() -> None:
    m = model()
    seen = []
    while m.next_finding():
        seen.append(at(m))
    assert seen == [10, 33, 35] and m.message == "no more findings"
    assert m.next_finding(forward=False) and at(m) == 33


def test_detail_of_a_row() -> None:
    m = model()
    m.cursor = row_seqs(m).index(35)
    text = m.detail()
    assert "error framing.not_json: agent frame is not JSON" in text
    assert '"Debug: not json at all"' in text  # one frame: shown at once
    m.cursor = row_seqs(m).index(10)
    assert "6 frames (#10..#16): Enter unfolds them" in m.detail()


def test_follow_and_a_growing_recording() -> None:
    cut = next(n for n, e in enumerate(EVENTS) if e.seq == 30)
    m = BrowseModel(Loader(), follow=True)
    m.feed(EVENTS[:cut], end=True)
    first = len(m.rows)
    assert at(m) == m.rows[-1].seq
    m.feed(EVENTS[cut:])
    assert len(m.rows) == 26 > first and at(m) == 43  # followed to the new end
    m.move(-1)
    assert not m.follow  # moving away stops following


def test_the_shared_filter_options_choose_the_rows() -> None:
    m = model(select=build_filter(dirs=["c2a"]))
    assert [r.seq for r in m.rows if r.seqs] == [4, 17, 31, 32, 37]
    assert [r.seq for r in m.rows if not r.seqs] == [1, 40, 43]  # start, the client's EOF, exit: as in show


def test_the_dialect_tells_the_timeline_how_the_agent_answers() -> None:
    """omp skips a blank client line: the parse error answers the line after it (browse is given the
    dialect check detects, as show and export are)."""
    from tests.cli.test_pairing_agreement import OMP_BLANK

    frames = {seq: Frame(seq, seq * 0.5, d, data) for seq, (d, data, _) in enumerate(OMP_BLANK, start=1)}

    def texts(dialect: str | None) -> list[str]:
        m = BrowseModel(frames.get, dialect=dialect)
        m.feed(list(frames.values()), end=True)
        return [r.text for r in m.rows if "parse" in r.text and "✗" in r.text]

    assert all("500 ms" in t for t in texts("omp")) and len(texts("omp")) == 2
    assert "1.00 s" in texts(None)[0]  # pi answers the blank line: its error is the blank line's
