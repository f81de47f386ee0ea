"""Reading the data an exported page holds, and building pages for tests."""

from __future__ import annotations

import json
import re
from pathlib import Path

from rpcspy.recording import open_recording
from rpcspy.recording.entries import entry_to_event
from rpcspy.recording.format import FrameEntry
from rpcspy.render.html import HtmlPage
from rpcspy.render.timeline import Timeline


def blocks(page: str, kind: str) -> list[str]:
    """The contents of the page's data blocks of one kind (f frames, i items, x findings)."""
    return re.findall(rf'<script type="text/x-rpcspy" data-k="{kind}">(.*?)</script>', page, re.S)


def items(page: str) -> list[list]:
    """The page's item records."""
    return [json.loads(line) for b in blocks(page, "i") for line in b.splitlines()]


def frame_lines(page: str) -> list[str]:
    return [line for b in blocks(page, "f") for line in b.split("\n") if line]


def page_of(path: Path, *, chunk: int = 1 << 20) -> str:
    """The page of a recording, as export makes it (no filter)."""
    out: list[bytes] = []
    page = HtmlPage(out.append, title="rpcspy: sample", meta="sample", chunk=chunk)
    timeline = Timeline()
    for entry in open_recording(path).entries():
        if isinstance(entry, FrameEntry):
            page.frame(entry)
        for item in timeline.feed(entry_to_event(entry)):
            page.item(item)
    for item in timeline.finish():
        page.item(item)
    page.finish()
    return b"".join(out).decode()
