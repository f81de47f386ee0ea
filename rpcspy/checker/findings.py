"""The sink every rule reports into: builds :class:`Finding` values from the catalogue."""

from __future__ import annotations

from typing import Any

from rpcspy.checker.rules import RULES
from rpcspy.events import Finding


class Sink:
    """Collects the findings of one ``feed``/``finish`` call.

    ``ignore`` drops rules by id; ``severity_overrides`` changes a rule's default
    (``--strict-fields`` turns ``schema.unknown_field`` into a warning).
    """

    __slots__ = ("out", "ignore", "overrides")

    def __init__(self, ignore: frozenset[str] = frozenset(), overrides: dict[str, str] | None = None) -> None:
        self.out: list[Finding] = []
        self.ignore = ignore
        self.overrides = overrides or {}

    def emit(
        self,
        rule: str,
        t: float,
        frame: int | None,
        dir: str | None,
        message: str,
        *,
        path: str | None = None,
        related: int | None = None,
        extra: dict[str, Any] | None = None,
    ) -> None:
        """Report ``rule`` about frame ``frame`` (its seq) seen in direction ``dir``."""
        if rule in self.ignore:
            return
        spec = RULES[rule]
        severity = self.overrides.get(rule, spec.severity)
        self.out.append(Finding(
            seq=0, t=t, rule=rule, severity=severity, group=spec.group,  # type: ignore[arg-type]
            message=message, frame=frame, dir=dir, path=path, related=related,  # type: ignore[arg-type]
            extra=extra if extra is not None else {},
        ))

    def take(self) -> list[Finding]:
        """Return what was collected and start a new batch."""
        out = self.out
        self.out = []
        return out
