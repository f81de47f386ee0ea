"""Conform output: text, JSON, JUnit."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

from rpcspy.conform.cases import BY_ID
from rpcspy.conform.report import Row, junit, text, to_json
from rpcspy.conform.script import deviation, failed, passed, skipped

ROWS = [
    Row(BY_ID["framing.lf"], passed("answered"), 0.5),
    Row(BY_ID["framing.blank_line"], deviation("parse error"), 0.7, ("framing.blank_line",)),
    Row(BY_ID["framing.null"], failed("exit 1"), 0.9),
    Row(BY_ID["lifecycle.compaction"], skipped("too small"), 1.0),
]


def test_text_names_the_rule_of_each_deviation_and_failure() -> None:
    out = text(ROWS, "pi --mode rpc")
    assert out.splitlines()[0] == "rpcspy conform: pi --mode rpc"
    assert "DEVIATION framing.blank_line" in out and "[framing.blank_line]" in out
    assert "FAILED    framing.null" in out and "[misuse.null_frame]" in out
    assert out.rstrip().endswith("4 case(s): 1 passed, 1 deviation, 1 failed, 1 skipped")


def test_json_lists_every_case() -> None:
    doc = json.loads(to_json(ROWS, "a"))
    assert doc["counts"] == {"passed": 1, "deviation": 1, "failed": 1, "skipped": 1}
    blank = doc["cases"][1]
    assert (blank["id"], blank["status"], blank["rule"], blank["findings"]) == (
        "framing.blank_line", "deviation", "framing.blank_line", ["framing.blank_line"])


def test_junit_failures_and_skips() -> None:
    root = ET.fromstring(junit(ROWS, "a"))
    assert (root.get("tests"), root.get("failures"), root.get("skipped")) == ("4", "1", "1")
    cases = {c.get("name"): c for c in root}
    assert cases["framing.null"].find("failure").get("message") == "exit 1"
    assert cases["lifecycle.compaction"].find("skipped") is not None
    assert "deviation: parse error" in cases["framing.blank_line"].find("system-out").text


def test_card_links_each_deviation_to_its_rule_section() -> None:
    from rpcspy.conform.report import card

    md = card({"pi-x": ROWS, "omp-y": ROWS[:1]})
    lines = md.splitlines()
    assert lines[0] == "| case | pi-x | omp-y |"
    blank = next(line for line in lines if line.startswith("| `framing.blank_line`"))
    assert "**deviation** [`framing.blank_line`](rules.md#framingblank_line)" in blank
    assert blank.endswith("| - |")  # omp-y did not run it
    assert "- `framing.null` **failed**: exit 1" in md and "Rule: [`misuse.null_frame`](rules.md#misusenull_frame)" in md


def test_generated_card_covers_every_case_and_links_existing_rules() -> None:
    import re
    from pathlib import Path

    from rpcspy.checker import RULES
    from rpcspy.conform.cases import CASES

    card_md = (Path(__file__).parents[2] / "docs" / "conformance.md").read_text()
    for c in CASES:
        assert f"| `{c.id}`:" in card_md, c.id
    anchors = {r.replace(".", ""): r for r in RULES}
    linked = re.findall(r"\[`([a-z_.]+)`\]\(rules\.md#([a-z_]+)\)", card_md)
    assert linked
    for rule, anchor in linked:
        assert anchors.get(anchor) == rule


def test_what_the_agent_said_reaches_no_terminal_raw() -> None:
    from tests.support.hostile_text import PAYLOAD, raw_controls

    rows = [Row(BY_ID["framing.null"], failed(f"agent said {PAYLOAD}"), 0.1),
            Row(BY_ID["framing.blank_line"], deviation(PAYLOAD), 0.1)]
    for out in (text(rows, "a"), to_json(rows, "a"), junit(rows, "a")):
        assert "PWNED" in out and raw_controls(out) == []
    assert ET.fromstring(junit(rows, "a")) is not None and json.loads(to_json(rows, "a"))
