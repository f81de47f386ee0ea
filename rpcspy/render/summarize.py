"""One-line summaries of untrusted JSON values, safe to print on a terminal."""

from __future__ import annotations

import json
import re
from typing import Any

import msgspec

_CTRL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f\u2028\u2029\u0085]")


def _escape(m: re.Match[str]) -> str:
    c = m.group()
    return {"\r": "\\r", "\x1b": "\\e"}.get(c, f"\\u{ord(c):04x}" if ord(c) > 0xFF else f"\\x{ord(c):02x}")


def clean(text: str) -> str:
    """Text for a multi-line block: newlines and tabs kept, other controls made visible.

    Escape sequences from a misbehaving agent must not reach the terminal, and a raw
    U+2028 (pi does not escape it) must not break the layout.
    """
    return _CTRL.sub(_escape, text)


def cut(text: str, limit: int) -> str:
    """At most ``limit`` characters, with an ellipsis when cut."""
    return text if len(text) <= limit else text[: max(limit - 1, 0)] + "…"


def quote(text: str, limit: int = 200) -> str:
    """A string as a one-line JSON literal: ``"a\\nb"``."""
    s = json.dumps(cut(text, limit) if len(text) > limit else text, ensure_ascii=False)
    return s.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029").replace("\x85", "\\u0085")


def compact(value: Any, limit: int = 200) -> str:
    """A JSON value on one line, cut to ``limit`` characters."""
    if isinstance(value, str):
        return quote(value, limit)
    try:
        s = msgspec.json.encode(value).decode("utf-8", "replace")
    except (TypeError, msgspec.EncodeError):
        s = repr(value)
    return cut(clean(s), limit)


def fields(obj: dict[str, Any], skip: tuple[str, ...] = ("id", "type"), limit: int = 120) -> str:
    """``key=value`` pairs of an object, minus ``skip``; each value cut to ``limit``."""
    return " ".join(f"{k}={compact(v, limit)}" for k, v in obj.items() if k not in skip)


def content_text(content: Any) -> str:
    """The text of a message ``content`` (string or list of blocks); images noted."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return compact(content) if content is not None else ""
    parts: list[str] = []
    for block in content:
        if not isinstance(block, dict):
            parts.append(compact(block, 60))
            continue
        kind = block.get("type")
        if kind == "text":
            parts.append(str(block.get("text", "")))
        elif kind == "thinking":
            parts.append(f"[thinking] {block.get('thinking', '')}")
        elif kind == "image":
            data = block.get("data")
            size = f" {human_bytes(len(data) * 3 // 4)}" if isinstance(data, str) else ""
            parts.append(f"[image {block.get('mimeType', '?')}{size}]")
        elif kind == "toolCall":
            parts.append(f"[tool call {block.get('name')} {compact(block.get('arguments'), 120)}]")
        else:
            parts.append(compact(block, 80))
    return "\n".join(parts)


def human_bytes(n: int) -> str:
    """``512 B``, ``1.2 KB``, ``3.4 MB``."""
    if n < 1000:
        return f"{n} B"
    for unit in ("KB", "MB", "GB"):
        n /= 1000  # type: ignore[assignment]
        if n < 1000:
            return f"{n:.1f} {unit}"
    return f"{n:.1f} TB"


def ms(seconds: float) -> str:
    """A latency for people: ``0.4 ms``, ``120 ms``, ``3.20 s``."""
    v = seconds * 1000
    if v < 10:
        return f"{v:.1f} ms"
    if v < 1000:
        return f"{v:.0f} ms"
    return f"{seconds:.2f} s"


def first_line(text: str, limit: int = 160) -> str:
    """The first non-empty line, with a note of how many more there are."""
    lines = [ln for ln in text.split("\n") if ln.strip()]
    if not lines:
        return ""
    more = f"  (+{len(lines) - 1} lines)" if len(lines) > 1 else ""
    return cut(clean(lines[0]), limit) + more
