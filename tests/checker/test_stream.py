"""Stream integrity: deltas vs *_end vs message_end, interleaved and deferred blocks."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.checker.helpers import (
    A,
    assistant,
    check,
    ev,
    run_close,
    run_open,
    text,
    tool_call,
    upd,
)

STREAM_RULES = ("stream.text_mismatch", "stream.toolcall_mismatch", "stream.block_order",
                "stream.block_not_closed", "stream.final_mismatch")


def stream(*updates: dict, final: dict, dialect: str = "pi-0.84") -> list:  # type: ignore[type-arg]
    items = [*run_open(), A(ev("message_start", message=assistant(stop="pending"))),
             *[A(u) for u in updates], A(ev("message_end", message=final)), *run_close(final)]
    return [(f.rule, f.frame) for f in check(*items, dialect=dialect) if f.rule.startswith("stream.")]


def thinking(t: str) -> dict:
    return {"type": "thinking", "thinking": t}


def test_deferred_text_end_after_toolcall_deltas_is_fine() -> None:
    """T02: text_end(0) comes after the tool call's deltas, just before toolcall_end(1)."""
    call = tool_call("call_1", {"command": "echo hi"})
    assert stream(
        upd("text_start", 0), upd("text_delta", 0, delta="Running it."),
        upd("toolcall_start", 1, id="call_1", toolName="bash"), upd("toolcall_delta", 1, delta=""),
        upd("toolcall_delta", 1, delta='{"command"'), upd("toolcall_delta", 1, delta=': "echo hi"}'),
        upd("text_end", 0, content="Running it."), upd("toolcall_end", 1, toolCall=call),
        final=assistant(text("Running it."), call, stop="toolUse")) == []


def test_deferred_thinking_end_after_text_is_fine() -> None:
    """T03: thinking_end(0) after the text block's deltas."""
    assert stream(
        upd("thinking_start", 0), upd("thinking_delta", 0, delta="Let me think. "),
        upd("thinking_delta", 0, delta="Done."), upd("text_start", 1), upd("text_delta", 1, delta="Hi"),
        upd("thinking_end", 0, content="Let me think. Done."), upd("text_end", 1, content="Hi"),
        final=assistant(thinking("Let me think. Done."), text("Hi"))) == []


def test_thinking_mismatch_and_kind_confusion() -> None:
    assert stream(upd("thinking_start", 0), upd("thinking_delta", 0, delta="ab"),
                  upd("thinking_end", 0, content="abc"), final=assistant(thinking("abc"))) \
        == [("stream.text_mismatch", 8)]
    assert stream(upd("thinking_start", 0), upd("text_delta", 0, delta="ab"), upd("thinking_end", 0, content=""),
                  final=assistant(thinking(""))) == [("stream.block_order", 7)]


def test_indices_count_up_and_do_not_restart() -> None:
    assert stream(upd("text_start", 1), upd("text_end", 1, content=""), final=assistant(text(""), text(""))) \
        == [("stream.block_order", 6)]
    assert stream(upd("text_start", 0), upd("text_end", 0, content=""), upd("text_start", 0),
                  final=assistant(text(""))) == [("stream.block_order", 8)]
    assert stream(upd("text_start", 0), upd("text_end", 0, content=""), upd("text_delta", 0, delta="x"),
                  final=assistant(text(""))) == [("stream.block_order", 8)]


def test_toolcall_id_and_name_must_match_start() -> None:
    """pi 0.87 (A2): toolcall_start carries id and toolName."""
    call = tool_call("call_1", {"a": 1})
    assert stream(upd("toolcall_start", 0, id="call_9", toolName="bash"), upd("toolcall_delta", 0, delta='{"a":1}'),
                  upd("toolcall_end", 0, toolCall=call), final=assistant(call, stop="toolUse")) \
        == [("stream.toolcall_mismatch", 8)]


def test_unparsable_toolcall_deltas() -> None:
    call = tool_call("c", {"a": 1})
    assert stream(upd("toolcall_start", 0), upd("toolcall_delta", 0, delta='{"a":'),
                  upd("toolcall_end", 0, toolCall=call), final=assistant(call, stop="toolUse")) \
        == [("stream.toolcall_mismatch", 8)]


def test_toolcall_deltas_with_an_over_long_integer_are_a_finding_not_a_crash() -> None:
    """json.loads raises a plain ValueError (no .msg/.pos) past Python's integer-digit limit."""
    call = tool_call("c", {"a": 1})
    assert stream(upd("toolcall_start", 0), upd("toolcall_delta", 0, delta='{"a":' + "9" * 5000 + "}"),
                  upd("toolcall_end", 0, toolCall=call), final=assistant(call, stop="toolUse")) \
        == [("stream.toolcall_mismatch", 8)]


def test_providers_without_argument_deltas_are_fine() -> None:
    call = tool_call("c", {"a": 1})
    assert stream(upd("toolcall_start", 0), upd("toolcall_end", 0, toolCall=call),
                  final=assistant(call, stop="toolUse")) == []


def test_final_message_must_match_streamed_blocks() -> None:
    call = tool_call("c", {"a": 1})
    assert stream(upd("toolcall_start", 0), upd("toolcall_delta", 0, delta='{"a":1}'),
                  upd("toolcall_end", 0, toolCall=call),
                  final=assistant(tool_call("c", {"a": 2}), stop="toolUse")) == [("stream.final_mismatch", 9)]
    assert stream(upd("text_start", 0), upd("text_delta", 0, delta="x"), upd("text_end", 0, content="x"),
                  final=assistant()) == [("stream.final_mismatch", 9)]  # no content[0] at all


def test_failed_request_message_start_without_updates_is_fine() -> None:
    """T42: message_start already carries the final error message; no updates follow."""
    failed = assistant(stop="error")
    items = [*run_open(), A(ev("message_start", message=failed)), A(ev("message_end", message=failed)),
             *run_close(failed)]
    assert [f for f in check(*items) if f.rule.startswith("stream.")] == []


def test_pi073_partials_are_not_compared_with_deltas() -> None:
    """S7: the partial can run ahead of the deltas (T01); only *_end is authoritative."""
    ahead = assistant(text("Hello world!"))
    update = {"type": "message_update", "message": ahead,
              "assistantMessageEvent": {"type": "text_delta", "contentIndex": 0, "delta": "Hello", "partial": ahead}}
    start = {"type": "message_update", "message": ahead,
             "assistantMessageEvent": {"type": "text_start", "contentIndex": 0, "partial": ahead}}
    end = {"type": "message_update", "message": ahead,
           "assistantMessageEvent": {"type": "text_end", "contentIndex": 0, "content": "Hello", "partial": ahead}}
    assert stream(start, update, end, final=assistant(text("Hello")), dialect="pi-0.73") == []


@settings(max_examples=60, deadline=None)
@given(st.lists(st.text(max_size=6), max_size=12), st.booleans())
def test_any_chunking_of_the_text_is_accepted(chunks: list[str], typed: bool) -> None:
    whole = "".join(chunks)
    updates = [upd("text_start", 0), *[upd("text_delta", 0, delta=c) for c in chunks],
               upd("text_end", 0, content=whole)]
    assert stream(*updates, final=assistant(text(whole)), dialect="pi-0.84" if typed else "auto") == []


@pytest.mark.parametrize("typed", [True, False])
def test_a_dropped_chunk_is_found(typed: bool) -> None:
    updates = [upd("text_start", 0), upd("text_delta", 0, delta="ab"), upd("text_delta", 0, delta="cd"),
               upd("text_end", 0, content="abXcd")]
    assert stream(*updates, final=assistant(text("abXcd")), dialect="pi-0.84" if typed else "auto") \
        == [("stream.text_mismatch", 9)]


BAD_ARGS = '{"command": "echo hi"'
"""What a model cut off mid-arguments streams (protocol-notes 12): pi >= 0.99 cannot parse it either."""


def _failed_call(raw: str, error: str = "Expected ',' or '}' after property value in JSON at position 21") -> dict:
    return {**tool_call("c", {}), "argumentsError": f"{error}\n\nReceived arguments:\n{raw}"}


def test_arguments_pi_could_not_parse_are_no_mismatch() -> None:
    """pi 1.5.2 and 1.6.0: `arguments: {}` with `argumentsError` quoting the raw text is the agent telling the
    truth about deltas that do not parse; neither a stream finding nor an unknown field."""
    call = _failed_call(BAD_ARGS)
    deltas = (upd("toolcall_start", 0, id="c", toolName="bash"), upd("toolcall_delta", 0, delta=BAD_ARGS[:9]),
              upd("toolcall_delta", 0, delta=BAD_ARGS[9:]), upd("toolcall_end", 0, toolCall=call))
    assert stream(*deltas, final=assistant(call, stop="toolUse"), dialect="pi-0.99") == []
    items = [*run_open(), A(ev("message_start", message=assistant(stop="pending"))), *[A(u) for u in deltas],
             A(ev("message_end", message=assistant(call, stop="toolUse")))]
    assert [f.path for f in check(*items, dialect="pi-0.99") if f.rule == "schema.unknown_field"
            and "argumentsError" in (f.path or "")] == []


def test_arguments_error_must_quote_the_deltas_and_be_true() -> None:
    """The raw text argumentsError quotes is what was streamed; deltas that parse to an object contradict it."""
    wrong = _failed_call('{"other"')
    assert stream(upd("toolcall_start", 0), upd("toolcall_delta", 0, delta=BAD_ARGS),
                  upd("toolcall_end", 0, toolCall=wrong), final=assistant(wrong, stop="toolUse"),
                  dialect="pi-0.99") == [("stream.toolcall_mismatch", 8)]
    parses = _failed_call('{"a": 1}')
    assert stream(upd("toolcall_start", 0), upd("toolcall_delta", 0, delta='{"a": 1}'),
                  upd("toolcall_end", 0, toolCall=parses), final=assistant(parses, stop="toolUse"),
                  dialect="pi-0.99") == [("stream.toolcall_mismatch", 8)]
    # pi also sets argumentsError for JSON that is not an object: no contradiction
    array = _failed_call("[1]", "Tool arguments must be a JSON object")
    assert stream(upd("toolcall_start", 0), upd("toolcall_delta", 0, delta="[1]"),
                  upd("toolcall_end", 0, toolCall=array), final=assistant(array, stop="toolUse"),
                  dialect="pi-0.99") == []


def test_arguments_pi_repairs_are_no_mismatch() -> None:
    """pi parses arguments with repair (a raw control character or a stray backslash inside a string):
    what it made of them is what the deltas mean."""
    call = tool_call("c", {"command": "printf 'a\nb' \\d"})
    assert stream(upd("toolcall_start", 0), upd("toolcall_delta", 0, delta='{"command": "printf \'a\nb\' \\d"}'),
                  upd("toolcall_end", 0, toolCall=call), final=assistant(call, stop="toolUse")) == []
