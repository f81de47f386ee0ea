"""Rendering check results as text, JSON lines or JUnit XML (pure: writes to a given stream)."""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from typing import IO, Any

from rpcspy.checker.rules import SEVERITIES, SEVERITY_RANK
from rpcspy.events import ARROWS, Finding
from rpcspy.inert import inert_json, inert_line

FIELDS = ("seq", "t", "rule", "severity", "group", "message", "frame", "dir", "path", "related", "extra")


@dataclass
class Result:
    """The findings of one recording."""

    path: str
    dialect: str
    reason: str
    frames: int
    findings: list[Finding] = field(default_factory=list)
    native: bool = True
    """An rpcspy recording (frames numbered by ``seq``), not a transcript (frames numbered by line)."""
    notes: list[str] = field(default_factory=list)
    """What the reader must know to weigh the findings (a one-sided file: the rules skipped)."""

    def counts(self) -> Counter[str]:
        return Counter(f.severity for f in self.findings)


def finding_dict(path: str, f: Finding) -> dict[str, Any]:
    """One finding as a JSON object: the Finding fields plus ``file``."""
    out: dict[str, Any] = {"file": path}
    for name in FIELDS:
        out[name] = getattr(f, name)
    out["t"] = round(f.t, 6)
    return out


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 or word == "info" else "s")


def summary(result: Result) -> str:
    c = result.counts()
    parts = ", ".join(_plural(c[s], s) for s in SEVERITIES)
    return inert_line(f"{result.path}: {parts} in {_plural(result.frames, 'frame')} (dialect {result.dialect})")


def text_line(path: str, f: Finding) -> str:
    """One finding on one line, every recorded string in it made inert (:func:`rpcspy.inert.inert_line`)."""
    where = f"{path}:{f.frame}" if f.frame is not None else path
    arrow = ARROWS.get(f.dir or "", " ")
    line = f"{where} {arrow} {f.severity:<7} {f.rule}: {f.message}"
    if f.path:
        line += f" [{f.path}]"
    if f.related is not None:
        line += f" (see frame {f.related})"
    return inert_line(line)


_ANSI = {"error": "\x1b[1;31m", "warning": "\x1b[33m", "info": "\x1b[2m", "note": "\x1b[2m"}


def reported(severity: str, minimum: str) -> bool:
    """The finding is at least as severe as ``minimum`` (the one severity order: :data:`SEVERITY_RANK`)."""
    return SEVERITY_RANK[severity] >= SEVERITY_RANK[minimum]


def live_line(f: Finding) -> str:
    """One finding as the live proxy reports it as it happens (``rpcspy run --report``)."""
    where = f"frame {f.frame} {f.dir or ''}".rstrip()
    text = f"rpcspy: {f.severity} {f.rule} at {where} (t={f.t:.3f}s): {f.message}"
    return inert_line(text + f" [{f.path}]" if f.path else text)


def paint(text: str, kind: str) -> str:
    """``text`` coloured for a terminal: ``kind`` is a severity, or ``note`` (dim)."""
    return f"{_ANSI[kind]}{text}\x1b[0m"


def write(fmt: str, result: Result, out: IO[str]) -> None:
    """Write one recording's findings in ``fmt`` ("text" or "json")."""
    if fmt == "json":
        for f in result.findings:
            out.write(inert_json(json.dumps(finding_dict(result.path, f), ensure_ascii=False)) + "\n")
        return
    for f in result.findings:
        out.write(text_line(result.path, f) + "\n")
    for note in result.notes:
        out.write(f"{result.path}: note: {note}\n")
    out.write(summary(result) + "\n")


def write_total(results: list[Result], out: IO[str]) -> None:
    c: Counter[str] = Counter()
    for r in results:
        c.update(r.counts())
    parts = ", ".join(_plural(c[s], s) for s in SEVERITIES)
    out.write(f"total: {parts} in {_plural(len(results), 'recording')}\n")


def junit(results: list[Result], threshold: int) -> str:
    """JUnit XML: one testsuite per recording, one testcase per finding.

    Findings at or above ``threshold`` (a :data:`SEVERITY_RANK`) are failures; a
    recording without failures also gets one passing ``protocol`` testcase. Recorded strings are
    made inert: XML 1.0 cannot hold most controls, and CI logs show the text on a terminal.
    """
    from xml.etree import ElementTree as ET  # junit only

    root = ET.Element("testsuites", name="rpcspy check")
    total_tests = total_failures = 0
    for r in results:
        suite = ET.SubElement(root, "testsuite", name=inert_line(r.path))
        props = ET.SubElement(suite, "properties")
        ET.SubElement(props, "property", name="dialect", value=inert_line(r.dialect))
        ET.SubElement(props, "property", name="frames", value=str(r.frames))
        for note in r.notes:
            ET.SubElement(props, "property", name="note", value=note)
        failures = 0
        for f in r.findings:
            where = f"frame {f.frame}" if f.frame is not None else "session"
            case = ET.SubElement(suite, "testcase", classname=inert_line(f"rpcspy.{f.group}"),
                                 name=inert_line(f"{f.rule} @ {where}"), file=inert_line(r.path))
            detail = text_line(r.path, f)
            if SEVERITY_RANK[f.severity] >= threshold:
                failures += 1
                fail = ET.SubElement(case, "failure", type=inert_line(f.severity), message=inert_line(f.message))
                fail.text = detail
            else:
                ET.SubElement(case, "system-out").text = detail
        if not failures:
            ET.SubElement(suite, "testcase", classname="rpcspy", name="protocol", file=inert_line(r.path))
        tests = len(r.findings) + (0 if failures else 1)
        suite.set("tests", str(tests))
        suite.set("failures", str(failures))
        suite.set("errors", "0")
        total_tests += tests
        total_failures += failures
    root.set("tests", str(total_tests))
    root.set("failures", str(total_failures))
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def write_junit(results: list[Result], threshold: int, out: IO[str]) -> None:
    out.write(junit(results, threshold))
