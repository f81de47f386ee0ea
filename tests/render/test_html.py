"""The HTML export: self-contained, escaped, findings highlighted; checked in a real browser."""

from __future__ import annotations

import re
import shutil
import struct
import subprocess
from pathlib import Path

import pytest

from rpcspy.render.html import html_page, item_html
from rpcspy.render.items import Block, Item
from rpcspy.render.timeline import Timeline
from tests.render.sample import sample_events


def page_of(events) -> str:
    tl = Timeline(keep_frames=True)

    def items():
        for e in events:
            yield from tl.feed(e)
        yield from tl.finish()

    return "".join(html_page(items(), title="rpcspy: sample", meta="sample"))


@pytest.fixture(scope="module")
def sample_page() -> str:
    return page_of(sample_events())


def test_page_is_self_contained(sample_page: str) -> None:
    assert sample_page.startswith("<!DOCTYPE html>")
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", sample_page)
    assert "<link" not in sample_page and "@import" not in sample_page
    assert sample_page.count("<script>") == 1 and sample_page.rstrip().endswith("</html>")


def test_every_frame_is_in_a_collapsed_row_and_findings_are_marked(sample_page: str) -> None:
    frames = sum(1 for e in sample_events() if type(e).__name__ == "Frame")
    assert sample_page.count('<pre class="frame"') == frames
    assert sample_page.count("<details>") == sample_page.count("</details>") > 0
    assert "<details open" not in sample_page
    assert sample_page.count(" has-finding sev-") == 3
    assert 'class="item k-invalid d-a2c s-error has-finding sev-error"' in sample_page
    assert 'class="item k-command d-c2a injected" id="s17"' in sample_page
    assert '<span class="label">steer (injected)</span>' in sample_page


def test_frame_content_is_escaped() -> None:
    evil = Item(kind="event", seq=1, t=0.0, dir="a2c", label="<script>alert(1)</script>", summary="</pre><b>",
                blocks=[Block("text", "<img src=x onerror=alert(1)>")])
    html = item_html(evil)
    assert "<script>" not in html and "<img" not in html and "&lt;script&gt;" in html


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


@pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (apt-get install -y chromium)")
def test_page_renders_in_headless_chromium(sample_page: str, tmp_path: Path) -> None:
    page = tmp_path / "sample.html"
    page.write_text(sample_page, encoding="utf-8")
    shot = tmp_path / "shot.png"
    blank = tmp_path / "blank.png"
    (tmp_path / "blank.html").write_text("<!DOCTYPE html><html><body></body></html>")

    def chromium(*args: str) -> str:
        return subprocess.run(
            [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
             "--disable-component-update", "--no-first-run", f"--user-data-dir={tmp_path / 'profile'}", *args],
            check=True, capture_output=True, timeout=90, text=True,
        ).stdout

    chromium(f"--screenshot={shot}", "--window-size=1200,900", page.as_uri())
    chromium(f"--screenshot={blank}", "--window-size=1200,900", (tmp_path / "blank.html").as_uri())
    assert _png_size(shot) == (1200, 900)
    assert shot.stat().st_size > 20_000
    assert _distinct_colours(shot) > 3 * _distinct_colours(blank)

    # The DOM after the page's script ran: it built the list of findings at the top, each linking to its row.
    dom = chromium("--dump-dom", page.as_uri())
    box = re.search(r'<div id="findings">(.*?)</div></header>', dom, re.S)
    assert box is not None, dom[:2000]
    assert "<b>3 findings</b>" in box.group(1) and "no findings" not in box.group(1)
    links = re.findall(r'<li class="f-(\w+)"><a href="#(s\d+)">', box.group(1))
    assert [sev for sev, _ in links] == ["info", "warning", "error"]
    assert all(f'id="{target}"' in dom for _, target in links)
    frames = sum(1 for e in sample_events() if type(e).__name__ == "Frame")
    assert dom.count('<pre class="frame"') == frames and dom.count("<details>") > 0  # collapsible, collapsed
    assert "<details open" not in dom and 'class="item' in dom and " hidden" not in dom
