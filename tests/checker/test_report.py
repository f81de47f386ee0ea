"""Rendering results: text lines, summaries, JUnit structure."""

from __future__ import annotations

import io
import json
from xml.etree import ElementTree as ET

from rpcspy.checker.report import Result, finding_dict, junit, live_line, paint, reported, summary, text_line, write
from rpcspy.events import Finding

F1 = Finding(1, 1.25, "misuse.null_frame", "error", "misuse", "client sent `null`", 4, "c2a", None, None)
F2 = Finding(2, 2.0, "framing.over_64k", "info", "framing", "big", 9, "a2c", None, 3, {"bytes": 70000})


def test_text_line() -> None:
    assert text_line("r.jsonl", F1) == "r.jsonl:4 → error   misuse.null_frame: client sent `null`"
    assert text_line("r.jsonl", F2).endswith("big (see frame 3)")


def test_live_line_and_the_one_severity_order() -> None:
    assert live_line(F1) == "rpcspy: error misuse.null_frame at frame 4 c2a (t=1.250s): client sent `null`"
    assert live_line(Finding(1, 0.5, "r.x", "info", "r", "m", 2, None, "$.id")) == \
        "rpcspy: info r.x at frame 2 (t=0.500s): m [$.id]"
    assert reported("error", "warning") and reported("warning", "warning") and not reported("info", "warning")
    assert reported("info", "info") and not reported("warning", "error")
    assert paint("x", "error") == "\x1b[1;31mx\x1b[0m" and paint("x", "note") == "\x1b[2mx\x1b[0m"


def test_summary_counts() -> None:
    r = Result("r.jsonl", "pi-0.73", "why", 1, [F1, F2])
    assert summary(r) == "r.jsonl: 1 error, 0 warnings, 1 info in 1 frame (dialect pi-0.73)"


def test_json_lines() -> None:
    out = io.StringIO()
    write("json", Result("r.jsonl", "omp", "", 2, [F2]), out)
    row = json.loads(out.getvalue())
    assert row == {"file": "r.jsonl", **{k: getattr(F2, k) for k in row if k != "file"}}
    assert finding_dict("x", F1)["dir"] == "c2a"


def test_junit_failures_follow_the_threshold() -> None:
    clean = Result("a.jsonl", "pi-0.73", "", 5, [])
    dirty = Result("b.jsonl", "pi-0.73", "", 5, [F1, F2])
    root = ET.fromstring(junit([clean, dirty], threshold=2))
    a, b = root.findall("testsuite")
    assert [c.get("name") for c in a.findall("testcase")] == ["protocol"] and a.get("failures") == "0"
    assert b.get("tests") == "2" and b.get("failures") == "1"
    info_case = b.findall("testcase")[1]
    assert info_case.find("failure") is None and "big" in (info_case.findtext("system-out") or "")
    assert root.get("failures") == "1" and root.get("tests") == "3"
    assert len(ET.fromstring(junit([dirty], threshold=0)).find("testsuite").findall(".//failure")) == 2  # type: ignore[union-attr]
