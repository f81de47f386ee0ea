"""omp 18.3.4's own shapes, with frames written from its sources (src/modes/rpc/*.ts, session-entries.d.ts,
agent-session-events.ts, isTodoPhase): its native addon is not on the registry, so no live omp 18.3."""

from __future__ import annotations

import pytest

from rpcspy.protocol import validate
from tests.protocol.test_validate import ASSISTANT, kinds

PHASES = [{"name": "Build", "tasks": [{"content": "write it", "status": "in_progress"},
                                      {"content": "test it", "status": "blocked", "notes": "waits"}]}]
ENTRY = {"id": "e1", "parentId": None, "timestamp": "2026-11-24T10:00:00.000Z"}
OMP_ENTRIES = [
    {**ENTRY, "type": "message", "message": {"role": "user", "content": "hi", "timestamp": 1}},
    {**ENTRY, "type": "model_change", "model": "fake/fake-model", "role": "default"},
    {**ENTRY, "type": "thinking_level_change", "thinkingLevel": None, "configured": "auto"},
    {**ENTRY, "type": "model_usage", "purpose": "title", "api": "openai-completions", "provider": "fake",
     "model": "fake-model", "usage": {}, "stopReason": "stop"},
    {**ENTRY, "type": "title_change", "title": "A session", "source": "auto"},
    {**ENTRY, "type": "session_init", "systemPrompt": "s", "task": "t", "tools": ["bash"]},
    {**ENTRY, "type": "reset_boundary"},
]

CLEAN_OMP_FRAMES = [
    ("a2c", {"type": "prompt_result", "id": "p1", "agentInvoked": True, "status": "aborted", "sessionSettled": True}),
    ("a2c", {"type": "prompt_result", "id": "p2", "agentInvoked": True, "status": "error", "sessionSettled": False,
             "error": {"message": "503", "retryable": True, "httpStatus": 503}}),
    ("a2c", {"type": "session_settled"}),
    ("a2c", {"type": "message_start", "messageId": "msg-1", "message": ASSISTANT}),
    ("a2c", {"type": "auto_retry_start", "attempt": 1, "maxAttempts": 3, "delayMs": 244.71141790865218,
             "errorMessage": "503 Service Unavailable", "errorId": 7}),
    ("a2c", {"type": "auto_retry_end", "success": True, "attempt": 1}),
    ("a2c", {"type": "thinking_level_changed", "thinkingLevel": "medium", "configured": "auto", "resolved": "medium"}),
    ("a2c", {"type": "thinking_level_changed"}),
    ("c2a", {"id": "t", "type": "set_todos", "phases": PHASES}),
    ("a2c", {"type": "response", "id": "t", "command": "set_todos", "success": True, "data": {"todoPhases": PHASES}}),
    ("c2a", {"id": "f", "type": "set_event_filter", "events": ["agent_end", "prompt_result"]}),
    ("a2c", {"type": "response", "id": "f", "command": "set_event_filter", "success": True,
             "data": {"events": ["agent_end", "prompt_result"]}}),
    ("c2a", {"id": "o", "type": "open_session", "sessionDir": "/tmp/s"}),
    ("a2c", {"type": "response", "id": "o", "command": "open_session", "success": True,
             "data": {"cancelled": False, "resumed": False, "sessionId": "abc"}}),
    ("a2c", {"type": "response", "id": "e", "command": "get_entries", "success": True,
             "data": {"entries": OMP_ENTRIES, "leafId": "e1"}}),
    ("a2c", {"type": "response", "id": "g", "command": "get_tree", "success": True,
             "data": {"tree": [{"entry": OMP_ENTRIES[1], "children": []}], "leafId": None}}),
    ("a2c", {"type": "response", "id": "l", "command": "get_available_thinking_levels", "success": True,
             "data": {"levels": ["off", "low", "high"]}}),
    ("a2c", {"type": "response", "id": "u", "command": "no_such", "success": False,
             "error": "Unknown command: no_such"}),
]


@pytest.mark.parametrize("direction, frame", CLEAN_OMP_FRAMES, ids=lambda v: v.get("type", "") + "/" +
                         str(v.get("command", "")) if isinstance(v, dict) else v)
def test_omp_183_frames_are_clean(direction: str, frame: dict) -> None:
    assert validate(frame, direction, "omp") == []


def test_pis_entry_and_todo_shapes_do_not_apply_to_omp() -> None:
    pi_model_change = {**ENTRY, "type": "model_change", "provider": "fake", "modelId": "m"}
    frame = {"type": "response", "id": "e", "command": "get_entries", "success": True,
             "data": {"entries": [pi_model_change], "leafId": None}}
    assert ("missing_field", "$.data.entries[0].model") in kinds(validate(frame, "a2c", "omp"))
    bad = {"id": "t", "type": "set_todos", "phases": [{"name": "x", "tasks": [{"content": "c", "status": "done"}]}]}
    assert kinds(validate(bad, "c2a", "omp")) == {("bad_enum", "$.phases[0].tasks[0].status")}


def test_omp_retry_delay_is_a_number_but_attempt_stays_an_integer() -> None:
    frame = {"type": "auto_retry_start", "attempt": 1.5, "maxAttempts": 3, "delayMs": 1.25, "errorMessage": "x"}
    assert kinds(validate(frame, "a2c", "omp")) == {("wrong_type", "$.attempt")}
