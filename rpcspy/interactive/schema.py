"""What the protocol says about client commands, for the parser, completer and validation (pure).

A thin view over :mod:`rpcspy.protocol` (``command_types``, ``command_fields``,
``validate``) that degrades gracefully: without the protocol package nothing is
known and nothing is refused. With no dialect decided yet (``--dialect auto``
before the agent gave itself away) every dialect counts: a command is offered if
any dialect knows it and refused only if every dialect rejects it.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache, lru_cache
from typing import Any

from rpcspy.protocol.vocabulary import ANSWER_TYPES


@dataclass(frozen=True, slots=True)
class FieldInfo:
    """One field of a command: ``type`` as the schema describes it (``string``, ``'a' | 'b'``, ...)."""

    name: str
    required: bool
    type: str = "any"
    enum: tuple[Any, ...] = ()

    @property
    def kind(self) -> str:
        """string, boolean, integer, number, enum, array, object or any: how to read a typed value."""
        if self.enum:
            return "boolean" if all(isinstance(v, bool) for v in self.enum) else "enum"
        t = self.type
        for kind in ("string", "boolean", "integer", "number", "array", "object"):
            if t == kind or t.startswith((kind + " ", kind + "|")):
                return kind
        return "any"


@cache
def _protocol() -> Any:
    try:
        from rpcspy import protocol
    except ImportError:
        return None
    return protocol


def available() -> bool:
    """True when :mod:`rpcspy.protocol` can be used."""
    return _protocol() is not None


@lru_cache(maxsize=64)
def _types(dialect: str) -> tuple[str, ...]:
    p = _protocol()
    try:
        return tuple(p.command_types(dialect)) if p else ()
    except Exception:  # noqa: BLE001 - an unknown dialect, a protocol still being written
        return ()


@lru_cache(maxsize=1024)
def _fields(dialect: str, command: str) -> tuple[FieldInfo, ...]:
    p = _protocol()
    try:
        raw = p.command_fields(dialect, command) if p else {}
    except Exception:  # noqa: BLE001 - degrade: nothing known about the command
        raw = {}
    out = []
    for name, info in raw.items():
        info = info if isinstance(info, dict) else {}
        out.append(FieldInfo(name, bool(info.get("required")), str(info.get("type", "any")),
                             tuple(info.get("enum") or ())))
    return tuple(out)


def dialects() -> tuple[str, ...]:
    p = _protocol()
    return tuple(getattr(p, "DIALECTS", ())) if p else ()




@dataclass
class CommandSchema:
    """Commands of one dialect, or of all of them while ``dialect`` is None (not decided yet)."""

    dialect: str | None = None

    def _candidates(self) -> tuple[str, ...]:
        return (self.dialect,) if self.dialect else dialects()

    def types(self) -> list[str]:
        """Command types a client may send (commands first, then answers), no duplicates."""
        seen: dict[str, None] = {}
        for d in self._candidates():
            for t in _types(d):
                seen.setdefault(t, None)
        names = list(seen)
        return sorted(n for n in names if n not in ANSWER_TYPES) + [n for n in names if n in ANSWER_TYPES]

    def known(self, command: str) -> bool:
        return any(command in _types(d) for d in self._candidates())

    def fields(self, command: str) -> list[FieldInfo]:
        """The command's fields in schema order (``id`` last), from the first dialect that knows it."""
        for d in self._candidates():
            found = _fields(d, command)
            if found:
                return sorted(found, key=lambda f: f.name == "id")
        return []

    def problems(self, obj: Any) -> list[str]:
        """Why ``obj`` is not a valid command (hard schema issues); [] when it is, or when unknowable."""
        if isinstance(obj, dict) and _acp_issues(obj) is not None:
            return [f"{i.message} (at {i.path})" if i.path != "$" else i.message for i in _acp_issues(obj) or []
                    if i.hard]
        p = _protocol()
        if p is None:
            return []
        reports: list[list[str]] = []
        for d in self._candidates():
            try:
                issues = p.validate(obj, "c2a", d)
            except Exception:  # noqa: BLE001 - validation must never stop the REPL
                return []
            hard = [f"{i.message} (at {i.path})" if i.path not in ("$", "$.type") else i.message
                    for i in issues if i.hard]
            if not hard:
                return []
            reports.append(hard)
        return reports[0] if reports else []

    def remarks(self, obj: Any) -> list[str]:
        """Soft issues (unknown fields): sent anyway, but worth a word."""
        if isinstance(obj, dict) and _acp_issues(obj) is not None:
            return [i.message for i in _acp_issues(obj) or [] if not i.hard]
        p = _protocol()
        if p is None or not self._candidates():
            return []
        try:
            issues = p.validate(obj, "c2a", self._candidates()[0])
        except Exception:  # noqa: BLE001 - validation must never stop the REPL
            return []
        return [i.message for i in issues if not i.hard]


def _acp_issues(obj: dict[str, Any]) -> list[Any] | None:
    """A JSON-RPC message's (ACP) issues as the client sends it (``jsonrpc`` added), None for a pi frame."""
    from rpcspy.protocol.acp import looks_jsonrpc, numbered, validate_message

    if not looks_jsonrpc(obj):
        return None
    try:
        return list(validate_message(numbered(obj, 0), "c2a"))
    except Exception:  # noqa: BLE001 - validation must never stop the REPL
        return []
