"""Completion of command types, fields and values (pure candidates and the prompt-toolkit adapter)."""

from __future__ import annotations

import pytest
from prompt_toolkit.completion import CompleteEvent
from prompt_toolkit.document import Document

from rpcspy.interactive.complete import ReplCompleter, completions
from rpcspy.interactive.schema import CommandSchema

PI = CommandSchema("pi-0.73")


def texts(text: str, schema: CommandSchema = PI) -> list[str]:
    return [c.text for c in completions(text, schema)]


@pytest.mark.parametrize(("text", "expected"), [
    ("set_t", ["set_thinking_level"]),
    ("abo", ["abort", "abort_bash", "abort_retry"]),
    ("!abo", ["abort", "abort_bash", "abort_retry"]),
    ("set_thinking_level h", ["high"]),
    ("set_steering_mode o", ["one-at-a-time"]),
    ("prompt streamingBehavior=", ["steer", "followUp"]),
    ("prompt streamingBehavior=f", ["followUp"]),
    ("prompt str", ["streamingBehavior="]),
    ("prompt hello ", []),
    ("set_model anthropic ", ["modelId=", "id="]),
    ("set_auto_compaction ", ["true", "false", "enabled=", "id="]),
    ("/q", ["/quit"]),
    ('{"type": "get_s', ["get_session_stats", "get_state"]),
    ('{"type": "prompt", "m', ["message"]),
    ('{"type": "prompt", "message": "x", "', ["images", "streamingBehavior", "id"]),
    ("nosuchcommand ", []),
])
def test_candidates(text: str, expected: list[str]) -> None:
    assert texts(text) == expected


def test_first_word_lists_commands_first_then_answers() -> None:
    names = texts("")
    assert names[0] == "abort" and names[-1] == "extension_ui_response"
    assert "get_tree" not in names and "get_tree" in texts("", CommandSchema("pi-0.84"))
    assert "get_tree" in texts("", CommandSchema(None)), "an undecided dialect offers every dialect's commands"


def test_replacement_starts_where_the_word_starts() -> None:
    (c,) = completions("set_thinking_level me", PI)
    assert (c.text, c.start, c.meta) == ("medium", -2, "level")
    fields = {x.text: x.meta for x in completions("prompt ", PI)}
    assert fields["message="] == "required string" and fields["streamingBehavior="] == "'steer' | 'followUp'"


def test_prompt_toolkit_adapter_follows_the_schema_it_is_given() -> None:
    schema = {"now": PI}
    completer = ReplCompleter(lambda: schema["now"])
    doc = Document("get_t")
    assert [c.text for c in completer.get_completions(doc, CompleteEvent())] == []
    schema["now"] = CommandSchema("pi-0.84")
    got = list(completer.get_completions(doc, CompleteEvent()))
    assert [(c.text, c.start_position) for c in got] == [("get_tree", -5)]
