"""The incremental timeline: coalescing, pairing, findings inline, filters, live use."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from rpcspy.events import Exit, Finding, Frame, Note
from rpcspy.filters import FrameFilter
from rpcspy.render.items import Item
from rpcspy.render.timeline import Timeline
from tests.render.sample import sample_events


class Seq:
    """Builds frames with increasing seq and t."""

    def __init__(self) -> None:
        self.seq = 0

    def __call__(self, direction: str, obj: object, t: float | None = None) -> Frame:
        self.seq += 1
        data = obj if isinstance(obj, bytes) else json.dumps(obj, separators=(",", ":")).encode()
        return Frame(self.seq, t if t is not None else self.seq / 10, direction, data)  # type: ignore[arg-type]

    def finding(self, frame: int | None, rule: str = "r.x", severity: str = "warning") -> Finding:
        self.seq += 1
        return Finding(self.seq, self.seq / 10, rule, severity, "protocol", "msg", frame=frame)  # type: ignore[arg-type]


def run(events, **kw) -> list[Item]:
    tl = Timeline(**kw)
    out: list[Item] = []
    for e in events:
        out += tl.feed(e)
    return out + tl.finish()


def upd(kind: str, idx: int, **kw) -> dict:
    return {"type": "message_update", "assistantMessageEvent": {"type": kind, "contentIndex": idx, **kw}}


ASSISTANT_START = {"type": "message_start", "message": {"role": "assistant", "content": [{"type": "text", "text": "He"}],
                                                        "stopReason": "pending"}}


def assistant_end(text: str, stop: str = "stop", **kw) -> dict:
    return {"type": "message_end", "message": {"role": "assistant", "content": [{"type": "text", "text": text}],
                                               "stopReason": stop, "usage": {"output": 5}, **kw}}


def test_deltas_coalesce_into_the_text_they_built_not_the_snapshot() -> None:
    f = Seq()
    frames = [f("a2c", ASSISTANT_START), f("a2c", upd("text_start", 0)), f("a2c", upd("text_delta", 0, delta="He")),
              f("a2c", upd("text_delta", 0, delta="llo")), f("a2c", upd("text_end", 0, content="Hello")),
              f("a2c", assistant_end("Hello"))]
    (item,) = run(frames)
    assert item.kind == "assistant"
    assert [b.text for b in item.blocks] == ["Hello"]  # not "HeHello": message_start's pre-filled text is ignored
    assert item.seqs == [1, 2, 3, 4, 5, 6]
    assert "stop" in item.summary and "5 tokens" in item.summary and "4 updates" in item.summary
    assert not item.incomplete and not item.continued


def test_frames_mode_gives_one_item_per_frame() -> None:
    f = Seq()
    frames = [f("a2c", ASSISTANT_START), f("a2c", upd("text_delta", 0, delta="x")), f("a2c", assistant_end("x")),
              f("err", b"line1"), f("err", b"line2")]
    items = run(frames, coalesce=False)
    assert [i.seqs for i in items] == [[1], [2], [3], [4], [5]]
    assert items[1].kind == "delta" and 'delta="x"' in items[1].summary
    assert [i.kind for i in items[3:]] == ["stderr", "stderr"]


def test_a_foreign_frame_splits_the_stream_and_the_message_continues() -> None:
    f = Seq()
    frames = [f("a2c", ASSISTANT_START), f("a2c", upd("text_delta", 0, delta="Hel")),
              f("c2a", {"id": "a", "type": "abort"}),
              f("a2c", upd("text_delta", 0, delta="lo")), f("a2c", upd("text_end", 0, content="Hello")),
              f("a2c", assistant_end("Hello", "aborted", errorMessage="Request was aborted"))]
    first, cmd, rest = run(frames)
    assert first.incomplete and "interrupted" in first.summary and first.blocks[0].text == "Hel"
    assert cmd.kind == "command" and cmd.label == "abort"
    assert rest.continued and rest.blocks[0].text == "lo"  # the end content is not repeated
    assert rest.blocks[-1].kind == "error" and rest.status == "warning"


def test_a_message_that_failed_before_streaming_shows_message_end() -> None:
    f = Seq()
    end = {"type": "message_end", "message": {"role": "assistant", "content": [], "stopReason": "error",
                                              "errorMessage": "503 unavailable"}}
    (item,) = run([f("a2c", ASSISTANT_START), f("a2c", end)])
    assert item.status == "error" and item.blocks[-1].text == "503 unavailable"


def test_toolcall_block_and_thinking() -> None:
    f = Seq()
    tc = {"type": "toolCall", "id": "c1", "name": "bash", "arguments": {"command": "ls"}}
    frames = [f("a2c", ASSISTANT_START), f("a2c", upd("thinking_delta", 0, delta="hmm")),
              f("a2c", upd("toolcall_start", 1, toolName="bash")), f("a2c", upd("toolcall_delta", 1, delta='{"c')),
              f("a2c", upd("toolcall_end", 1, toolCall=tc)), f("a2c", assistant_end("", "toolUse"))]
    (item,) = run(frames)
    assert [(b.kind, b.text) for b in item.blocks] == [("thinking", "hmm"), ("toolcall", 'bash {"command":"ls"}')]


def test_commands_pair_with_responses_and_get_latency() -> None:
    f = Seq()
    items = run([f("c2a", {"id": "g", "type": "get_state"}, t=1.0),
                 f("a2c", {"id": "g", "type": "response", "command": "get_state", "success": True, "data": {}}, t=1.25)])
    cmd, resp = items
    assert cmd.kind == "command" and cmd.ref == "g"
    assert resp.label == "✓ get_state" and resp.latency == 0.25 and resp.status == "ok"


def test_unmatched_response_is_flagged() -> None:
    f = Seq()
    (resp,) = run([f("a2c", {"id": "zz", "type": "response", "command": "x", "success": True})])
    assert resp.status == "warning" and "no command waiting" in resp.summary


def test_tool_execution_updates_coalesce_and_end_has_duration() -> None:
    f = Seq()
    upd_ = {"type": "tool_execution_update", "toolCallId": "c", "toolName": "bash",
            "partialResult": {"content": [{"type": "text", "text": "a\n"}]}}
    items = run([f("a2c", {"type": "tool_execution_start", "toolCallId": "c", "toolName": "bash", "args": {}}, t=1.0),
                 f("a2c", upd_), f("a2c", upd_),
                 f("a2c", {"type": "tool_execution_end", "toolCallId": "c", "toolName": "bash",
                           "result": {"content": [{"type": "text", "text": "done"}]}, "isError": True}, t=3.0)])
    assert [i.kind for i in items] == ["tool_start", "tool_output", "tool_end"]
    assert items[1].summary == "2 updates" and len(items[1].seqs) == 2
    assert items[2].latency == 2.0 and items[2].status == "error" and items[2].summary == "done"


def test_dialog_answers_get_latency_and_stray_answers_warn() -> None:
    f = Seq()
    items = run([f("a2c", {"type": "extension_ui_request", "id": "d", "method": "select", "title": "T",
                           "options": ["a"], "timeout": 100}, t=1.0),
                 f("c2a", {"type": "extension_ui_response", "id": "d", "value": "a"}, t=1.5),
                 f("c2a", {"type": "extension_ui_response", "id": "d", "value": "a"}, t=1.6),
                 f("c2a", {"type": "extension_ui_response", "id": "other", "cancelled": True}, t=1.7)])
    dialog, late, dup, stray = items
    assert dialog.kind == "dialog"
    assert late.latency == 0.5 and late.status == "warning" and "timeout" in late.summary
    assert "already answered" in dup.summary and "no open dialog" in stray.summary


def test_findings_attach_to_the_held_item_and_to_an_open_stream() -> None:
    f = Seq()
    cmd = f("c2a", {"id": "p", "type": "prompt"})
    events = [cmd, f.finding(cmd.seq, "c.one")]
    start = f("a2c", ASSISTANT_START)
    delta = f("a2c", upd("text_delta", 0, delta="x"))
    events += [start, delta, f.finding(delta.seq, "s.two"), f("a2c", assistant_end("x"))]
    items = run(events)
    assert [i.kind for i in items] == ["command", "assistant"]
    assert [x.rule for x in items[0].findings] == ["c.one"]
    assert [x.rule for x in items[1].findings] == ["s.two"]


def test_a_finding_about_an_older_frame_stands_alone() -> None:
    f = Seq()
    a = f("c2a", {"id": "1", "type": "get_state"})
    b = f("c2a", {"id": "2", "type": "get_state"})
    items = run([a, b, f.finding(a.seq, "late"), f.finding(None, "global", "error")])
    assert [i.kind for i in items] == ["command", "command", "finding", "finding"]
    assert items[2].finding.rule == "late" and items[3].status == "error"


def test_flush_releases_the_held_item_for_live_display() -> None:
    f = Seq()
    tl = Timeline()
    assert tl.feed(f("c2a", {"id": "1", "type": "get_state"})) == []
    (item,) = tl.flush()
    assert item.label == "get_state"
    assert tl.flush() == []


def test_pending_shows_the_message_being_streamed() -> None:
    f = Seq()
    tl = Timeline()
    for fr in (f("a2c", ASSISTANT_START), f("a2c", upd("text_delta", 0, delta="Hi"))):
        assert tl.feed(fr) == []
    live = tl.pending()
    assert live is not None and live.blocks[0].text == "Hi" and "streaming" in live.summary
    tl.feed(f("a2c", assistant_end("Hi")))
    assert tl.pending() is None


def test_filter_hides_items_and_only_findings_keeps_flagged_ones() -> None:
    f = Seq()
    a = f("c2a", {"id": "1", "type": "get_state"})
    b = f("c2a", {"id": "2", "type": "prompt"})
    events = [a, b, f.finding(b.seq), Note(f.seq + 1, 9.0, "info", "hello")]
    by_type = run(events, select=FrameFilter(types=("prompt",)))
    assert [(i.label, i.selected) for i in by_type] == [("get_state", False), ("prompt", True), ("note", False)]
    flagged = run(events, select=FrameFilter(only_findings=True))
    assert [i.selected for i in flagged] == [False, True, False]


def test_only_findings_keeps_a_frame_whose_finding_comes_after_a_later_frame() -> None:
    f = Seq()
    a = f("c2a", {"id": "1", "type": "prompt"})
    b = f("a2c", {"id": "1", "type": "response", "command": "prompt", "success": False})
    events = [a, b, f.finding(a.seq, "late")]
    only = FrameFilter(only_findings=True)
    assert [i.selected for i in run(events, select=only)] == [False, False, False]  # live: not known in time
    items = run(events, select=only, flagged={a.seq})
    assert [(i.kind, i.selected) for i in items] == [("command", True), ("response", False), ("finding", True)]


def test_process_events() -> None:
    items = run([Exit(1, 2.0, 143, 15)])
    assert items[0].label == "exit 143" and "SIGTERM" in items[0].summary and items[0].status == "error"


def test_sample_recording_covers_every_frame_exactly_once() -> None:
    events = sample_events()
    frames = [e.seq for e in events if isinstance(e, Frame)]
    for coalesce in (True, False):
        items = run(events, coalesce=coalesce)
        covered = [s for i in items for s in i.seqs]
        assert covered == frames
        assert sum(len(i.findings) + (i.finding is not None) for i in items) == 3


_JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=5),
                     lambda c: st.lists(c, max_size=3) | st.dictionaries(st.text(max_size=4), c, max_size=3),
                     max_leaves=6)
_TYPES = st.sampled_from(["message_start", "message_update", "message_end", "response", "tool_execution_update",
                          "tool_execution_start", "tool_execution_end", "extension_ui_request", "agent_start",
                          "bash_execution_update", "extension_ui_response", "prompt"])


@st.composite
def _frame_data(draw: st.DrawFn) -> bytes:
    kind = draw(st.integers(0, 3))
    if kind == 0:
        return draw(st.binary(max_size=12))
    obj = draw(st.dictionaries(st.sampled_from(["id", "message", "assistantMessageEvent", "toolCallId", "command",
                                                "success", "method", "delta"]), _JSON, max_size=4))
    if kind >= 2:
        obj["type"] = draw(_TYPES)
    if kind == 3:
        obj["message"] = {"role": draw(st.sampled_from(["assistant", "user"])), "content": draw(_JSON)}
        obj["assistantMessageEvent"] = {"type": draw(st.sampled_from(["text_delta", "toolcall_end", "x"])),
                                        "contentIndex": draw(st.integers(0, 2) | st.text(max_size=2)),
                                        "delta": draw(_JSON)}
    return json.dumps(obj).encode()


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["c2a", "a2c", "err"]), _frame_data(), st.booleans()), max_size=25),
       st.booleans())
def test_any_frames_every_frame_lands_in_exactly_one_item_in_order(spec, coalesce) -> None:
    events = []
    seq = 0
    for direction, data, add_finding in spec:
        seq += 1
        events.append(Frame(seq, seq * 0.01, direction, data))
        if add_finding:
            seq += 1
            events.append(Finding(seq, seq * 0.01, "r", "info", "g", "m", frame=seq - 1))
    items = run(events, coalesce=coalesce)
    covered = [s for i in items for s in i.seqs]
    assert covered == [e.seq for e in events if isinstance(e, Frame)]
    assert sum(len(i.findings) + (i.finding is not None) for i in items) == sum(isinstance(e, Finding) for e in events)
    assert all(i.label for i in items)


def test_unhashable_values_where_strings_belong_do_not_crash() -> None:
    f = Seq()
    events = [f("a2c", {"type": "extension_ui_request", "id": [1], "method": []}),
              f("a2c", {"type": "message_start", "message": {"role": "assistant"}}),
              f("a2c", {"type": "message_end", "message": {"role": "assistant", "content": [{"type": ["text"]}]}}),
              f("a2c", {"type": "tool_execution_end", "toolCallId": {"a": 1}})]
    items = run(events)
    assert [i.kind for i in items] == ["ui", "assistant", "tool_end"]


def test_a_tool_call_whose_arguments_did_not_parse_says_so() -> None:
    """pi >= 0.99: `argumentsError` on the call (tests/data/recordings: the real pi 1.6.0 on `badargs:`)."""
    from rpcspy.recording import open_recording
    from tests.paths import DATA

    tl = Timeline()
    items: list[Item] = []
    for event in open_recording(DATA / "recordings" / "pi-1.6.0-extensions.jsonl").frames():
        items += tl.feed(event)
    items += tl.finish()
    calls = [b.text for i in items for b in i.blocks if b.kind == "toolcall" and b.text.startswith("bash")]
    assert calls == ['bash {}  (arguments did not parse: Unterminated string in JSON at position 21 (line 1 column 22))']
