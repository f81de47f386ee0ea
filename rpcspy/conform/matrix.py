"""Several agents through the battery in one call: one table, JSON or JUnit, and a baseline (pure).

``results`` maps each agent's label to its rows (:class:`~rpcspy.conform.report.Row`), in the
order the agents were given. The text table has a row per case and a column per agent; JSON
has the same, per case, per agent; JUnit has one ``testsuite`` per agent. A conformance
baseline (``conform --write-baseline``) accepts each case's outcome per agent that was not
``passed``: a case that fails where the baseline did not accept a failure is **new**; an
accepted deviation or failure that now passes is **stale** (fixed).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from xml.sax.saxutils import quoteattr

from rpcspy.checker.baseline import BaselineError, dump_entries, entries_of
from rpcspy.conform.cases import Case
from rpcspy.conform.report import MARK, Row, counts, junit, summary

FORMAT = "rpcspy-conform-baseline"
VERSION = 1
_RANK = {"passed": 0, "skipped": 0, "deviation": 1, "failed": 2}


def _cases(results: Mapping[str, Sequence[Row]]) -> list[Case]:
    out: list[Case] = []
    for rows in results.values():
        for r in rows:
            if r.case not in out:
                out.append(r.case)
    return out


def text(results: Mapping[str, Sequence[Row]]) -> str:
    """One row per case, one column per agent; totals last."""
    agents = list(results)
    verdicts = {(a, r.case.id): r for a, rows in results.items() for r in rows}
    cases = _cases(results)
    width = max((len(c.id) for c in cases), default=10)
    cols = [max(len(a), 9) for a in agents]
    out = ["rpcspy conform: " + ", ".join(agents),
           f"  {'case':{width}}  " + "  ".join(f"{a:{w}}" for a, w in zip(agents, cols, strict=True))]
    for c in cases:
        cells = []
        for a, w in zip(agents, cols, strict=True):
            found = verdicts.get((a, c.id))
            cells.append(f"{MARK[found.verdict.status] if found else '-':{w}}")
        out.append(f"  {c.id:{width}}  " + "  ".join(cells).rstrip())
    for a in agents:
        out.append(f"{a}: {len(results[a])} case(s): {summary(results[a])}")
    return "\n".join(out) + "\n"


def to_json(results: Mapping[str, Sequence[Row]]) -> str:
    verdicts = {(a, r.case.id): r for a, rows in results.items() for r in rows}
    cases = []
    for c in _cases(results):
        per = {}
        for a in results:
            r = verdicts.get((a, c.id))
            if r is not None:
                per[a] = {"status": r.verdict.status, "detail": r.verdict.detail, "seconds": round(r.seconds, 3),
                          "findings": sorted(set(r.findings))}
        cases.append({"id": c.id, "title": c.title, "doc": c.doc, "rule": c.rule, "needs_model": c.needs_model,
                      "results": per})
    doc = {"agents": list(results), "counts": {a: counts(rows) for a, rows in results.items()}, "cases": cases}
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"


def to_junit(results: Mapping[str, Sequence[Row]]) -> str:
    """One testsuite per agent inside one testsuites element."""
    suites = []
    for a, rows in results.items():
        body = junit(rows, a).split("\n", 1)[1]  # without the XML declaration
        suites.append("\n".join("  " + line for line in body.rstrip("\n").split("\n")))
    failed = sum(counts(rows)["failed"] for rows in results.values())
    tests = sum(len(rows) for rows in results.values())
    return ('<?xml version="1.0" encoding="UTF-8"?>\n'
            f'<testsuites name={quoteattr("rpcspy conform")} tests="{tests}" failures="{failed}">\n'
            + "\n".join(suites) + "\n</testsuites>\n")


FORMATS = {"text": text, "json": to_json, "junit": to_junit}


class ConformBaselineError(BaselineError):
    """Not a conformance baseline this rpcspy reads."""


def dump_baseline(results: Mapping[str, Sequence[Row]]) -> str:
    """Every outcome that is not ``passed``, per agent and case, one entry a line."""
    entries = [json.dumps({"agent": a, "case": r.case.id, "status": r.verdict.status}, ensure_ascii=False)
               for a, rows in results.items() for r in rows if _RANK[r.verdict.status] > 0]
    return dump_entries(entries, FORMAT, VERSION)


def load_baseline(text: str) -> dict[tuple[str, str], str]:
    """(agent, case) -> the accepted status."""
    try:
        entries = entries_of(text, FORMAT, VERSION)
    except BaselineError as exc:
        raise ConformBaselineError(str(exc)) from None
    out: dict[tuple[str, str], str] = {}
    for n, e in enumerate(entries, start=1):
        if not isinstance(e, dict) or e.get("status") not in _RANK or not isinstance(e.get("case"), str) \
                or not isinstance(e.get("agent"), str):
            raise ConformBaselineError(f"entry {n} needs agent, case and a status")
        out[(e["agent"], e["case"])] = e["status"]
    return out


@dataclass
class BaselineVerdict:
    new: list[tuple[str, Row]] = field(default_factory=list)
    """failures the baseline did not accept"""
    stale: list[tuple[str, str, str]] = field(default_factory=list)
    """(agent, case, accepted status) that now do better"""


def against_baseline(results: Mapping[str, Sequence[Row]], accepted: dict[tuple[str, str], str]) -> BaselineVerdict:
    """New failures and stale entries, for the agents and cases run this time."""
    out = BaselineVerdict()
    for a, rows in results.items():
        for r in rows:
            allowed = accepted.get((a, r.case.id), "passed")
            if r.verdict.status == "failed" and allowed != "failed":
                out.new.append((a, r))
            elif _RANK[r.verdict.status] < _RANK[allowed]:
                out.stale.append((a, r.case.id, allowed))
    return out
