"""Commands and responses: by id, out of order, id-less answers, dialect exceptions."""

from __future__ import annotations

import pytest

from tests.checker.helpers import A, C, check, cmd, err, ev, hits, ok, rules

READY = A(ev("ready", protocolVersion=1, supportedProtocolVersions=[1, 2], maxFrameBytes=1048576,
             maxReassembledFrameBytes=67108864))
CORR = "correlation."


def corr(findings: list) -> list:  # type: ignore[type-arg]
    return [(f.rule, f.frame) for f in findings if f.rule.startswith(CORR)]


def test_out_of_order_responses_are_fine() -> None:
    """T20: commands are not serialised; correlate by id only."""
    items = [C(cmd("bash", "b", command="sleep 1")), C(cmd("get_state", "s")), A(ok("get_state", "s")),
             A(ok("bash", "b", {"output": "", "exitCode": 0, "cancelled": False, "truncated": False}))]
    assert corr(check(*items)) == []


@pytest.mark.parametrize("cid", [5, None, "", {"a": 1}, [1, 2], 1.5])
def test_ids_of_any_json_type_correlate(cid: object) -> None:
    """T04: pi echoes any JSON value as id (the schema rules flag non-strings separately)."""
    items = [C({"id": cid, "type": "get_state"}), A({"id": cid, "type": "response", "command": "get_state",
                                                     "success": True})]
    assert corr(check(*items)) == []


def test_idless_commands_and_parse_errors_match_by_command() -> None:
    items = [C(cmd("get_state")), C(b"not json"), C(b"42"), C({"id": "x"}),
             A(err("parse", error="Failed to parse")), A(ok("get_state")), A(err(None, error="Unknown command: undefined")),
             A({"id": "x", "type": "response", "success": False, "error": "Unknown command: undefined"})]
    assert corr(check(*items)) == []


def test_pi073_unknown_command_loses_its_id() -> None:
    findings = check(C(cmd("nope", "u")), A(err("nope", error="Unknown command: nope")))
    [f] = [f for f in findings if f.rule == "correlation.idless_error"]
    assert (f.frame, f.related, f.severity) == (2, 1, "warning")
    assert "unanswered" not in " ".join(rules(findings))  # it counts as the answer


def test_pi084_unknown_command_echoes_its_id() -> None:
    assert corr(check(C(cmd("nope", "u")), A(err("nope", "u", "Unknown command: nope")))) == []


def test_duplicate_is_reported_against_the_first_answer() -> None:
    findings = check(C(cmd("get_state", "a")), A(ok("get_state", "a")), A(ok("get_state", "a")))
    [f] = [f for f in findings if f.rule == "correlation.duplicate_response"]
    assert (f.frame, f.related) == (3, 1) and "frame 2" in f.message


def test_omp_prompt_success_then_error_is_documented() -> None:
    """O1 p4: not a duplicate; reported as the client's prompt while streaming instead."""
    items = [READY, C(cmd("prompt", "p1", message="a")), A(ok("prompt", "p1")), A(ev("agent_start")),
             C(cmd("prompt", "p4", message="b")), A(ok("prompt", "p4")),
             A(err("prompt", "p4", "Agent is already processing."))]
    findings = check(*items)
    assert "correlation.duplicate_response" not in rules(findings)
    assert hits(findings, "misuse.prompt_while_streaming") == [5]
    # the same pattern from pi is a duplicate
    assert hits(check(*items[1:]), "correlation.duplicate_response") == [6]


def test_reused_id_keeps_both_commands() -> None:
    items = [C(cmd("get_state", "a")), C(cmd("get_messages", "a")), A(ok("get_state", "a")),
             A(ok("get_messages", "a", {"messages": []}))]
    assert corr(check(*items)) == [("correlation.reused_id", 2)]


def test_answers_and_host_frames_are_not_commands() -> None:
    items = [C({"type": "extension_ui_response", "id": "q", "value": "x"}),
             C({"type": "host_tool_result", "id": "h", "result": {"content": []}})]
    assert hits(check(*items), "correlation.unanswered") == []


def test_bash_updates_must_belong_to_a_pending_bash() -> None:
    update = A({"type": "bash_execution_update", "id": "b1", "delta": "hi\n"})
    assert hits(check(C(cmd("bash", "b1", command="echo hi")), update), "correlation.unknown_id") == []
    assert hits(check(update), "correlation.unknown_id") == [1]


def test_unanswered_message_names_the_command() -> None:
    [f] = [f for f in check(C(cmd("get_state", "s1"))) if f.rule == "correlation.unanswered"]
    assert "`get_state`" in f.message and '"s1"' in f.message and f.dir == "c2a"
