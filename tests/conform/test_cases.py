"""The battery's judges and selection, on hand-made transcripts (no processes)."""

from __future__ import annotations

import json

from rpcspy.checker import RULES
from rpcspy.conform.cases import BY_ID, CASES, select
from rpcspy.conform.script import Transcript
from rpcspy.events import Frame


def transcript(*agent: dict | bytes, exit_code: int | None = None, rules: tuple[str, ...] = ()) -> Transcript:
    frames = [Frame(i + 1, float(i), "a2c", a if isinstance(a, bytes) else json.dumps(a).encode())
              for i, a in enumerate(agent)]
    t = Transcript(frames=frames, exit_code=exit_code)
    from rpcspy.events import Finding

    t.findings = [Finding(0, 0.0, r, "error", r.split(".")[0], "") for r in rules]
    return t


PROBE_OK = {"id": "probe", "type": "response", "command": "get_state", "success": True}


def judge(case_id: str, t: Transcript) -> str:
    return BY_ID[case_id].judge(t).status


def test_every_case_names_a_known_rule_and_a_doc_section() -> None:
    assert len(CASES) >= 20 and len(BY_ID) == len(CASES)
    for c in CASES:
        assert c.doc and c.steps
        assert c.rule is None or c.rule in RULES, c.rule
    groups = {c.group for c in CASES}
    assert groups == {"framing", "id", "errors", "ordering", "lifecycle", "dialogs", "shutdown"}


def test_select_by_glob_and_without_model() -> None:
    assert [c.id for c in select(("framing.n*",))] == ["framing.null"]
    no_model = select(model=False)
    assert no_model and not any(c.needs_model for c in no_model)
    assert "lifecycle.run" not in {c.id for c in no_model}


def test_null_crash_is_failed_an_error_is_passed_silence_is_a_deviation() -> None:
    assert judge("framing.null", transcript(exit_code=1)) == "failed"
    err = {"type": "response", "command": "parse", "success": False, "error": "null"}
    assert judge("framing.null", transcript(err, PROBE_OK)) == "passed"
    assert judge("framing.null", transcript(PROBE_OK)) == "deviation"


def test_blank_line_answered_with_a_parse_error_is_a_deviation() -> None:
    err = {"type": "response", "command": "parse", "success": False, "error": "Unexpected end"}
    assert judge("framing.blank_line", transcript(err, PROBE_OK)) == "deviation"
    assert judge("framing.blank_line", transcript(PROBE_OK)) == "passed"
    assert judge("framing.blank_line", transcript()) == "failed"


def test_unknown_command_without_the_id_is_a_deviation_for_id_but_passes_errors() -> None:
    idless = {"type": "response", "command": "frobnicate", "success": False, "error": "Unknown command"}
    t = transcript(idless, PROBE_OK)
    assert judge("id.unknown_command", t) == "deviation"
    assert judge("errors.unknown_command", t) == "passed"
    assert judge("id.unknown_command", transcript({**idless, "id": "unk"}, PROBE_OK)) == "passed"


def test_bad_enum_accepted_is_a_deviation() -> None:
    ok = {"id": "be", "type": "response", "command": "set_steering_mode", "success": True}
    assert judge("errors.bad_enum", transcript(ok, PROBE_OK)) == "deviation"
    assert judge("errors.bad_enum", transcript({**ok, "success": False, "error": "bad mode"}, PROBE_OK)) == "passed"


def test_two_prompts_dropped_silently_is_a_deviation() -> None:
    r = {"type": "response", "command": "prompt", "success": True}
    one_run = transcript({**r, "id": "p1"}, {**r, "id": "p2"}, {"type": "agent_start"}, {"type": "agent_end"})
    assert judge("lifecycle.two_prompts", one_run) == "deviation"
    refused = transcript({**r, "id": "p1"}, {**r, "id": "p2", "success": False, "error": "busy"})
    assert judge("lifecycle.two_prompts", refused) == "passed"


def test_run_uses_the_checkers_lifecycle_findings() -> None:
    run = transcript({"type": "agent_start"}, {"type": "agent_end"})
    assert judge("lifecycle.run", run) == "passed"
    assert judge("lifecycle.run", transcript({"type": "agent_start"}, {"type": "agent_end"},
                                             rules=("lifecycle.turn_unbalanced",))) == "deviation"
    assert judge("lifecycle.run", transcript({"type": "agent_start"})) == "failed"


def test_eof_during_a_run_without_agent_end_is_a_deviation() -> None:
    assert judge("shutdown.eof_running", transcript({"type": "agent_start"}, exit_code=0)) == "deviation"
    assert judge("shutdown.eof_running", transcript({"type": "agent_start"}, {"type": "agent_end"}, exit_code=0)) == "passed"
    assert judge("shutdown.eof_running", transcript({"type": "agent_start"})) == "failed"


def _ui(method: str, **fields) -> dict:
    return {"type": "extension_ui_request", "id": "u1", "method": method, **fields}


def test_dialog_judges() -> None:
    prompt_ok = {"id": "d", "type": "response", "command": "prompt", "success": True}
    answered = transcript(_ui("confirm", title="t", message="m"), _ui("notify", message="conform-ask -> true"), prompt_ok)
    assert judge("dialogs.answered", answered) == "passed"
    assert judge("dialogs.cancelled", answered) == "failed"  # the extension saw true, not false
    stale = transcript(_ui("confirm", timeout=400), prompt_ok, _ui("notify", message="conform-ask -> false"))
    assert judge("dialogs.timed_out", stale) == "deviation"
    told = transcript(_ui("confirm", timeout=400), _ui("cancel", targetId="u1"), prompt_ok,
                      _ui("notify", message="conform-ask -> false"))
    assert judge("dialogs.timed_out", told) == "passed"
    no_ext = transcript(exit_code=1)
    no_ext.stderr = 'Error: Failed to load extension "/tmp/x/rpcspy-conform.js": Failed to load extension: Cannot find module \'jiti\''
    v = BY_ID["dialogs.answered"].judge(no_ext)
    assert v.status == "skipped" and "exited with 1" in v.detail and "Cannot find module 'jiti'" in v.detail
    assert "/tmp/x" not in v.detail
