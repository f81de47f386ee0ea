"""Engine: failure responses per frame kind, dialog timeouts, the report."""

from __future__ import annotations

import msgspec

from rpcspy.normalise.normaliser import Normaliser
from rpcspy.replay.engine import ReplayEngine, failure_response
from rpcspy.replay.matcher import Matcher
from rpcspy.replay.model import RecordedCommand, classify


def engine(*lines: bytes, ts: list[float] | None = None) -> ReplayEngine:
    m = Matcher("exact", normaliser=Normaliser(stable=False))
    e = ReplayEngine(m, recording="r.jsonl")
    for i, line in enumerate(lines):
        e.add_recorded(RecordedCommand(index=i, seq=i + 1, t=(ts or [0.0] * len(lines))[i], frame=classify(line)))
    return e


def dec(b: bytes | None):
    return None if b is None else msgspec.json.decode(b)


def test_failure_response_shapes():
    assert dec(failure_response(classify(b'{"id":"a","type":"prompt"}'), "m")) == {
        "id": "a", "type": "response", "command": "prompt", "success": False, "error": "rpcspy replay: m"}
    assert failure_response(classify(b'{"id": 1.50 ,"type":"x"}'), "m").startswith(b'{"id":1.5,"type":"response"')
    assert dec(failure_response(classify(b"{nope"), "m")) == {
        "type": "response", "command": "parse", "success": False, "error": "rpcspy replay: m"}
    assert dec(failure_response(classify(b"42"), "m")) == {"type": "response", "success": False,
                                                          "error": "rpcspy replay: m"}
    assert dec(failure_response(classify(b'{"id":"n"}'), "m")) == {"id": "n", "type": "response", "success": False,
                                                                 "error": "rpcspy replay: m"}
    assert failure_response(classify(b'{"type":"extension_ui_response","id":"u","value":"x"}'), "m") is None


def test_client_line_match_and_divergence_counted():
    e = engine(b'{"id":"s","type":"get_state"}')
    ok = e.client_line(b'{"id":"L","type":"get_state"}', line=1, complete=True)
    assert ok.match is not None and ok.reply is None
    assert e.agent_frame(b'{"id":"s","type":"response","command":"get_state","success":true}', ok.served) == \
        b'{"id":"L","type":"response","command":"get_state","success":true}'
    bad = e.client_line(b'{"id":"M","type":"get_state"}', line=2, complete=True)
    assert bad.divergence is not None and bad.divergence.line == 2 and dec(bad.reply)["id"] == "M"
    assert e.client_line(b'{"type":"prompt"}', line=3, complete=False).need_more
    report = e.finish(0)
    assert report.matched == 1 and len(report.divergences) == 1 and report.unconsumed == []
    assert report.to_json()["divergences"][0]["id"] == "M"


REQ = b'{"type":"extension_ui_request","id":"u","method":"confirm","title":"?","message":"?","timeout":500}'


def test_dialog_timeout_serves_recorded_answer_given_in_time():
    e = engine(b'{"id":"c","type":"prompt","message":"/x"}', b'{"type":"extension_ui_response","id":"u","confirmed":true}',
               ts=[1.0, 1.2])
    e.client_line(b'{"id":"c","type":"prompt","message":"/x"}', line=1, complete=True)
    e.agent_frame(REQ, now=10.0, rec_t=1.0)
    assert e.next_deadline() == 10.5
    assert e.expire(10.4, complete=True) == []
    outs = e.expire(10.6, complete=True)
    assert len(outs) == 1 and outs[0].match.command.index == 1 and outs[0].divergence.kind == "timeout"
    assert e.next_deadline() is None
    # the late live answer no longer matches
    late = e.client_line(b'{"type":"extension_ui_response","id":"u","confirmed":true}', line=2, complete=True)
    assert late.divergence is not None and late.reply is None


def test_dialog_timeout_ignored_when_recorded_agent_timed_out_too():
    e = engine(b'{"id":"c","type":"prompt"}', b'{"type":"extension_ui_response","id":"u","confirmed":true}',
               ts=[1.0, 3.0])
    e.agent_frame(REQ, now=0.0, rec_t=1.0)
    assert e.expire(1.0, complete=True) == []
    assert e.report.divergences == []


def test_answer_in_time_cancels_timer_and_expire_waits_for_index():
    e = engine(b'{"type":"extension_ui_response","id":"u","confirmed":true}', ts=[0.1])
    e.agent_frame(REQ, now=0.0, rec_t=0.0)
    e.client_line(b'{"type":"extension_ui_response","id":"u","confirmed":true}', line=1, complete=True)
    assert e.next_deadline() is None
    e2 = engine()
    e2.agent_frame(REQ, now=0.0)
    assert e2.expire(1.0, complete=False) is None  # the answer may be further on in the recording
