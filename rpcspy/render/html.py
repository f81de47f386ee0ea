"""One self-contained HTML page of a timeline: inline CSS and JS, no network, rows drawn on demand.

The page holds compact data, not markup: each frame once, as one line of a
``<script type="text/x-rpcspy">`` block (its JSON verbatim, so the page is about
the recording's size), each timeline item as one JSON array, each finding once
more for the list at the top. The page's script draws only the rows on screen
and the next ones as you scroll, and pretty-prints a frame when its row is
opened; so a recording of any size opens at once and the page stays near its
size. :class:`HtmlPage` hands the page to a sink in pieces while the recording
is read, in constant memory. Pure: no I/O of its own.
"""

from __future__ import annotations

from collections.abc import Callable
from html import escape
from importlib import resources

import msgspec

from rpcspy.events import Finding
from rpcspy.recording.format import FrameEntry
from rpcspy.render.items import Item
from rpcspy.render.summarize import clean, cut, ms

CHUNK = 1 << 20
"""Bytes of data per ``<script>`` block: small enough to stream, large enough to be few."""

F_CR, F_NO_NL, F_INJECTED, F_TEXT, F_NOT_UTF8 = 1, 2, 4, 8, 16
"""Frame record flags: ended in CR LF, no LF at EOF, injected, the data is a JSON string of text
(not JSON itself), the bytes were not UTF-8 (shown decoded with replacement characters)."""

I_INJECTED, I_CONTINUED, I_FINDING = 1, 2, 4
"""Item record flags: a frame was injected, it continues an interrupted item, it is a finding row."""

_encode = msgspec.json.encode
_SEVERITY_ORDER = {"error": 0, "warning": 1, "info": 2}


def _script_safe(data: bytes) -> bytes:
    """JSON text that cannot end its ``<script>`` block: ``<`` only occurs in strings, as ``\\u003c``."""
    return data.replace(b"<", b"\\u003c")


def frame_record(entry: FrameEntry) -> bytes:
    """One frame as a page line: ``SEQ DIR T FLAGS NBYTES<TAB>DATA``, DATA the frame's JSON verbatim.

    Frames that are not JSON (stderr, invalid lines), or whose JSON holds a raw CR
    (the HTML parser would turn it into a line break), carry a JSON string instead.
    """
    flags = (F_CR if entry.cr else 0) | (0 if entry.nl else F_NO_NL) | (F_INJECTED if entry.injected else 0)
    data = bytes(entry.json) if len(entry.json) else b""
    nbytes = len(data)
    if not data or b"\r" in data:
        raw = data or entry.data()
        nbytes = len(raw)
        try:
            text = raw.decode()
        except UnicodeDecodeError:
            text = raw.decode("utf-8", "replace")
            flags |= F_NOT_UTF8
        data = _encode(text)
        flags |= F_TEXT
    head = b"%d %s %.6f %d %d\t" % (entry.seq, entry.dir.encode(), entry.t, flags, nbytes)
    return head + _script_safe(data) + b"\n"


def worst(findings: list[Finding]) -> str:
    """The most severe severity among ``findings``."""
    return min((f.severity for f in findings), key=lambda s: _SEVERITY_ORDER.get(s, 3))


def _finding(f: Finding) -> list[str]:
    return [f.severity, f.rule, f.message, f.path or ""]


def item_record(item: Item) -> bytes:
    """One item as a JSON array (see the page's script for the field order)."""
    findings = ([item.finding] if item.finding else []) + list(item.findings)
    flags = (I_INJECTED if item.injected else 0) | (I_CONTINUED if item.continued else 0) \
        | (I_FINDING if item.finding else 0)
    blocks = [[b.kind, b.title, clean(b.text)] for b in item.blocks if b.text]
    row = [item.seq, round(item.t, 6), item.dir or "", item.kind, item.status or "", clean(item.label),
           item.ref or "", ms(item.latency) if item.latency is not None else "", clean(cut(item.summary, 400)),
           blocks, [_finding(f) for f in findings], item.seqs, flags, worst(findings) if findings else ""]
    return _script_safe(_encode(row)) + b"\n"


def _asset(name: str) -> str:
    return resources.files("rpcspy.render").joinpath("assets", name).read_text(encoding="utf-8")


class HtmlPage:
    """Writes the page through ``write`` (the caller's sink: this module does no I/O) in pieces:
    the head at once, then data blocks as :meth:`frame` and :meth:`item` fill them (in recording
    order), then the rest and the script at :meth:`finish`."""

    def __init__(self, write: Callable[[bytes], object], *, title: str, meta: str, chunk: int = CHUNK) -> None:
        self.write, self.title, self.meta, self.chunk = write, title, meta, chunk
        self.items = 0
        self.findings = 0
        self._frames, self._items, self._list = bytearray(), bytearray(), bytearray()
        write(self._head())

    def _head(self) -> bytes:
        title = escape(self.title)
        return (f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
                f'<meta name="viewport" content="width=device-width, initial-scale=1">'
                f"<title>{title}</title><style>{_asset('page.css')}</style></head><body>\n"
                f'<header><h1>{title}</h1><p class="meta">{escape(self.meta)}</p>'
                '<div class="toolbar"><input type="search" id="q" placeholder="filter by text…">'
                '<label><input type="checkbox" id="onlyf"> only findings</label>'
                '<button id="expand">expand all</button><button id="collapse">collapse all</button>'
                '<span id="count"></span></div>'
                '<div id="findings"></div></header>\n<main id="timeline"><p id="loading">loading…</p></main>\n'
                ).encode()

    def frame(self, entry: FrameEntry) -> None:
        """Add a frame (any frame an item may show)."""
        buf = self._frames
        buf += frame_record(entry)
        if len(buf) >= self.chunk:
            self._flush(b"f", buf)

    def item(self, item: Item) -> None:
        """Add an item, if it is selected, and its findings to the list at the top."""
        if not item.selected:
            return
        self._items += item_record(item)
        for f in ([item.finding] if item.finding else []) + item.findings:  # [item index, severity, rule, message]
            self.findings += 1
            self._list += _script_safe(_encode([self.items, f.severity, f.rule, f.message])) + b"\n"
        self.items += 1
        if len(self._items) >= self.chunk:
            self._flush(b"i", self._items)
        if len(self._list) >= self.chunk:
            self._flush(b"x", self._list)

    def _flush(self, kind: bytes, buf: bytearray) -> None:
        if buf:
            self.write(b'<script type="text/x-rpcspy" data-k="%s">' % kind + buf + b"</script>\n")
            buf.clear()

    def finish(self) -> None:
        """The last data blocks, the footer and the script."""
        self._flush(b"f", self._frames)
        self._flush(b"i", self._items)
        self._flush(b"x", self._list)
        self.write((f'<footer>{self.items} items · made by rpcspy · frames are collapsed: click a line to see '
                    f"them</footer><script>{_asset('page.js')}</script></body></html>\n").encode())
