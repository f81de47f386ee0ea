"""Recorded text made inert for a terminal: the one escaping every renderer of recorded text uses.

A recording is written by an agent and a client rpcspy does not trust. Any string from it (a
field name, a ``type``, a ``stopReason``, stderr, the header's argv) may carry escape sequences:
OSC 0 sets the window title, OSC 52 writes the clipboard, OSC 8 hides a link, CSI forges colours
and moves the cursor, C1 controls (U+0080-U+009F) do the same on terminals that honour them, and
bidirectional overrides (U+202A-U+202E, U+2066-U+2069, U+200E/F, U+061C) reorder what a reader
sees. Before it reaches a terminal every such character is shown as a visible escape: ``\\e``
for ESC, ``\\r``, ``\\x07``, ``\\x9b``, ``\\u202e``. Raw U+2028/U+2029 (pi sends them
unescaped) and lone surrogates (invalid UTF-8 decoded with ``surrogateescape``, which no terminal
encoding can write) are escaped too.

:func:`inert` keeps newlines and tabs (a block of text); :func:`inert_line` escapes them as well
(one line); :func:`inert_json` makes JSON text safe while keeping it valid JSON with the same
value (``\\uXXXX`` escapes inside its strings).
"""

from __future__ import annotations

import re

_BIDI = "\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"
_OTHER = "\x7f-\x9f\u2028\u2029\ud800-\udfff" + _BIDI
_BLOCK = re.compile(f"[\x00-\x08\x0b-\x1f{_OTHER}]")
_LINE = re.compile(f"[\x00-\x1f{_OTHER}]")
_JSON = re.compile(f"[{_OTHER}]")
_NAMED = {"\x1b": "\\e", "\r": "\\r", "\n": "\\n", "\t": "\\t"}


def _escape(m: re.Match[str]) -> str:
    c = m.group()
    return _NAMED.get(c) or (f"\\u{ord(c):04x}" if ord(c) > 0xFF else f"\\x{ord(c):02x}")


def inert(text: str) -> str:
    """``text`` for a multi-line block: newlines and tabs kept, every other control made visible."""
    return _BLOCK.sub(_escape, text)


def inert_line(text: str) -> str:
    """``text`` for one line: newlines and tabs made visible too."""
    return _LINE.sub(_escape, text)


def inert_json(text: str) -> str:
    """JSON text with DEL, C1, bidi controls, U+2028/9 and lone surrogates as ``\\uXXXX`` escapes.

    Outside its strings JSON is ASCII, so the result is valid JSON with the same value; C0
    controls are already escaped by every JSON encoder.
    """
    return _JSON.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def is_inert(text: str) -> bool:
    """No character :func:`inert` would escape."""
    return _BLOCK.search(text) is None
