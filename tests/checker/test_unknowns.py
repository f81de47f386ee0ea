"""unknowns(): what the checker did not know, folded by path and type."""

from __future__ import annotations

from rpcspy.checker.unknowns import fold, render, unknowns
from tests.checker.helpers import A, C, check, cmd, ev


def test_fold_removes_indices_and_nested_children() -> None:
    assert fold("$.data.tree[0].children[0].children[2].entry.x") == "$.data.tree[].children[].entry.x"
    assert fold("$.messages[12].durationMs") == "$.messages[].durationMs"
    assert fold(None) == "$"


def test_unknown_types_and_fields_are_grouped_with_counts() -> None:
    findings = check(A(ev("agent_settled", aborted=False)), A(ev("new_event", x=1)), A(ev("new_event")),
                     A(ev("agent_start", extra=1)), A(ev("agent_start", extra=2)), *[A(ev("agent_end", messages=[],
                                                                                         willRetry=False))],
                     C(cmd("new_command", "n")))
    got = [(u.rule, u.dir, u.path, u.count, u.first_frame) for u in unknowns(findings)]
    assert got == [
        ("schema.unknown_agent_type", "a2c", "unknown frame type 'new_event' in pi-0.99", 2, 2),
        ("schema.unknown_field", "a2c", "$.extra", 2, 4),
        ("schema.unknown_type", "c2a", "unknown command type 'new_command' in pi-0.99", 1, 7),
    ]
    assert render(unknowns(findings))[1] == "a2c schema.unknown_field $.extra  x2 (first at frame 4)"
