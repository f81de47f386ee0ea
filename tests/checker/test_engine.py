"""The Checker as a whole: never raises, finish, timeouts, both decode paths agree."""

from __future__ import annotations

import glob

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rpcspy.checker import Checker
from rpcspy.events import Frame
from rpcspy.recording import open_recording
from tests.checker.helpers import A, C, F, check, cmd, ev, hits, ok, to_frames, upd
from tests.paths import DATA


def test_internal_error_is_a_finding(monkeypatch: pytest.MonkeyPatch) -> None:
    c = Checker()

    def boom(*a: object) -> None:
        raise RuntimeError("kaput")

    monkeypatch.setattr(c._life, "event", boom)
    [frame] = to_frames([A(ev("agent_start"))])
    [finding] = c.feed(frame)
    assert (finding.rule, finding.severity, finding.frame) == ("checker.internal_error", "warning", 1)
    assert "RuntimeError: kaput" in finding.message
    # the checker carries on with the next frame
    assert c.feed(Frame(2, 0.1, "a2c", b'{"type":"turn_end","message":{},"toolResults":[]}')) != []


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(
        ["type", "id", "command", "success", "message", "assistantMessageEvent", "contentIndex", "delta",
         "role", "content", "toolCallId", "method", "value", "reason"]), inner, max_size=4),
    max_leaves=12)
frame_types = st.sampled_from(["prompt", "response", "agent_start", "agent_end", "turn_start", "turn_end",
                               "message_start", "message_update", "message_end", "tool_execution_start",
                               "tool_execution_end", "extension_ui_request", "extension_ui_response",
                               "compaction_end", "auto_retry_start", "agent_settled", "steer", "get_commands"])


@st.composite
def frames(draw: st.DrawFn) -> Frame:
    seq = draw(st.integers(1, 10_000))
    direction = draw(st.sampled_from(["c2a", "a2c", "err"]))
    kind = draw(st.integers(0, 2))
    if kind == 0:
        data = draw(st.binary(max_size=40))
    elif kind == 1:
        import json

        obj = draw(st.dictionaries(st.sampled_from(["id", "command", "success", "message", "contentIndex",
                                                    "assistantMessageEvent", "toolCallId", "method", "value"]),
                                   json_values, max_size=4))
        obj["type"] = draw(frame_types)
        data = json.dumps(obj).encode()
    else:
        import json

        data = json.dumps(draw(json_values)).encode()
    return Frame(seq, draw(st.floats(0, 1e6)), direction, data, draw(st.booleans()), draw(st.booleans()))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(frames(), max_size=25), st.sampled_from(["auto", "pi-0.73", "pi-0.84", "omp"]))
def test_never_raises_and_never_fails_internally(batch: list[Frame], dialect: str) -> None:
    c = Checker(dialect=dialect, unanswered_after=1.0)
    out = []
    for frame in batch:
        out += c.feed(frame)
    out += c.finish(1e7, exit_code=1)
    assert not [f for f in out if f.rule == "checker.internal_error"], out
    for f in out:
        assert f.seq == 0 and f.severity in ("error", "warning", "info")


def test_finding_fields() -> None:
    [f] = [f for f in check(C(b"not json", t=3.25)) if f.rule == "framing.not_json"]
    assert (f.seq, f.t, f.frame, f.dir, f.group, f.severity) == (0, 3.25, 1, "c2a", "framing", "error")


def test_stderr_frames_are_not_checked() -> None:
    assert check(A(b"not json"), finish=False) != []
    assert check(F("err", b"not json")) == []


def test_finish_is_idempotent_and_names_the_exit_code() -> None:
    c = Checker()
    [frame] = to_frames([C(cmd("get_state", "a"))])
    c.feed(frame)
    [f] = c.finish(5.0, exit_code=1)
    assert f.rule == "correlation.unanswered" and "exited with code 1" in f.message and f.t == 5.0
    assert c.finish(6.0) == []


def test_unanswered_after_reports_live_once() -> None:
    items = [C(cmd("get_state", "a"), t=0.0), A(ev("queue_update", steering=[], followUp=[]), t=0.5),
             A(ev("queue_update", steering=[], followUp=[]), t=2.0), A(ev("queue_update", steering=[], followUp=[]), t=3.0)]
    findings = check(*items, unanswered_after=1.0)
    live = [f for f in findings if f.rule == "correlation.unanswered"]
    assert len(live) == 1 and live[0].frame == 1 and live[0].t == 2.0 and "after 2.0 s" in live[0].message
    assert hits(check(*items), "correlation.unanswered") == [1]  # without the option: at the end only


def test_unanswered_after_spares_slow_commands_and_open_dialogs() -> None:
    later = A(ev("queue_update", steering=[], followUp=[]), t=9.0)
    assert hits(check(C(cmd("bash", "b", command="sleep 9"), t=0.0), later, finish=False,
                      unanswered_after=1.0), "correlation.unanswered") == []
    dialog = A({"type": "extension_ui_request", "id": "q", "method": "confirm", "title": "t", "message": "m"}, t=0.1)
    assert hits(check(C(cmd("prompt", "p", message="/ask"), t=0.0), dialog, later, finish=False,
                      unanswered_after=1.0), "correlation.unanswered") == []


def _transcripts(pattern: str) -> list[str]:
    return sorted(glob.glob(f"{DATA}/{pattern}"))


@pytest.mark.parametrize("path", _transcripts("transcripts087/structured/0[123]*.jsonl")
                         + _transcripts("transcripts/structured/0[123]*.jsonl"))
def test_typed_fast_path_agrees_with_builtins_path(path: str) -> None:
    """A fixed dialect decodes with validate_bytes; auto decodes to builtins until detection."""
    frames_ = list(open_recording(path).frames())
    dialect = "pi-0.84" if "087" in path else "pi-0.73"
    results = []
    for c in (Checker(dialect=dialect), Checker()):
        results.append([(f.rule, f.frame, f.message) for fr in frames_ for f in c.feed(fr)])
    assert results[0] == results[1]


def test_fast_path_is_taken_for_clean_deltas(monkeypatch: pytest.MonkeyPatch) -> None:
    c = Checker(dialect="pi-0.84")
    calls = []
    original = c._life.message_update
    monkeypatch.setattr(c._life, "message_update", lambda *a: (calls.append(a), original(*a)))
    items = [A(ev("agent_start")), A(ev("turn_start")),
             A(ev("message_start", message={"role": "assistant", "content": [], "api": "a", "provider": "p",
                                            "model": "m", "usage": upd("text_start", 0)["usage"],
                                            "stopReason": "pending", "timestamp": 1})),
             A(upd("text_start", 0)), A(upd("text_delta", 0, delta="a")), A(upd("text_delta", 0, delta="b"))]
    for frame in to_frames(items):
        assert c.feed(frame) == []
    assert len(calls) == 1  # text_start went the full way; both deltas took the fast path
    assert c._stream.blocks[0].pieces == ["a", "b"]


def test_response_to_unknown_id_after_ok() -> None:
    assert hits(check(C(cmd("get_state", "a")), A(ok("get_state", "a")), A(ok("get_state", "b"))),
                "correlation.unknown_id") == [3]


def test_tick_reports_overdue_commands_without_frames() -> None:
    c = Checker(unanswered_after=2.0)
    [frame] = to_frames([C(cmd("get_state", "a"), t=1.0)])
    assert c.feed(frame) == []
    assert c.tick(2.5) == []
    [f] = c.tick(3.5)
    assert (f.rule, f.frame, f.t) == ("correlation.unanswered", 1, 3.5)
    assert c.tick(9.0) == [] and c.finish(10.0) == []  # reported once
    assert Checker().tick(100.0) == []  # without unanswered_after, ticks do nothing
