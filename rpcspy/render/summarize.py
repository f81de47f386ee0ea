"""One-line summaries of untrusted JSON values, safe to print on a terminal."""

from __future__ import annotations

import json
from typing import Any

import msgspec

from rpcspy.inert import inert, inert_json

clean = inert
"""Text for a multi-line block: newlines and tabs kept, other controls made visible (:func:`rpcspy.inert.inert`)."""


def cut(text: str, limit: int) -> str:
    """At most ``limit`` characters, with an ellipsis when cut."""
    return text if len(text) <= limit else text[: max(limit - 1, 0)] + "…"


def quote(text: str, limit: int = 200) -> str:
    """A string as a one-line JSON literal: ``"a\\nb"``."""
    return inert_json(json.dumps(cut(text, limit) if len(text) > limit else text, ensure_ascii=False))


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
