"""The catalogue: its integrity, and one firing plus one quiet case for every rule."""

from __future__ import annotations

import importlib

import pytest

from rpcspy.checker import GROUPS, RULES, SEVERITIES
from rpcspy.checker.rules import rules_in_group
from tests.checker.cases import CASES, SPECIAL
from tests.checker.helpers import check, hits

RULE_IDS = list(RULES)


def test_catalogue_is_well_formed() -> None:
    assert len(RULE_IDS) == len(set(RULE_IDS))
    for rule_id, rule in RULES.items():
        group, _, name = rule_id.partition(".")
        assert rule.id == rule_id and rule.group == group and name, rule_id
        assert group in GROUPS and rule.severity in SEVERITIES, rule_id
        assert rule.summary.endswith(".") and len(rule.summary) < 100, rule_id
        assert len(rule.explanation) > 80 and "  " not in rule.explanation, rule_id


def test_every_issue_group_has_rules() -> None:
    for group in ("framing", "schema", "correlation", "lifecycle", "stream", "misuse"):
        assert rules_in_group(group), group


def test_every_rule_has_a_case() -> None:
    assert set(CASES) | set(SPECIAL) == set(RULES)
    assert not set(CASES) & set(SPECIAL)
    for where in SPECIAL.values():  # the named tests exist
        module, _, name = where.partition("::")
        mod = importlib.import_module(module[:-3].replace("/", "."))
        assert callable(getattr(mod, name)), where


# "auto" checks with builtins until the dialect is detected; a fixed dialect takes the typed
# fast path (validate_bytes, Struct deltas). Every case must hold on both paths.
MODES = {"auto": {}, "fixed": {"dialect": "pi-0.84"}}


def _kw(case, mode: str) -> dict:  # type: ignore[no-untyped-def]
    return {**MODES[mode], **case.kw}


@pytest.mark.parametrize("mode", list(MODES))
@pytest.mark.parametrize("rule_id", sorted(CASES))
def test_rule_fires(rule_id: str, mode: str) -> None:
    case = CASES[rule_id]
    findings = check(*case.fires, **_kw(case, mode))
    assert case.at in hits(findings, rule_id), [(f.rule, f.frame, f.message) for f in findings]
    found = next(f for f in findings if f.rule == rule_id and f.frame == case.at)
    rule = RULES[rule_id]
    assert (found.severity, found.group) == (rule.severity, rule.group)
    assert found.message and found.seq == 0


@pytest.mark.parametrize("mode", list(MODES))
@pytest.mark.parametrize("rule_id", sorted(CASES))
def test_rule_stays_quiet(rule_id: str, mode: str) -> None:
    case = CASES[rule_id]
    findings = check(*case.quiet, **_kw(case, mode))
    assert hits(findings, rule_id) == [], [(f.rule, f.frame, f.message) for f in findings]


@pytest.mark.parametrize("rule_id", sorted(CASES))
def test_ignored_rule_never_reported(rule_id: str) -> None:
    case = CASES[rule_id]
    findings = check(*case.fires, ignore=frozenset({rule_id}), **case.kw)
    assert hits(findings, rule_id) == []
