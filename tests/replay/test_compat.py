"""``diff --compat``: each kind of difference classified for clients, grouped, with one example."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from rpcspy.cli import main
from rpcspy.recording.reader import read_frames
from rpcspy.replay.compat import compat, frame_labels, survey
from rpcspy.replay.differ import diff_recordings
from rpcspy.replay.jsondiff import ABSENT, changes
from rpcspy.replay.normalise import NormaliseOptions, Normaliser
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
    result = diff_recordings(a, b, Normaliser(NormaliseOptions(), stable=False))
    old = survey(read_frames(a))
    return compat(result, old.labels, frame_labels(read_frames(b)), old.optional)


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
        ("warning", "new frame type", "agent_settled", None),
        ("breaking", "command now failing", "response/get_state", "$.success"),
        ("breaking", "field gone", "response/get_state", "$.data"),
        ("safe", "new field", "response/get_state", "$.error"),
    }
    (added,) = [g for g in r.groups if g.path == "$.data" and g.level == "safe"]
    assert added.example == {"a_seq": 3, "b_seq": 3, "b": {"disposition": "started"}}
    assert r.breaking and not r.client_differs and r.count("warning") == 2


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
    assert lines[0].endswith("4 breaking, 2 warning, 3 safe (agent frames 5 -> 6)")
    assert '  response/prompt: new field $.data x1  e.g. A#3/B#3 {"disposition":"started"}' in lines
    obj = json.loads(CliRunner().invoke(main, ["diff", "--compat", "--format", "json", a, b]).output)
    assert obj["breaking"] == 4 and {g["kind"] for g in obj["groups"]} >= {"new frame type", "command now failing"}
    same = CliRunner().invoke(main, ["diff", "--compat", a, rec(tmp_path / "c.jsonl", CLIENT, [*OLD[:1], *OLD[1:]])])
    assert same.exit_code == 0 and "0 breaking, 0 warning, 0 safe" in same.output


def test_a_frame_moved_only_among_deltas_is_timing(tmp_path: Path) -> None:
    d = {"type": "message_update", "assistantMessageEvent": {"type": "text_delta", "delta": "x"}}
    q = {"type": "queue_update", "steering": [], "followUp": ["x"]}
    old = [{"type": "agent_start"}, d, q, d, d, {"type": "agent_end"}]
    new = [{"type": "agent_start"}, d, d, q, d, {"type": "agent_end"}]
    groups = report(tmp_path, old, new).groups
    assert {(g.level, g.kind) for g in groups} == {("safe", "moved among streamed deltas")}
    new[3] = {**q, "followUp": ["x"], "extra": 1}
    moved = report(tmp_path, old, new).groups
    assert ("safe", "new field", "queue_update", "$.extra") in {(g.level, g.kind, g.type, g.path) for g in moved}, \
        "frames that moved are still compared field by field"


def test_a_field_the_old_agent_did_not_always_send_is_a_warning_when_gone(tmp_path: Path) -> None:
    """pi 0.87.1 put ``responseId`` on an assistant ``message_start`` only when the model's first chunk came
    first (2 of 4 in recordings/pi-0.87.1-basic.jsonl); pi 1.5.2 never does. Its clients already cope
    without it: a warning. A field the old agent always sent stays breaking."""
    def start(n: int, **extra: object) -> dict:
        return {"type": "message_start", "message": {"role": "assistant", "model": "m", "n": n, **extra}}

    old = [start(1, responseId="r1"), start(2), start(3, responseId="r3")]
    new = [start(1), start(2), start(3)]
    assert kinds(report(tmp_path, old, new)) == {
        ("warning", "optional field gone", "message_start/assistant", "$.message.responseId")}
    always = [start(1, responseId="r1"), start(2, responseId="r2"), start(3, responseId="r3")]
    assert kinds(report(tmp_path, always, new)) == {
        ("breaking", "field gone", "message_start/assistant", "$.message.responseId")}
    gone_model = [{"type": "message_start", "message": {"role": "assistant", "n": n}} for n in (1, 2, 3)]
    assert ("breaking", "field gone", "message_start/assistant", "$.message.model") in kinds(
        report(tmp_path, old, gone_model)), "sent in every frame of its type, whatever its siblings did"


def test_survey_counts_a_field_optional_only_where_its_object_is_there(tmp_path: Path) -> None:
    path = rec(tmp_path / "s.jsonl", [], [{"type": "x", "a": {"k": 1}}, {"type": "x"}, {"type": "x", "a": {"k": 2}},
                                          {"type": "y", "b": 1}, {"type": "y"}])
    got = survey(read_frames(path))
    assert got.labels == ["x", "x", "x", "y", "y"]
    assert got.optional == {("x", "$.a"), ("y", "$.b")}, "a.k is in every x that has an a"
