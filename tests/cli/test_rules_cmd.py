"""``rpcspy rules``: the catalogue as a table, one rule explained, Markdown and JSON."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from rpcspy.checker import RULES
from rpcspy.checker.catalogue_doc import to_markdown
from rpcspy.cli import main


def run(*args: str):  # type: ignore[no-untyped-def]
    return CliRunner().invoke(main, ["rules", *args], env={"COLUMNS": "160"})


def test_table_lists_every_rule() -> None:
    res = run()
    assert res.exit_code == 0, res.output
    for rule in RULES.values():
        assert rule.id in res.stdout and rule.summary in res.stdout
    assert f"{len(RULES)} rules" in res.stdout and "\x1b" not in res.stdout


def test_group_filter() -> None:
    res = run("--group", "misuse")
    ids = [r.id for r in RULES.values() if r.group == "misuse"]
    assert all(i in res.stdout for i in ids) and "framing.crlf" not in res.stdout
    assert run("--group", "nope").exit_code == 2


@pytest.mark.parametrize("rule_id", ["misuse.null_frame", "correlation.idless_error", "stream.text_mismatch"])
def test_explain_one(rule_id: str) -> None:
    res = run(rule_id)
    rule = RULES[rule_id]
    assert res.exit_code == 0
    assert rule_id in res.stdout and rule.severity in res.stdout and f"group: {rule.group}" in res.stdout
    assert "Fix" in res.stdout


def test_unknown_rule_suggests() -> None:
    res = run("null_frame")
    assert res.exit_code == 2 and "did you mean misuse.null_frame" in res.stderr


def test_markdown_is_the_generated_doc() -> None:
    res = run("--format", "markdown")
    assert res.exit_code == 0 and res.stdout == to_markdown()
    one = run("framing.bom", "--format", "markdown")
    assert one.stdout.startswith("### framing.bom\n\n**error**")


def test_json() -> None:
    rows = [json.loads(line) for line in run("--format", "json").stdout.splitlines()]
    assert [r["id"] for r in rows] == list(RULES)
    assert set(rows[0]) == {"id", "severity", "group", "summary", "explanation"}
    assert json.loads(run("framing.crlf", "--format", "json").stdout)["severity"] == "warning"


def test_listed_in_help() -> None:
    res = CliRunner().invoke(main, ["--help"])
    assert "rules" in res.output and "check" in res.output
