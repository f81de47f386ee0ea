"""The span model (rpcspy/otel/mapper.py), decided from events alone: names, nesting, attributes, ids."""

from __future__ import annotations

import json
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from rpcspy.events import Event, Exit, Finding, Frame, Note, Start
from rpcspy.otel.ids import parse_traceparent, span_id
from rpcspy.otel.mapper import TRACEPARENT_NOTE, SpanMapper
from rpcspy.otel.spans import SpanRecord
from rpcspy.recording import open_recording
from rpcspy.recording.entries import events
from tests.paths import REPO

RECORDINGS = REPO / "recordings"
PARENT = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"


def spans_of(path: Path, **kw: object) -> list[SpanRecord]:
    rec = open_recording(str(path))
    mapper = SpanMapper(rec.header.started_unix, **kw)  # type: ignore[arg-type]
    out: list[SpanRecord] = []
    for event in events(rec.entries()):
        out += mapper.feed(event)
    return out + mapper.finish()


def tree(spans: list[SpanRecord]) -> dict[str, list[str]]:
    """Each span's name -> the names of its children (spans of one name merged), for nesting asserts."""
    by_id = {s.span_id: s for s in spans}
    out: dict[str, list[str]] = {}
    for s in spans:
        parent = by_id.get(s.parent_id) if s.parent_id else None
        out.setdefault(parent.name if parent else "(root)", []).append(s.name)
    return {k: sorted(v) for k, v in out.items()}


def test_pi_session_runs_turns_and_tools() -> None:
    spans = spans_of(RECORDINGS / "pi-1.5.2-basic.jsonl")
    t = tree(spans)
    assert t["(root)"] == ["rpcspy.session pi"]
    assert sorted(set(t["rpcspy.session pi"])) == ["invoke_agent pi", "rpcspy.command get_messages",
                                                    "rpcspy.command get_state", "rpcspy.command prompt"]
    assert t["rpcspy.session pi"].count("invoke_agent pi") == 3
    assert t["invoke_agent pi"] == ["chat fake-model"] * 4 + ["execute_tool bash"]
    assert len({s.trace_id for s in spans}) == 1 and len({s.span_id for s in spans}) == len(spans)
    runs = [s for s in spans if s.name == "invoke_agent pi"]
    assert {s.attributes["rpcspy.run.settled_by"] for s in runs} == {"agent_settled"}
    assert all(s.attributes["gen_ai.operation.name"] == "invoke_agent" for s in runs)
    chat = next(s for s in spans if s.name == "chat fake-model" and "toolUse" in s.attributes[
        "gen_ai.response.finish_reasons"])  # type: ignore[operator]
    assert chat.kind == "client"
    assert chat.attributes["gen_ai.usage.input_tokens"] == 12 and chat.attributes["gen_ai.usage.output_tokens"] == 4
    assert chat.attributes["gen_ai.provider.name"] == "fake"
    assert chat.attributes["gen_ai.request.model"] == chat.attributes["gen_ai.response.model"] == "fake-model"
    assert chat.attributes["gen_ai.response.id"] == "chatcmpl-3"
    tool = next(s for s in spans if s.name == "execute_tool bash")
    assert tool.attributes["gen_ai.tool.call.id"] == "call_2" and tool.attributes["gen_ai.tool.type"] == "function"
    for s in spans:  # a child lies within its parent
        parent = next((p for p in spans if p.span_id == s.parent_id), None)
        if parent is not None:
            assert parent.start_ns <= s.start_ns <= s.end_ns <= parent.end_ns, (s.name, parent.name)


def test_a_run_starts_at_its_prompt_and_ends_at_the_dialects_settle() -> None:
    pi087 = spans_of(RECORDINGS / "pi-0.87.1-basic.jsonl")
    pi073 = spans_of(RECORDINGS / "pi-0.73.1-basic.jsonl")
    omp = spans_of(RECORDINGS / "omp-18.2.3-basic.jsonl")
    assert {s.attributes["rpcspy.run.settled_by"] for s in pi087 if s.name.startswith("invoke_agent")} == {
        "agent_settled"}
    assert {s.attributes["rpcspy.run.settled_by"] for s in pi073 if s.name.startswith("invoke_agent")} == {
        "agent_end"}
    assert [s.name for s in omp if s.name.startswith("invoke_agent")] == ["invoke_agent omp"] * 3
    run = next(s for s in pi073 if s.name.startswith("invoke_agent"))
    prompt = next(s for s in pi073 if s.name == "rpcspy.command prompt")
    assert run.start_ns == prompt.start_ns  # prompt to settle


def test_no_content_unless_asked_and_then_redacted(tmp_path: Path) -> None:
    plain = spans_of(RECORDINGS / "pi-1.5.2-basic.jsonl")
    content_keys = {"gen_ai.input.messages", "gen_ai.output.messages", "gen_ai.tool.call.arguments",
                    "gen_ai.tool.call.result"}
    assert not any(content_keys & s.attributes.keys() for s in plain)
    with_content = spans_of(RECORDINGS / "pi-1.5.2-basic.jsonl", content=True)
    run = next(s for s in with_content if s.name.startswith("invoke_agent"))
    assert json.loads(str(run.attributes["gen_ai.input.messages"])) == [
        {"role": "user", "parts": [{"type": "text", "content": "hello"}]}]
    tool = next(s for s in with_content if s.name == "execute_tool bash")
    assert "hello-from-tool" in str(tool.attributes["gen_ai.tool.call.result"])
    assert "echo hello-from-tool" in str(tool.attributes["gen_ai.tool.call.arguments"])
    secret = "DB_PASSWORD=hunter2-very-secret"
    mapper = SpanMapper(0.0, content=True)
    got = []
    for e in [Start(1, 0.0, 1, ["pi"]), _c2a(2, {"id": "p", "type": "prompt", "message": f"use {secret}"}),
              _a2c(3, {"type": "agent_start"}), _a2c(4, {"type": "agent_end", "messages": []}), Exit(5, 1.0, 0)]:
        got += mapper.feed(e)
    text = json.dumps([s.attributes for s in got])
    assert "hunter2" not in text and "<redacted>" in text


def _c2a(seq: int, obj: dict[str, object], t: float | None = None) -> Frame:
    return Frame(seq, seq / 10 if t is None else t, "c2a", json.dumps(obj).encode())


def _a2c(seq: int, obj: dict[str, object], t: float | None = None) -> Frame:
    return Frame(seq, seq / 10 if t is None else t, "a2c", json.dumps(obj).encode())


def _feed(evs: list[Event], **kw: object) -> list[SpanRecord]:
    mapper = SpanMapper(1_700_000_000.0, **kw)  # type: ignore[arg-type]
    out: list[SpanRecord] = []
    for e in evs:
        out += mapper.feed(e)
    return out + mapper.finish()


def test_tools_nest_by_parent_tool_call_id_and_errors_show() -> None:
    spans = _feed([
        Start(1, 0.0, 7, ["pi"]), _c2a(2, {"id": "p", "type": "prompt", "message": "go"}),
        _a2c(3, {"type": "agent_start"}),
        _a2c(4, {"type": "tool_execution_start", "toolCallId": "c1", "toolName": "task", "args": {}}),
        _a2c(5, {"type": "tool_execution_start", "toolCallId": "c1/1", "toolName": "read", "args": {},
                 "parentToolCallId": "c1"}),
        _a2c(6, {"type": "tool_execution_end", "toolCallId": "c1/1", "toolName": "read", "result": {},
                 "isError": True, "parentToolCallId": "c1"}),
        _a2c(7, {"type": "tool_execution_end", "toolCallId": "c1", "toolName": "task", "result": {},
                 "isError": False}),
        _a2c(8, {"type": "agent_end", "messages": []}), _a2c(9, {"type": "agent_settled"}), Exit(10, 1.0, 0)])
    by_name = {s.name: s for s in spans}
    assert by_name["execute_tool read"].parent_id == by_name["execute_tool task"].span_id
    assert by_name["execute_tool task"].parent_id == by_name["invoke_agent pi"].span_id
    assert by_name["execute_tool read"].status == "error"
    assert by_name["execute_tool read"].attributes["error.type"] == "tool_error"
    assert by_name["execute_tool task"].status == "unset"
    assert by_name["invoke_agent pi"].end_ns == by_name["rpcspy.session pi"].start_ns + 900_000_000


def test_a_retry_announced_at_agent_end_stays_one_run() -> None:
    spans = _feed([
        Start(1, 0.0, 7, ["pi"]), _c2a(2, {"id": "p", "type": "prompt", "message": "go"}),
        _a2c(3, {"type": "agent_start"}), _a2c(4, {"type": "agent_end", "messages": [], "willRetry": True}),
        _a2c(5, {"type": "agent_start"}), _a2c(6, {"type": "agent_end", "messages": [], "willRetry": False}),
        _a2c(7, {"type": "agent_settled"}), Exit(8, 1.0, 0)])
    assert [s.name for s in spans].count("invoke_agent pi") == 1


def test_findings_dialogs_and_an_unfinished_session() -> None:
    spans = _feed([
        Start(1, 0.0, 7, ["pi"]), _c2a(2, {"id": "p", "type": "prompt", "message": "go"}),
        Finding(3, 0.2, "schema.unknown_field", "info", "schema", "unknown field", frame=2, dir="c2a"),
        _a2c(4, {"type": "agent_start"}),
        _a2c(5, {"type": "extension_ui_request", "id": "d1", "method": "confirm", "title": "Deploy?"}),
        _c2a(6, {"type": "extension_ui_response", "id": "d1", "confirmed": True}),
        _a2c(7, {"type": "extension_ui_request", "id": "n", "method": "notify", "message": "hi"}),
        Note(8, 0.8, "warning", "observers fell behind"),
        _a2c(9, {"type": "turn_start"})])  # no end: finish() closes what is open
    by_name = {s.name: s for s in spans}
    command = by_name["rpcspy.command prompt"]
    assert [e.name for e in command.events] == ["rpcspy.finding"]
    assert command.events[0].attributes["rpcspy.finding.rule"] == "schema.unknown_field"
    dialog = by_name["rpcspy.dialog confirm"]
    assert dialog.parent_id == by_name["invoke_agent pi"].span_id
    assert dialog.attributes["rpcspy.dialog.answer"] == "answered" and "rpcspy.dialog.title" not in dialog.attributes
    assert [e.name for e in by_name["invoke_agent pi"].events] == ["rpcspy.ui notify"]
    assert by_name["invoke_agent pi"].attributes["rpcspy.unfinished"] is True
    assert [e.name for e in by_name["rpcspy.session pi"].events] == ["rpcspy.note"]
    assert command.attributes.get("rpcspy.unfinished") is True  # never answered


def test_ids_are_derived_from_the_recording() -> None:
    a = spans_of(RECORDINGS / "pi-1.5.2-basic.jsonl")
    b = spans_of(RECORDINGS / "pi-1.5.2-basic.jsonl")
    assert [(s.trace_id, s.span_id, s.parent_id) for s in a] == [(s.trace_id, s.span_id, s.parent_id) for s in b]
    other = spans_of(RECORDINGS / "pi-1.5.2-abort.jsonl")
    assert other[0].trace_id != a[0].trace_id
    assert not {s.span_id for s in a} & {s.span_id for s in other}
    assert span_id(b"k", "run", 4) != span_id(b"k", "command", 4)


def test_traceparent_makes_the_session_a_child() -> None:
    parent = parse_traceparent(PARENT)
    spans = spans_of(RECORDINGS / "pi-1.5.2-basic.jsonl", parent=parent)
    session = next(s for s in spans if s.name.startswith("rpcspy.session"))
    assert session.parent_id == parent.span_id
    assert {s.trace_id for s in spans} == {parent.trace_id}
    # a live export records the traceparent it used: the offline export finds it
    recorded = _feed([Start(1, 0.0, 7, ["pi"]), Note(2, 0.0, "info", TRACEPARENT_NOTE + PARENT), Exit(3, 1.0, 0)])
    assert recorded[-1].parent_id == parent.span_id and recorded[-1].trace_id == parent.trace_id


_TYPES = st.sampled_from(["prompt", "response", "agent_start", "agent_end", "agent_settled", "turn_start",
                          "message_start", "message_end", "tool_execution_start", "tool_execution_end",
                          "extension_ui_request", "extension_ui_response", "prompt_result"])
_KEYS = st.sampled_from(["id", "message", "toolCallId", "parentToolCallId", "method", "success", "willRetry",
                         "usage", "role"])
_VALUES = st.one_of(st.none(), st.integers(), st.text(max_size=5), st.booleans(),
                    st.just({"role": "assistant", "usage": {"input": "x"}}))
_JSON = st.builds(lambda t, extra: json.dumps({"type": t, **extra}).encode(), _TYPES, st.dictionaries(_KEYS, _VALUES))
_FRAMES = st.lists(st.tuples(st.sampled_from(["c2a", "a2c"]), st.one_of(st.binary(max_size=40), _JSON)),
                   max_size=30)


@settings(max_examples=150)
@given(_FRAMES)
def test_never_raises_and_every_span_closes_once(frames: list[tuple[str, bytes]]) -> None:
    evs: list[Event] = [Start(1, 0.0, 1, ["pi"])]
    evs += [Frame(i + 2, i * 0.01, d, data) for i, (d, data) in enumerate(frames)]  # type: ignore[arg-type]
    spans = _feed(evs)
    assert len({s.span_id for s in spans}) == len(spans)
    assert sum(s.parent_id is None for s in spans) == 1
