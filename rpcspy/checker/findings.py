"""The sink every rule reports into: builds :class:`Finding` values from the catalogue, and caps them.

A rule that fires on every frame of a long stream would write millions of entries: past
:data:`PER_RULE` findings of one rule, the sink only counts them (with the first and last frame),
and :meth:`Sink.summaries` turns the count into one finding of that rule at the end. The cap lives
here, in the checker, so the live check and ``rpcspy check`` on the recording list the same findings.
"""

from __future__ import annotations

from typing import Any

from rpcspy.checker.rules import RULES
from rpcspy.events import Finding

PER_RULE = 1000
"""Findings of one rule listed one by one; the rest are summarised (:meth:`Sink.summaries`)."""


class Sink:
    """Collects the findings of one ``feed``/``finish`` call.

    ``ignore`` drops rules by id; ``severity_overrides`` changes a rule's default
    (``--strict-fields`` turns ``schema.unknown_field`` into a warning).
    """

    __slots__ = ("out", "ignore", "overrides", "per_rule", "_counts", "_over")

    def __init__(self, ignore: frozenset[str] = frozenset(), overrides: dict[str, str] | None = None,
                 per_rule: int = PER_RULE) -> None:
        self.out: list[Finding] = []
        self.ignore = ignore
        self.overrides = overrides or {}
        self.per_rule = per_rule
        """Findings of one rule :meth:`take` hands out; 0: no cap."""
        self._counts: dict[str, int] = {}
        self._over: dict[str, list[Any]] = {}
        """Per rule past the cap: [count, first finding, last finding]."""

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
            seq=0, t=t, rule=rule, severity=severity, group=spec.group,
            message=message, frame=frame, dir=dir, path=path, related=related,  # type: ignore[arg-type]
            extra=extra if extra is not None else {},
        ))

    def take(self) -> list[Finding]:
        """Return what was collected (up to the cap of each rule) and start a new batch."""
        out = self.out
        self.out = []
        if out and self.per_rule:
            out = self._cap(out)
        return out

    def _cap(self, found: list[Finding]) -> list[Finding]:
        counts, cap, kept = self._counts, self.per_rule, []
        for f in found:
            n = counts[f.rule] = counts.get(f.rule, 0) + 1
            if n <= cap:
                kept.append(f)
            elif (over := self._over.get(f.rule)) is None:
                self._over[f.rule] = [1, f, f]
            else:
                over[0] += 1
                over[2] = f
        return kept

    def summaries(self, t: float) -> list[Finding]:
        """One finding per rule that went past the cap: how many more, their first and last frame (once)."""
        out = []
        for rule, (n, first, last) in self._over.items():
            span = f"frames {first.frame} to {last.frame}" if first.frame is not None else "no frame"
            out.append(Finding(
                seq=0, t=t, rule=rule, severity=first.severity, group=first.group,
                message=f"{n:,} more `{rule}` finding(s) not listed ({span}): only the first "
                        f"{self.per_rule:,} of a rule are; the last said: {last.message}",
                frame=first.frame, dir=first.dir, related=last.frame,
                extra={"more": n, "first_frame": first.frame, "last_frame": last.frame},
            ))
        self._over = {}
        return out
