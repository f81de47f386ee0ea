"""Prompts, replies and tool I/O as span attributes, only when asked for, always redacted first.

Every string goes through the fixture redaction (:class:`rpcspy.normalise.normaliser.Normaliser` with
``secrets=True``, the same as ``rpcspy fixture``: API keys, passwords, tokens, private keys, then
volatile values such as temporary paths) before it becomes an attribute, and is cut at
:data:`MAX_CHARS`. Messages follow the GenAI conventions' JSON form
(``[{"role": ..., "parts": [{"type": "text", "content": ...}]}]``).
"""

from __future__ import annotations

from typing import Any

import msgspec

from rpcspy.normalise.normaliser import NormaliseOptions, Normaliser

MAX_CHARS = 16 << 10
"""Longest content attribute, in characters; longer ones end with a note of how much was cut."""


class Content:
    """Turns protocol values into redacted attribute strings (one per session: stable placeholders)."""

    def __init__(self) -> None:
        self._norm = Normaliser(NormaliseOptions(secrets=True), stable=True)

    def _cut(self, text: str) -> str:
        if len(text) <= MAX_CHARS:
            return text
        return text[:MAX_CHARS] + f"…[{len(text) - MAX_CHARS} more characters cut by rpcspy]"

    def text(self, value: str) -> str:
        return self._cut(self._norm.text(value))

    def json(self, value: Any) -> str:
        """A JSON value, redacted, as compact JSON text."""
        return self._cut(msgspec.json.encode(self._norm.value(value)).decode("utf-8", "replace"))

    def messages(self, role: str, content: Any, finish: str | None = None) -> str:
        """One message (pi's ``content``: a string or a list of blocks) in the conventions' form."""
        message: dict[str, Any] = {"role": role, "parts": _parts(content)}
        if finish is not None:
            message["finish_reason"] = finish
        return self.json([message])


def _parts(content: Any) -> list[dict[str, Any]]:
    if isinstance(content, str):
        return [{"type": "text", "content": content}]
    parts: list[dict[str, Any]] = []
    for block in content if isinstance(content, list) else ():
        if not isinstance(block, dict):
            continue
        kind = block.get("type")
        if kind == "text":
            parts.append({"type": "text", "content": block.get("text")})
        elif kind == "thinking":
            parts.append({"type": "reasoning", "content": block.get("thinking")})
        elif kind == "toolCall":
            parts.append({"type": "tool_call", "id": block.get("id"), "name": block.get("name"),
                          "arguments": block.get("arguments")})
        elif kind == "image":
            parts.append({"type": "blob", "modality": "image", "mime_type": block.get("mimeType")})
    return parts


def result_text(result: Any) -> Any:
    """A tool result's content (pi: ``{"content": [blocks], "details": ...}``): its text, else the value."""
    if isinstance(result, dict) and isinstance(result.get("content"), list):
        texts = [str(b["text"]) for b in result["content"] if isinstance(b, dict) and isinstance(b.get("text"), str)]
        if texts:
            return "\n".join(texts)
    return result
