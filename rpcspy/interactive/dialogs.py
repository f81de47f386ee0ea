"""Extension UI dialogs: what to ask the person, and the answer frame to send (pure).

pi's dialogs (protocol-notes 5.1, 5.2): ``select`` (title, options), ``confirm``
(title, message), ``input`` (title, placeholder), ``editor`` (title, prefill), each
answered by one ``extension_ui_response`` carrying the dialog's id and ``value``,
``confirmed`` or ``cancelled: true``. A dialog may have a ``timeout`` (ms) after
which the agent gives up on it silently.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from rpcspy.render.summarize import clean

_YES = {"y", "yes", "true", "1", "ok"}
_NO = {"n", "no", "false", "0"}


@dataclass(frozen=True)
class Dialog:
    """One dialog request, its fields read defensively (the agent is untrusted)."""

    id: Any
    method: str
    title: str = ""
    message: str = ""
    options: tuple[str, ...] = ()
    placeholder: str = ""
    prefill: str = ""
    timeout_ms: int | None = None
    details: tuple[str, ...] = field(default_factory=tuple)

    @classmethod
    def from_request(cls, req: dict[str, Any]) -> Dialog:
        def text(name: str) -> str:
            v = req.get(name)
            return v if isinstance(v, str) else ""

        raw_options = req.get("options")
        options = tuple(str(o) for o in raw_options if isinstance(o, (str, int, float))) \
            if isinstance(raw_options, list) else ()
        raw = req.get("optionDetails")
        details = tuple(str(d.get("description") or "") if isinstance(d, dict) else ""
                        for d in raw) if isinstance(raw, list) else ()
        timeout = req.get("timeout")
        return cls(id=req.get("id"), method=str(req.get("method")), title=text("title"), message=text("message"),
                   options=options, placeholder=text("placeholder"), prefill=text("prefill"),
                   timeout_ms=timeout if isinstance(timeout, int) and not isinstance(timeout, bool) else None,
                   details=details)

    def lines(self) -> list[str]:
        """What to show above the dialog's prompt (terminal-safe)."""
        head = f"{self.method}: {clean(self.title)}" if self.title else self.method
        if self.timeout_ms is not None:
            head += f"  (times out after {self.timeout_ms / 1000:g} s)"
        out = [head]
        if self.message:
            out.append(clean(self.message))
        for i, option in enumerate(self.options, 1):
            detail = self.details[i - 1] if i - 1 < len(self.details) and self.details[i - 1] else ""
            out.append(f"  {i}. {clean(option)}" + (f"  - {clean(detail)}" if detail else ""))
        return out

    def prompt(self) -> str:
        return {
            "select": f"choose 1-{len(self.options)}> " if self.options else "choose> ",
            "confirm": "[y/n]> ",
            "input": "> ",
            "editor": "(Esc Enter to send)> ",
        }.get(self.method, "> ")

    def answer(self, text: str) -> dict[str, Any]:
        """The response frame for what was typed; ValueError (with a hint) when it does not answer."""
        base: dict[str, Any] = {"type": "extension_ui_response", "id": self.id}
        if self.method == "select":
            choice = text.strip()
            if choice.isdigit() and 1 <= int(choice) <= len(self.options):
                return {**base, "value": self.options[int(choice) - 1]}
            if choice in self.options:
                return {**base, "value": choice}
            raise ValueError(f"type a number from 1 to {len(self.options)} or an option (Ctrl-C cancels)")
        if self.method == "confirm":
            word = text.strip().lower()
            if word in _YES:
                return {**base, "confirmed": True}
            if word in _NO:
                return {**base, "confirmed": False}
            raise ValueError("type y or n (Ctrl-C cancels)")
        return {**base, "value": text}

    def cancel(self) -> dict[str, Any]:
        return {"type": "extension_ui_response", "id": self.id, "cancelled": True}
