"""docs/rules.md is generated from the catalogue and must not be stale."""

from __future__ import annotations

from pathlib import Path

from rpcspy.checker import RULES
from rpcspy.checker.catalogue_doc import to_markdown

DOC = Path(__file__).resolve().parents[2] / "docs" / "rules.md"


def test_docs_rules_md_is_up_to_date() -> None:
    assert DOC.read_text() == to_markdown(), \
        "docs/rules.md is stale: python -m rpcspy rules --format markdown > docs/rules.md"


def test_every_rule_has_a_doc_entry_and_index_row() -> None:
    text = to_markdown()
    for rule in RULES.values():
        assert f"\n### {rule.id}\n" in text, rule.id
        assert f"(#{rule.id.replace('.', '')})" in text, rule.id
        assert rule.explanation in text
