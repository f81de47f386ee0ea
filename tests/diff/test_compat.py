"""``diff --compat``: each kind of difference classified for clients, grouped, with one example."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from rpcspy.cli import main
from rpcspy.diff.compat import compat, survey
from rpcspy.diff.differ import diff_recordings
from rpcspy.diff.jsondiff import ABSENT, changes
from rpcspy.normalise.normaliser import NormaliseOptions, Normaliser
from rpcspy.recording.reader import read_frames
from tests.cli.test_check_cmd import write_recording


def rec(path: Path, client: list[dict], agent: list[dict]) -> str:
    frames = [("c2a", json.dumps(o).encode(), False) for o in client]
    frames += [("a2c", json.dumps(o).encode(), False) for o in agent]
    return str(write_recording(path, frames))


CLIENT = [{"id": "p", "type": "prompt", "message": "hi"}, {"id": "s", "type": "get_state"}]
OLD = [
    {"id": "p", "type": "response", "command": "prompt", "success": True},
    {"type": "agent_start"},
    {"type": "message_end", "message": {"role": "assistant", "stopReason": "stop", "usage": {"input": 1},
                                        "model": "m"}},
    {"type": "agent_end", "messages": [{"role": "user"}, {"role": "assistant"}]},
    {"id": "s", "type": "response", "command": "get_state", "success": True, "data": {"isStreaming": False}},
]
NEW = [
    {"id": "p", "type": "response", "command": "prompt", "success": True, "data": {"disposition": "started"}},
    {"type": "agent_start"},
    {"type": "message_end", "message": {"role": "assistant", "stopReason": "pending", "usage": "1"}},
    {"type": "agent_end", "messages": [{"role": "system"}, {"role": "user"}, {"role": "assistant"}]},
    {"type": "agent_settled"},
    {"id": "s", "type": "response", "command": "get_state", "success": False, "error": "busy"},
]


def report(tmp_path: Path, old: list[dict], new: list[dict]):  # type: ignore[no-untyped-def]
    a, b = rec(tmp_path / "a.jsonl", CLIENT, old), rec(tmp_path / "b.jsonl", CLIENT, new)
    norm = Normaliser(NormaliseOptions(), stable=False)
    result = diff_recordings(a, b, norm)
    return compat(result, survey(read_frames(a), norm), survey(read_frames(b), norm))


def kinds(r) -> set[tuple[str, str, str, str | None]]:  # type: ignore[no-untyped-def]
    return {(g.level, g.kind, g.type, g.path) for g in r.groups}


def test_every_kind_of_difference(tmp_path: Path) -> None:
    r = report(tmp_path, OLD, NEW)
    assert kinds(r) == {
        ("safe", "new field", "response/prompt", "$.data"),
        ("warning", "new enum value", "message_end/assistant", "$.message.stopReason"),
        ("breaking", "type changed", "message_end/assistant", "$.message.usage"),
        ("breaking", "field gone", "message_end/assistant", "$.message.model"),
        ("safe", "array element added", "agent_end", "$.messages[]"),
        ("warning", "new enum value", "agent_end", "$.messages[].role"),
        ("warning", "new frame type", "agent_settled", None),
        ("breaking", "command now failing", "response/get_state", "$.success"),
        ("breaking", "field gone", "response/get_state", "$.data"),
        ("safe", "new field", "response/get_state", "$.error"),
    }
    (added,) = [g for g in r.groups if g.path == "$.data" and g.level == "safe"]
    assert added.example == {"b_seq": 3, "b": {"disposition": "started"}, "present": {"a": [0, 1], "b": [1, 1]}}
    assert r.breaking and not r.client_differs and r.count("warning") == 3


def test_order_and_new_events(tmp_path: Path) -> None:
    old = [{"type": "agent_start"}, {"type": "turn_start"}, {"type": "turn_end"}, {"type": "agent_end"}]
    moved = [{"type": "turn_start"}, {"type": "agent_start"}, {"type": "turn_end"}, {"type": "agent_end"}]
    assert {(g.level, g.kind) for g in report(tmp_path, old, moved).groups} == {("breaking", "order changed")}
    more = [*old[:3], {"type": "turn_start"}, {"type": "turn_end"}, old[3]]
    assert {(g.level, g.kind, g.type) for g in report(tmp_path, old, more).groups} == {
        ("warning", "new event", "turn_start"), ("warning", "new event", "turn_end")}
    fewer = [old[0], old[3]]
    assert {(g.level, g.kind) for g in report(tmp_path, old, fewer).groups} == {("breaking", "frame type gone")}


def test_arrays_are_aligned_before_compared() -> None:
    a = [{"role": "user", "x": 1}, {"role": "assistant", "x": 2}]
    b = [{"role": "system"}, {"role": "user", "x": 1}, {"role": "assistant", "x": 2}]
    assert [(c.path, c.a is ABSENT) for c in changes(a, b, align=True)] == [("$[0]", True)]
    assert len(list(changes(a, b))) > 1, "without align, every element after the insertion differs"


def test_cli_text_json_and_exit(tmp_path: Path) -> None:
    a, b = rec(tmp_path / "a.jsonl", CLIENT, OLD), rec(tmp_path / "b.jsonl", CLIENT, NEW)
    text = CliRunner().invoke(main, ["diff", "--compat", a, b])
    assert text.exit_code == 1, text.output
    lines = text.output.splitlines()
    assert lines[0].endswith("4 breaking, 3 warning, 3 safe, 0 timing (agent frames 5 -> 6)")
    assert '  response/prompt: new field $.data x1  e.g. B#3 {"disposition":"started"} (in 0/1 old, 1/1 new)' in lines
    obj = json.loads(CliRunner().invoke(main, ["diff", "--compat", "--format", "json", a, b]).output)
    assert obj["breaking"] == 4 and {g["kind"] for g in obj["groups"]} >= {"new frame type", "command now failing"}
    same = CliRunner().invoke(main, ["diff", "--compat", a, rec(tmp_path / "c.jsonl", CLIENT, [*OLD[:1], *OLD[1:]])])
    assert same.exit_code == 0 and "0 breaking, 0 warning, 0 safe, 0 timing" in same.output


def test_a_frame_moved_only_among_deltas_is_timing(tmp_path: Path) -> None:
    d = {"type": "message_update", "assistantMessageEvent": {"type": "text_delta", "delta": "x"}}
    q = {"type": "queue_update", "steering": [], "followUp": ["x"]}
    old = [{"type": "agent_start"}, d, q, d, d, {"type": "agent_end"}]
    new = [{"type": "agent_start"}, d, d, q, d, {"type": "agent_end"}]
    r = report(tmp_path, old, new)
    assert {(g.level, g.kind) for g in r.groups} == {("timing", "moved among streamed deltas")}
    assert not r.breaking and r.count("warning") == 0
    new[3] = {**q, "followUp": ["x"], "extra": 1}
    moved = report(tmp_path, old, new).groups
    assert ("safe", "new field", "queue_update", "$.extra") in {(g.level, g.kind, g.type, g.path) for g in moved}, \
        "frames that moved are still compared field by field"


def test_a_response_moved_among_the_events_of_a_run_is_timing(tmp_path: Path) -> None:
    """A command sent mid-run is answered wherever the run has got to: not an order the protocol fixes."""
    state = {"id": "s", "type": "response", "command": "get_state", "success": True, "data": {"x": 1}}
    old = [{"type": "agent_start"}, {"type": "turn_start"}, state, {"type": "turn_end"}, {"type": "agent_end"}]
    new = [{"type": "agent_start"}, state, {"type": "turn_start"}, {"type": "turn_end"}, {"type": "agent_end"}]
    r = report(tmp_path, old, new)
    assert (r.count("breaking"), r.count("warning"), r.count("safe")) == (0, 0, 0), compat_text(r)
    assert r.count("timing") == 1
    swapped = [{"type": "turn_start"}, {"type": "agent_start"}, state, {"type": "turn_end"}, {"type": "agent_end"}]
    assert ("breaking", "order changed") in {(g.level, g.kind) for g in report(tmp_path, old, swapped).groups}


def test_a_field_the_old_agent_did_not_always_send_is_timing_when_not_seen(tmp_path: Path) -> None:
    """pi 0.87.1 put ``responseId`` on an assistant ``message_start`` only when the model's first chunk came
    first (2 of 4 in recordings/pi-0.87.1-basic.jsonl); one recording without it cannot tell an agent that
    dropped it from one whose chunks came later this time: timing. A field the old agent always sent
    stays breaking."""
    def start(n: int, **extra: object) -> dict:
        return {"type": "message_start", "message": {"role": "assistant", "model": "m", "n": n, **extra}}

    old = [start(1, responseId="r1"), start(2), start(3, responseId="r3")]
    new = [start(1), start(2), start(3)]
    (g,) = report(tmp_path, old, new).groups
    assert (g.level, g.kind, g.type, g.path) == (
        "timing", "sent in some frames only", "message_start/assistant", "$.message.responseId")
    assert g.example["present"] == {"a": [2, 3], "b": [0, 3]}
    always = [start(1, responseId="r1"), start(2, responseId="r2"), start(3, responseId="r3")]
    assert kinds(report(tmp_path, always, new)) == {
        ("breaking", "field gone", "message_start/assistant", "$.message.responseId")}
    end = {"type": "message_end", "message": {"role": "assistant", "model": "m", "responseId": "r"}}
    assert kinds(report(tmp_path, [*always, end], [*new, end])) == {
        ("timing", "filled in by streaming", "message_start/assistant", "$.message.responseId")}, \
        "a snapshot without what message_end still carries: the chunk came later"
    gone_model = [{"type": "message_start", "message": {"role": "assistant", "n": n}} for n in (1, 2, 3)]
    assert ("breaking", "field gone", "message_start/assistant", "$.message.model") in kinds(
        report(tmp_path, old, gone_model)), "sent in every frame of its type, whatever its siblings did"


def test_survey_counts_fields_per_shape_where_their_object_is(tmp_path: Path) -> None:
    path = rec(tmp_path / "s.jsonl", [], [
        {"type": "x", "a": {"k": 1}}, {"type": "x"}, {"type": "x", "a": {"k": 2}},
        {"type": "y", "m": {"role": "user", "u": 1}}, {"type": "y", "m": {"role": "assistant", "v": "s"}},
        {"type": "response", "command": "get_state", "id": "1", "success": True}])
    got = survey(read_frames(path))
    assert got.labels == ["x", "x", "x", "y", "y", "response/get_state"]
    assert (got.objects("x", "$"), got.objects("x", "$.a"), got.fields[("x", "$.a.k")].count) == (3, 2, 2)
    assert got.objects("y", "$.m") == 2, "the field, whichever kind of message it holds"
    assert got.objects("y", "$.m<user>") == 1 and got.has("y", "$.m<assistant>.v")
    assert not got.has("y", "$.m<user>.v"), "a user message is not judged against an assistant message"
    assert got.has("response/get_state", "$.success")


# --- timing: what differs between two runs of one agent ---------------------------------------------------

def usage(**extra: Any) -> dict:
    cost = {"total": 0, **extra.pop("cost", {})}
    return {"input": 0, "output": 0, "cost": cost, **extra}


def delta(kind: str, **u: Any) -> dict:
    return {"type": "message_update", "usage": usage(**u), "assistantMessageEvent": {"type": kind, "delta": "x"}}


FULL: dict[str, Any] = {"reasoning": 0, "cost": {"totalFromProvider": False}}


def assistant_run(deltas: list[dict]) -> list[dict]:
    msg = {"role": "assistant", "content": [], "usage": usage(**FULL), "stopReason": "stop"}
    return [{"type": "agent_start"}, {"type": "message_start", "message": {**msg, "usage": usage()}}, *deltas,
            {"type": "message_end", "message": msg}, {"type": "agent_end", "messages": [msg]}]


def test_usage_keys_that_depend_on_when_the_usage_chunk_came_are_timing(tmp_path: Path) -> None:
    """pi 1.5.2 writes its usage snapshot into each message_update: whether it already holds ``reasoning``
    and ``cost.totalFromProvider`` depends on when the model's usage chunk arrived. Two runs of one agent,
    either way round: 0 breaking, 0 warnings, whatever frame subtype had the keys."""
    one = assistant_run([delta("text_delta"), delta("text_delta", **FULL), delta("toolcall_delta", **FULL)])
    two = assistant_run([delta("text_delta", **FULL), delta("text_delta"), delta("toolcall_delta")])
    late = assistant_run([delta("text_delta"), delta("text_delta"), delta("toolcall_delta")])
    for old, new in ((one, two), (two, one), (one, late), (late, one), (two, late)):
        r = report(tmp_path, old, new)
        assert (r.count("breaking"), r.count("warning"), r.count("safe")) == (0, 0, 0), compat_text(r)
    r = report(tmp_path, one, late)
    assert {(g.kind, g.type, g.path) for g in r.groups if g.path and "reasoning" in g.path} == {
        ("filled in by streaming", "message_update", "$.usage.reasoning")}, "said once, for the type"


def test_a_usage_key_gone_from_every_frame_is_breaking(tmp_path: Path) -> None:
    one = assistant_run([delta("text_delta"), delta("text_delta", **FULL)])
    def drop(v: Any) -> Any:
        if isinstance(v, dict):
            return {k: drop(x) for k, x in v.items() if k != "reasoning"}
        return [drop(x) for x in v] if isinstance(v, list) else v

    gone = [drop(f) for f in one]
    r = report(tmp_path, one, gone)
    assert ("breaking", "field gone", "message_end/assistant", "$.message.usage.reasoning") in kinds(r)
    assert ("breaking", "field gone", "agent_end", "$.messages[].usage.reasoning") in kinds(r)


def tool(kind: str, call: str, **extra: object) -> dict:
    return {"type": f"tool_execution_{kind}", "toolCallId": call, "toolName": "bash", **extra}


def result_msg(call: str) -> list[dict]:
    msg = {"role": "toolResult", "toolCallId": call, "content": [{"type": "text", "text": f"out {call}"}]}
    return [{"type": "message_start", "message": msg}, {"type": "message_end", "message": msg}]


def parallel(order: list[tuple[str, str]]) -> list[dict]:
    def extra(kind: str, call: str) -> dict:
        if kind == "end":
            return {"result": {"content": f"out {call}"}}
        return {"partialResult": f"{call} so far"} if kind == "update" else {}

    frames = [tool(kind, call, **extra(kind, call)) for kind, call in order]
    return [{"type": "turn_start"}, *frames, *result_msg("c1"), *result_msg("c2"), {"type": "turn_end"}]


def test_the_end_order_of_parallel_tool_calls_is_timing(tmp_path: Path) -> None:
    old = parallel([("start", "c1"), ("start", "c2"), ("end", "c1"), ("end", "c2")])
    new = parallel([("start", "c1"), ("start", "c2"), ("end", "c2"), ("end", "c1")])
    r = report(tmp_path, old, new)
    assert (r.count("breaking"), r.count("warning")) == (0, 0), compat_text(r)
    assert {(g.level, g.kind, g.type) for g in r.groups} == {
        ("timing", "tool calls interleaved differently", "tool_execution_end")}
    assert not [g for g in r.groups if g.kind == "value differs"], "each call's end is compared with its own"


def test_interleaved_updates_of_different_tools_are_timing(tmp_path: Path) -> None:
    old = parallel([("start", "c1"), ("start", "c2"), ("update", "c1"), ("update", "c2"), ("update", "c1"),
                    ("end", "c1"), ("end", "c2")])
    new = parallel([("start", "c1"), ("start", "c2"), ("update", "c2"), ("update", "c1"), ("update", "c1"),
                    ("end", "c2"), ("end", "c1")])
    r = report(tmp_path, old, new)
    assert (r.count("breaking"), r.count("warning"), r.count("safe")) == (0, 0, 0), compat_text(r)
    fewer = parallel([("start", "c1"), ("start", "c2"), ("update", "c1"), ("end", "c1"), ("end", "c2")])
    r = report(tmp_path, old, fewer)
    assert {(g.level, g.kind) for g in r.groups} == {("timing", "fewer progress frames")}, \
        "how many updates a tool's output is cut into is timing"


def test_the_order_within_one_tool_call_is_still_an_order(tmp_path: Path) -> None:
    old = parallel([("start", "c1"), ("update", "c1"), ("end", "c1")])
    new = parallel([("start", "c1"), ("end", "c1"), ("update", "c1")])
    assert ("breaking", "order changed") in {(g.level, g.kind) for g in report(tmp_path, old, new).groups}


# --- real changes are still found ------------------------------------------------------------------------

def test_real_changes_are_found_among_timing(tmp_path: Path) -> None:
    """A field removed from every frame of a type, a new event and a new frame type, a changed response
    shape: found while the usage keys and the tool end order vary as between runs of one agent."""
    run_a = assistant_run([delta("text_delta"), delta("text_delta", **FULL)])
    run_b = assistant_run([delta("text_delta", **FULL), delta("text_delta")])
    tools_a = parallel([("start", "c1"), ("start", "c2"), ("end", "c1"), ("end", "c2")])
    tools_b = parallel([("start", "c1"), ("start", "c2"), ("end", "c2"), ("end", "c1")])
    extra = [tool("start", "c3"), tool("end", "c3", result={"content": "Operation aborted"})]
    for f in [*tools_b, *extra]:
        f.pop("toolName", None)
    state_a = {"id": "s", "type": "response", "command": "get_state", "success": True,
               "data": {"isStreaming": False, "model": {"id": "m"}}}
    state_b = {**state_a, "data": {"isStreaming": "no"}}
    error = {"type": "extension_error", "extensionPath": "x.ts", "event": "events:ch", "error": "boom"}
    r = report(tmp_path, [*run_a, *tools_a, state_a], [*run_b, error, *tools_b[:-1], *extra, tools_b[-1], state_b])
    assert kinds(r) >= {
        ("breaking", "field gone", "tool_execution_start", "$.toolName"),
        ("breaking", "field gone", "tool_execution_end", "$.toolName"),
        ("breaking", "field gone", "response/get_state", "$.data.model"),
        ("breaking", "type changed", "response/get_state", "$.data.isStreaming"),
        ("warning", "new frame type", "extension_error", None),
        ("warning", "new event", "tool_execution_start", None),
        ("warning", "new event", "tool_execution_end", None),
    }, compat_text(r)
    assert not [g for g in r.groups if "usage" in (g.path or "") and g.level != "timing"], compat_text(r)


def test_a_field_the_old_agent_always_sent_left_out_of_some_frames_is_a_warning(tmp_path: Path) -> None:
    """pi 1.6.0 closes tool calls an abort kept from starting with no ``durationMs``: a client that read it
    from every tool_execution_end meets frames without it."""
    old = [tool("end", "c1", durationMs=5), tool("end", "c2", durationMs=6)]
    new = [tool("end", "c1", durationMs=5), tool("end", "c2")]
    (g,) = report(tmp_path, old, new).groups
    assert (g.level, g.kind, g.path, g.count) == ("warning", "now left out of some frames", "$.durationMs", 1)


def compat_text(r) -> str:  # type: ignore[no-untyped-def]
    from rpcspy.render.compat import compat_lines

    return "\n".join(compat_lines(r))


def test_a_call_without_updates_in_one_run_keeps_the_others_free(tmp_path: Path) -> None:
    """A fast command's output may come as one update or none: the calls' ends are still free to reorder."""
    old = parallel([("start", "c1"), ("start", "c2"), ("update", "c2"), ("end", "c1"), ("end", "c2")])
    new = parallel([("start", "c1"), ("start", "c2"), ("end", "c2"), ("end", "c1")])
    r = report(tmp_path, old, new)
    assert (r.count("breaking"), r.count("warning")) == (0, 0), compat_text(r)


def test_a_queue_update_is_answered_wherever_the_run_has_got_to(tmp_path: Path) -> None:
    q = {"type": "queue_update", "steering": [], "followUp": ["x"]}
    end = {"type": "message_end", "message": {"role": "assistant", "content": []}}
    old = [{"type": "agent_start"}, q, end, {"type": "turn_end"}, {"type": "agent_end"}]
    new = [{"type": "agent_start"}, end, {"type": "turn_end"}, q, {"type": "agent_end"}]
    r = report(tmp_path, old, new)
    assert (r.count("breaking"), r.count("warning"), r.count("safe")) == (0, 0, 0), compat_text(r)


def _interleaving(draw, calls: int) -> list[tuple[str, str]]:  # type: ignore[no-untyped-def]
    """One valid schedule of ``calls`` parallel tool calls: starts in order, each call's updates then its
    end, the calls' frames interleaved at random."""
    from hypothesis import strategies as st

    lanes = [[("update", f"c{i}")] * draw(st.integers(0, 2)) + [("end", f"c{i}")] for i in range(calls)]
    out = [("start", f"c{i}") for i in range(calls)]
    while any(lanes):
        i = draw(st.sampled_from([k for k, lane in enumerate(lanes) if lane]))
        out.append(lanes[i].pop(0))
    return out


def test_any_two_schedules_of_parallel_calls_compare_as_timing(tmp_path_factory) -> None:  # type: ignore[no-untyped-def]
    from hypothesis import given, settings
    from hypothesis import strategies as st

    @settings(max_examples=25)
    @given(st.data())
    def check(data) -> None:  # type: ignore[no-untyped-def]
        calls = data.draw(st.integers(1, 3))
        old, new = (parallel(_interleaving(data.draw, calls)) for _ in range(2))
        r = report(tmp_path_factory.mktemp("s"), old, new)
        assert (r.count("breaking"), r.count("warning")) == (0, 0), compat_text(r)

    check()


def test_the_example_in_docs_drive_md_is_real_output(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    root = Path(__file__).resolve().parents[2]
    monkeypatch.chdir(root)
    doc = (root / "docs" / "drive.md").read_text()
    block = doc.split("```text\ncompat recordings/pi-0.73.1-basic.jsonl", 1)[1].split("```", 1)[0]
    shown = [line for line in ("compat recordings/pi-0.73.1-basic.jsonl" + block).splitlines()
             if line.strip() and line.strip() != "..."]
    got = CliRunner().invoke(main, ["diff", "--compat", "recordings/pi-0.73.1-basic.jsonl",
                                    "recordings/pi-0.87.1-basic.jsonl", "--width", "100"], catch_exceptions=False)
    assert got.exit_code == 1
    assert not [line for line in shown if line not in got.output.splitlines()]
