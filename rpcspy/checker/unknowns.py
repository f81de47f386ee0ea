"""What the checker did not know in a session: unknown agent frame types and unknown fields, grouped.

Used by ``scripts/probe-agent`` when a new agent version is added (docs/dialects.md): one line per
frame type or field path (array indices folded to ``[]``), with how often and where it first
appeared, so the diff between the agent and the dialect reads at a glance.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from rpcspy.events import Finding

UNKNOWN_RULES = frozenset({"schema.unknown_agent_type", "schema.unknown_type", "schema.unknown_field"})
_INDEX = re.compile(r"\[\d+\]")
_NESTED = re.compile(r"(\.children\[\])+")


@dataclass(slots=True)
class Unknown:
    """One thing the dialect does not know, with its count and first occurrence."""

    rule: str
    dir: str | None
    path: str
    """The JSON path with indices folded (``$.data.messages[].durationMs``); a type's ``$.type``."""
    count: int
    first_frame: int | None
    message: str
    """The first finding's message."""


def fold(path: str | None) -> str:
    """``$.a[3].b[0].children[0].children[1].c`` -> ``$.a[].b[].children[].c``."""
    return _NESTED.sub(".children[]", _INDEX.sub("[]", path or "$"))


def unknowns(findings: Iterable[Finding]) -> list[Unknown]:
    """The unknown-type and unknown-field findings, one :class:`Unknown` per (rule, dir, folded path or type)."""
    out: dict[tuple[str, str | None, str], Unknown] = {}
    for f in findings:
        if f.rule not in UNKNOWN_RULES:
            continue
        where = fold(f.path) if f.rule == "schema.unknown_field" else f.message.split(" (", 1)[0].split(":", 1)[0]
        key = (f.rule, f.dir, where)
        hit = out.get(key)
        if hit is None:
            out[key] = Unknown(f.rule, f.dir, where, 1, f.frame, f.message)
        else:
            hit.count += 1
    return sorted(out.values(), key=lambda u: (u.rule, u.dir or "", u.path))


def render(items: list[Unknown]) -> list[str]:
    """One line each: ``a2c schema.unknown_field $.message.durationMs  x25 (first at frame 12)``."""
    return [f"{u.dir or '-'} {u.rule} {u.path}  x{u.count} (first at frame {u.first_frame})" for u in items]
