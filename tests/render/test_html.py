"""The HTML export: self-contained, compact data drawn on demand, escaped; checked in a real browser."""

from __future__ import annotations

import re
import shutil
import struct
import subprocess
from pathlib import Path

import msgspec
import pytest
from click.testing import CliRunner

from rpcspy.cli import main
from rpcspy.recording import open_recording
from rpcspy.recording.format import FrameEntry
from rpcspy.render.html import F_CR, F_NO_NL, F_NOT_UTF8, F_TEXT, frame_record, item_record
from rpcspy.render.items import Block, Item
from tests.render.big_recording import write_big
from tests.render.html_data import blocks, frame_lines, items, page_of
from tests.render.sample import write_sample


@pytest.fixture(scope="module")
def sample(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_sample(tmp_path_factory.mktemp("html") / "sample.jsonl")


@pytest.fixture(scope="module")
def sample_page(sample: Path) -> str:
    return page_of(sample)


def frame_entries(path: Path) -> list[FrameEntry]:
    return [e for e in open_recording(path).entries() if isinstance(e, FrameEntry)]


def test_page_is_self_contained(sample_page: str) -> None:
    assert sample_page.startswith("<!DOCTYPE html>")
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", sample_page)
    assert "<link" not in sample_page and "@import" not in sample_page
    assert sample_page.count("<script>") == 1 and sample_page.rstrip().endswith("</html>")


def test_every_frame_is_held_once_verbatim(sample: Path, sample_page: str) -> None:
    entries = frame_entries(sample)
    lines = frame_lines(sample_page)
    assert [int(line.split(" ", 1)[0]) for line in lines] == [e.seq for e in entries]
    for entry, line in zip(entries, lines, strict=True):
        data = line.split("\t", 1)[1]
        if len(entry.json):
            assert data == bytes(entry.json).decode().replace("<", "\\u003c")  # the recorded JSON, not re-encoded
        else:
            assert msgspec.json.decode(data) == entry.data().decode("utf-8", "replace")


def test_items_carry_what_the_rows_show(sample_page: str) -> None:
    rows = items(sample_page)
    assert [r[0] for r in rows][:4] == [1, 2, 4, 5]
    by_seq = {r[0]: r for r in rows}
    assert by_seq[17][3] == "command" and by_seq[17][12] & 1  # injected
    assert by_seq[35][3:5] == ["invalid", "error"] and by_seq[35][13] == "error"
    assert sum(1 for r in rows if r[13]) == 3  # rows with findings
    assert [r[0] for r in rows if r[13]] == [10, 33, 35]
    assert len(by_seq[10][11]) > 5  # a coalesced message: the seqs of all its frames, not their data
    assert [msgspec.json.decode(x)[1:3] for b in blocks(sample_page, "x") for x in b.splitlines()] == [
        ["info", "stream.partial_ahead"], ["warning", "correlation.idless_error"], ["error", "framing.not_json"]]


def test_frame_records() -> None:
    def rec(**kw) -> tuple[list[str], str]:
        head, data = frame_record(FrameEntry(seq=7, t=1.5, dir="a2c", **kw)).decode().rstrip("\n").split("\t")
        return head.split(" "), data

    assert rec(json=msgspec.Raw(b'{"a":"</script><b>"}')) == (["7", "a2c", "1.500000", "0", "20"],
                                                               '{"a":"\\u003c/script>\\u003cb>"}')
    head, data = rec(text="boom\x1b[0m", cr=True, nl=False)
    assert int(head[3]) == F_TEXT | F_CR | F_NO_NL and msgspec.json.decode(data) == "boom\x1b[0m"
    head, data = rec(b64="/w==")
    assert int(head[3]) == F_TEXT | F_NOT_UTF8 and head[4] == "1" and msgspec.json.decode(data) == "\ufffd"
    head, data = rec(json=msgspec.Raw(b'{"a":\r1}'))  # a raw CR would become a line break in HTML
    assert int(head[3]) == F_TEXT and msgspec.json.decode(data) == '{"a":\r1}'


def test_nothing_in_the_data_can_end_its_block(tmp_path: Path) -> None:
    evil = Item(kind="event", seq=1, t=0.0, dir="a2c", label="</script><script>alert(1)</script>",
                summary="<!--", blocks=[Block("text", "<img src=x onerror=alert(1)>")])
    assert b"<" not in item_record(evil)
    assert b"<" not in frame_record(FrameEntry(seq=1, t=0, dir="err", text="</script><script>alert(1)"))


def test_blocks_are_cut_at_the_chunk_size_and_keep_their_order(sample: Path, sample_page: str) -> None:
    small = page_of(sample, chunk=200)
    assert len(blocks(small, "f")) > 5 and len(blocks(small, "i")) > 3
    assert frame_lines(small) == frame_lines(sample_page) and items(small) == items(sample_page)


def exported_big(tmp_path: Path, size: int) -> tuple[Path, int]:
    """A generated recording of ``size`` bytes exported; the page (checked to be at most 1.5x) and the runs."""
    rec = tmp_path / "big.jsonl"
    size, runs = write_big(rec, size)
    page = tmp_path / "big.html"
    res = CliRunner().invoke(main, ["export", str(rec), "-o", str(page)])
    assert res.exit_code == 0, res.output
    assert page.stat().st_size <= 1.5 * size
    return page, runs


def test_the_page_is_about_the_recordings_size(tmp_path: Path) -> None:
    page, runs = exported_big(tmp_path, 4 << 20)
    assert len(items(page.read_text())) == 5 * runs + 1  # and the exit


# -- in a real browser -----------------------------------------------------------------------

def _png_size(path: Path) -> tuple[int, int]:
    head = path.read_bytes()[:24]
    assert head[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    return struct.unpack(">II", head[16:24])


def _distinct_colours(path: Path) -> int:
    """A rough count of colours in the PNG, enough to tell a rendered page from a blank one."""
    import zlib

    data = path.read_bytes()
    pos, idat, width, height, colour = 8, b"", 0, 0, 0
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, _, colour = struct.unpack(">IIBB", body[:10])
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    raw = zlib.decompress(idat)
    bpp = {2: 3, 6: 4}[colour]
    stride = width * bpp + 1
    seen = set()
    for y in range(0, height, 7):  # scanlines with filter 0 or not, the byte triples still vary with content
        row = raw[y * stride + 1:(y + 1) * stride]
        seen.update(row[i:i + 3] for i in range(0, len(row), bpp * 5))
    return len(seen)


CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
needs_chromium = pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (apt-get install -y chromium)")


def chromium(profile: Path, *args: str) -> str:
    return subprocess.run(
        [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",  # type: ignore[list-item]
         "--disable-component-update", "--no-first-run", f"--user-data-dir={profile}", *args],
        check=True, capture_output=True, timeout=120, text=True,
    ).stdout


def rows_in(dom: str) -> list[str]:
    return re.findall(r'<div class="(item [^"]*)" id="s\d+"', dom)


@needs_chromium
def test_page_renders_in_headless_chromium(sample_page: str, tmp_path: Path) -> None:
    page = tmp_path / "sample.html"
    page.write_text(sample_page, encoding="utf-8")
    shot, blank = tmp_path / "shot.png", tmp_path / "blank.png"
    (tmp_path / "blank.html").write_text("<!DOCTYPE html><html><body></body></html>")
    profile = tmp_path / "profile"
    chromium(profile, f"--screenshot={shot}", "--window-size=1200,900", page.as_uri())
    chromium(profile, f"--screenshot={blank}", "--window-size=1200,900", (tmp_path / "blank.html").as_uri())
    assert _png_size(shot) == (1200, 900)
    assert shot.stat().st_size > 20_000
    assert _distinct_colours(shot) > 3 * _distinct_colours(blank)

    # The DOM after the page's script ran: the rows, and the list of findings at the top linking to them.
    dom = chromium(profile, "--dump-dom", page.as_uri())
    box = re.search(r'<div id="findings">(.*?)</div></header>', dom, re.S)
    assert box is not None, dom[:2000]
    assert "<b>3 findings</b>" in box.group(1) and "no findings" not in box.group(1)
    links = re.findall(r'<li class="f-(\w+)"><a href="#(s\d+)">', box.group(1))
    assert [sev for sev, _ in links] == ["info", "warning", "error"]
    assert all(f'id="{target}"' in dom for _, target in links)
    rows = rows_in(dom)
    assert len(rows) == len(items(sample_page)) == 26
    assert "item k-invalid d-a2c s-error has-finding sev-error" in rows
    assert "item k-command d-c2a injected" in rows and '<span class="label">steer (injected)</span>' in dom
    assert dom.count("<details>") > 0 and "<details open" not in dom and '<pre class="frame"' not in dom
    assert 'class="b-text">Hello \\u2028world</pre>' in dom  # assistant text visible without opening
    assert "data-k=" not in dom  # the data blocks were read and dropped


@needs_chromium
def test_a_link_to_a_row_opens_it_with_its_frames_pretty_printed(sample_page: str, tmp_path: Path) -> None:
    page = tmp_path / "sample.html"
    page.write_text(sample_page, encoding="utf-8")
    dom = chromium(tmp_path / "profile", "--dump-dom", page.as_uri() + "#s10")
    row = dom[dom.index('id="s10"'):dom.index('id="s17"')]
    assert "<details open" in row
    frame = re.search(r'<pre class="frame" id="f14"><span class="fhead">#14 a2c 1.310000 (\d+) bytes</span>(.*?)</pre>',
                      row, re.S)
    assert frame is not None, row[:3000]
    assert frame.group(2).startswith('{\n  "type": "message_update",\n  "assistantMessageEvent": {\n    "type": ')
    assert '"text": "Hello \u2028wor"' in frame.group(2)


@needs_chromium
def test_links_to_a_filtered_view(sample_page: str, tmp_path: Path) -> None:
    page = tmp_path / "sample.html"
    page.write_text(sample_page, encoding="utf-8")
    profile = tmp_path / "profile"
    dom = chromium(profile, "--dump-dom", page.as_uri() + "#findings")  # the "only findings" box ticked
    assert re.findall(r'<div class="item [^"]*" id="s(\d+)"', dom) == ["10", "33", "35"]
    assert 'id="count">rows 1–3 of 3 (26 in all)<' in dom
    dom = chromium(profile, "--dump-dom", page.as_uri() + "#q=b.txt")  # the text filter
    assert re.findall(r'<div class="item [^"]*" id="s(\d+)"', dom) == ["27", "29"]
    dom = chromium(profile, "--dump-dom", page.as_uri() + "#q=partialResult")  # a key only the frames hold
    assert re.findall(r'<div class="item [^"]*" id="s(\d+)"', dom) == ["27"]


@needs_chromium
def test_evil_text_stays_text_in_the_browser(tmp_path: Path) -> None:
    rec = tmp_path / "evil.jsonl"
    write_big(rec, 1000)  # one run
    with open(rec, "ab") as f:
        f.write(b'{"kind":"frame","seq":999,"t":9.0,"dir":"err","text":"</script><img src=x onerror=alert(1)>"}\n')
    page = tmp_path / "evil.html"
    assert CliRunner().invoke(main, ["export", str(rec), "-o", str(page)]).exit_code == 0
    dom = chromium(tmp_path / "profile", "--dump-dom", page.as_uri() + "#s999")
    assert "<img" not in dom and "&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt;" in dom
    assert "question 0 &lt;b&gt;" in dom
    dom = chromium(tmp_path / "profile", "--dump-dom", page.as_uri() + "#s1")  # the prompt's frame, opened
    assert '"message": "question 0 &lt;b&gt;"' in dom  # stored as \u003c, shown as the "<" it was
    dom = chromium(tmp_path / "profile", "--dump-dom", page.as_uri() + "#q=%3Cb%3E")  # and found as "<" too
    assert re.findall(r'<div class="item [^"]*" id="s(\d+)"', dom) == ["1"]


@needs_chromium
def test_a_50_mb_recording_opens_with_a_window_of_rows(tmp_path: Path) -> None:
    page, runs = exported_big(tmp_path, 50 << 20)
    records = items(page.read_text())
    total = len(records)
    assert total == 5 * runs + 1  # prompt, response, agent_start, the assistant message, agent_end; the exit
    profile = tmp_path / "profile"
    dom = chromium(profile, "--dump-dom", page.as_uri())
    rows = rows_in(dom)
    assert 200 <= len(rows) <= 400 < total  # the first rows (and one more page if the end was in view)
    assert re.search(rf'id="count">rows 1–\d+ of {total}<', dom)
    # A link deep into the page draws the window around its row, opened.
    seq = next(r[0] for r in records[total * 9 // 10:] if r[3] == "command")
    dom = chromium(profile, "--dump-dom", page.as_uri() + f"#s{seq}")
    assert f'id="s{seq}"' in dom and len(rows_in(dom)) <= 400 and 'id="s1"' not in dom
    assert "<details open" in dom[dom.index(f'id="s{seq}"'):][:600]
