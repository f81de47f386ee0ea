"""Conformance results as text, JSON and JUnit XML (pure: values in, strings out)."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from xml.sax.saxutils import escape, quoteattr

from rpcspy.conform.cases import Case
from rpcspy.conform.script import STATUSES, Verdict
from rpcspy.inert import inert_json, inert_line

MARK = {"passed": "ok", "deviation": "DEVIATION", "failed": "FAILED", "skipped": "skipped"}


@dataclass(frozen=True)
class Row:
    """One case's outcome, as the report needs it."""

    case: Case
    verdict: Verdict
    seconds: float = 0.0
    findings: tuple[str, ...] = ()
    """Checker rule ids seen in the case's transcript."""


def counts(rows: Sequence[Row]) -> dict[str, int]:
    c = Counter(r.verdict.status for r in rows)
    return {s: c.get(s, 0) for s in STATUSES}


def summary(rows: Sequence[Row]) -> str:
    return ", ".join(f"{n} {s}" for s, n in counts(rows).items() if n)


def text(rows: Sequence[Row], agent: str) -> str:
    width = max((len(r.case.id) for r in rows), default=10)
    out = [f"rpcspy conform: {agent}"]
    for r in rows:
        ref = f"  [{r.case.rule}]" if r.case.rule and r.verdict.status != "passed" else ""
        out.append(f"  {MARK[r.verdict.status]:9} {r.case.id:{width}}  {r.verdict.detail}{ref}")
    out.append(f"{len(rows)} case(s): {summary(rows)}")
    return "\n".join(map(inert_line, out)) + "\n"  # a verdict's detail may quote what the agent said


def to_json(rows: Sequence[Row], agent: str) -> str:
    cases = [{
        "id": r.case.id, "title": r.case.title, "status": r.verdict.status, "detail": r.verdict.detail,
        "doc": r.case.doc, "rule": r.case.rule, "needs_model": r.case.needs_model,
        "seconds": round(r.seconds, 3), "findings": sorted(set(r.findings)),
    } for r in rows]
    return inert_json(json.dumps({"agent": agent, "counts": counts(rows), "cases": cases}, indent=2,
                                 ensure_ascii=False)) + "\n"


def junit(rows: Sequence[Row], agent: str) -> str:
    c = counts(rows)
    out = ['<?xml version="1.0" encoding="UTF-8"?>',
           f'<testsuite name={quoteattr("rpcspy conform: " + agent)} tests="{len(rows)}" '
           f'failures="{c["failed"]}" skipped="{c["skipped"]}">']
    for r in rows:
        attrs = f'classname={quoteattr("conform." + r.case.group)} name={quoteattr(r.case.id)} time="{r.seconds:.3f}"'
        body = ""
        detail = escape(inert_line(r.verdict.detail))
        if r.verdict.status == "failed":
            body = f'<failure message={quoteattr(inert_line(r.verdict.detail))}>{escape(r.case.doc)}</failure>'
        elif r.verdict.status == "skipped":
            body = f'<skipped message={quoteattr(inert_line(r.verdict.detail))}/>'
        elif r.verdict.status == "deviation":
            body = f"<system-out>deviation: {detail} (rule {escape(r.case.rule or '-')})</system-out>"
        out.append(f"  <testcase {attrs}>{body}</testcase>" if body else f"  <testcase {attrs}/>")
    out.append("</testsuite>")
    return "\n".join(out) + "\n"


FORMATS = {"text": text, "json": to_json, "junit": junit}


def rule_link(rule: str, rules_doc: str = "rules.md") -> str:
    """A Markdown link to ``rule``'s section of docs/rules.md (GitHub anchors drop the dot)."""
    return f"[`{rule}`]({rules_doc}#{rule.replace('.', '')})"


def card(results: dict[str, Sequence[Row]]) -> str:
    """The Markdown report card: one column per agent, one row per case; each deviation and
    failure links the rule that explains it, and the details follow per agent."""
    agents = list(results)
    cases: list[Case] = []
    for rows in results.values():
        for r in rows:
            if r.case not in cases:
                cases.append(r.case)
    verdicts = {(a, r.case.id): r for a, rows in results.items() for r in rows}
    out = ["| case | " + " | ".join(agents) + " |", "|---|" + "---|" * len(agents)]
    for c in cases:
        cells = []
        for a in agents:
            found = verdicts.get((a, c.id))
            if found is None:
                cells.append("-")
                continue
            status = found.verdict.status
            cells.append(f"**{status}** {rule_link(c.rule)}" if status in ("deviation", "failed") and c.rule
                         else f"**{status}**" if status != "passed" else "passed")
        out.append(f"| `{c.id}`: {c.title} | " + " | ".join(cells) + " |")
    out.append("")
    out.append("| totals | " + " | ".join(summary(results[a]) for a in agents) + " |")
    for a in agents:
        out += ["", f"### {a}", ""]
        for r in results[a]:
            if r.verdict.status == "passed":
                continue
            ref = f" Rule: {rule_link(r.case.rule)}." if r.case.rule else ""
            out.append(f"- `{r.case.id}` **{r.verdict.status}**: {r.verdict.detail} (checks: {r.case.doc}).{ref}")
    return "\n".join(out) + "\n"
