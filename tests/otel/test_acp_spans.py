"""ACP sessions as spans, the same model as pi's: a prompt turn is invoke_agent, a tool call execute_tool under
it, a permission request a dialog under it, other requests commands; from real recordings (tests/data/acp)."""

from __future__ import annotations

from pathlib import Path

from rpcspy.otel.mapper import SpanMapper
from rpcspy.otel.spans import SpanRecord
from rpcspy.recording import open_recording
from rpcspy.recording.entries import events

ACP = Path(__file__).resolve().parents[1] / "data" / "acp"


def spans_of(name: str) -> list[SpanRecord]:
    rec = open_recording(str(ACP / name))
    mapper = SpanMapper(rec.header.started_unix)
    out: list[SpanRecord] = []
    for event in events(rec.entries()):
        out += mapper.feed(event)
    return out + mapper.finish()


def test_a_real_omp_acp_turn_with_a_permission_request() -> None:
    spans = spans_of("omp-18.2.3-acp-permission.jsonl")
    by_id = {s.span_id: s for s in spans}
    names = [s.name for s in spans]
    assert names.count("invoke_agent omp") == 2 and "rpcspy.command initialize" in names
    dialog = next(s for s in spans if s.name == "rpcspy.dialog session/request_permission")
    tool = next(s for s in spans if s.name.startswith("execute_tool "))
    for child in (dialog, tool):
        assert by_id[child.parent_id].name == "invoke_agent omp"  # type: ignore[index]
    assert dialog.attributes["rpcspy.dialog.answer"] == "selected"
    assert tool.attributes["gen_ai.operation.name"] == "execute_tool" and tool.status == "unset"
    turns = [s for s in spans if s.name == "invoke_agent omp"]
    assert all(s.attributes["gen_ai.response.finish_reasons"] == ["end_turn"] for s in turns)
    assert all(s.trace_id == spans[0].trace_id for s in spans)
    assert spans_of("omp-18.2.3-acp-permission.jsonl") == spans  # ids from the recording: idempotent


def test_pi_acp_is_named_and_a_cancel_the_agent_ignored_leaves_its_tool_unfinished() -> None:
    assert any(s.name == "invoke_agent pi-acp" for s in spans_of("pi-acp-0.0.34-pi-1.6.0.jsonl"))
    spans = spans_of("test-agent-cancel-ignored.jsonl")
    tool = next(s for s in spans if s.name.startswith("execute_tool "))
    assert tool.attributes.get("rpcspy.unfinished") is True
    turn = next(s for s in spans if s.name.startswith("invoke_agent "))
    assert any(e.name == "rpcspy.acp.cancel" for e in turn.events)
