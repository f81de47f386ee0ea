"""Normaliser: detection rules, stable placeholders, class tokens, idempotence."""

from __future__ import annotations

import msgspec
from hypothesis import given, settings
from hypothesis import strategies as st

from rpcspy.normalise.normaliser import NormaliseOptions, Normaliser
from rpcspy.normalise.options import compact_partial
from rpcspy.normalise.secrets import REDACTED

UUID_A = "01a20213-d398-77e8-928f-7e42015cc8a7"
UUID_B = "89bf6fa8-af91-410d-90cb-29e458611070"


def stable(**kw) -> Normaliser:
    return Normaliser(NormaliseOptions(**kw), stable=True)


def tokens(**kw) -> Normaliser:
    return Normaliser(NormaliseOptions(**kw), stable=False)


def test_uuids_numbered_by_first_appearance_and_consistent():
    n = stable()
    out = n.value({"sessionId": UUID_A, "x": [UUID_B, f"file-{UUID_A}.jsonl"]})
    assert out == {
        "sessionId": "00000000-0000-4000-8000-000000000001",
        "x": ["00000000-0000-4000-8000-000000000002", "file-00000000-0000-4000-8000-000000000001.jsonl"],
    }


def test_timestamps_keep_type_and_order():
    n = stable()
    out = n.value({"timestamp": 1795331184161, "m": {"timestamp": 1795331184076}, "other": 1795331184161})
    assert out == {"timestamp": 1700000000001, "m": {"timestamp": 1700000000002}, "other": 1795331184161}
    assert tokens().value({"timestamp": 1795331184161}) == {"timestamp": "<time>"}
    # small numbers under a time key are not timestamps
    assert stable().value({"time": 12}) == {"time": 12}


def test_iso_times_keep_their_layout():
    n = stable()
    assert n.text("at 2026-05-07T10:11:12.345Z and 2026-05-07T10-11-12-345Z_x") == \
        "at 2000-01-01T00:00:01.000Z and 2000-01-01T00-00-02-000Z_x"


def test_temp_paths_replace_only_varying_segments():
    n = stable()
    s = n.text("out in /tmp/pi-bash-9f3a1c.log and /tmp/pytest-of-root/pytest-12/t0/a.txt, not /home/u/tmp/x1")
    assert s == "out in /tmp/tmp1 and /tmp/pytest-of-root/tmp2/tmp3/a.txt, not /home/user/tmp/x1"  # (its home too)
    assert tokens().text("see /tmp/pi-bash-9f3a1c.log") == "see <tmpdir>/<tmp>"
    assert stable().text("/tmp/plain/file") == "/tmp/plain/file"


def test_the_authors_home_directory_is_normalised_everywhere():
    """A fixture keeps no user name: /home/alice, /Users/alice and C:\\Users\\alice become user (user2...
    for another); live normalisation (replay's matching, diff) sees any home as <home>."""
    n = stable()
    text = "cd /home/alice/proj; cat /Users/bob/.pi/agent/settings.json; dir C:\\Users\\alice\\x; /home/alice/y"
    assert n.text(text) == ("cd /home/user/proj; cat /Users/user2/.pi/agent/settings.json; dir C:\\Users\\user\\x; "
                            "/home/user/y")
    assert n.text("/home/user/a and /homes/x and /var/home/z") == "/home/user/a and /homes/x and /var/home/z"
    t = tokens()
    assert t.text("/home/alice/proj/a.py") == t.text("/Users/zed/proj/a.py") == "<home>/proj/a.py"
    long = "x" * 5000 + " /home/alice/secret-project"  # a long string is searched too (the hint list)
    assert n.text(long).endswith("/home/user/secret-project")


def test_tokens_keep_the_path_after_the_varying_segments():
    """Live normalisation (matching, diff) must not swallow the whole path."""
    t = tokens()
    assert t.text("/tmp/tmpab12/project/src/main.py") == "<tmpdir>/<tmp>/project/src/main.py"
    assert t.text("/tmp/tmpab12/project/etc/passwd") == "<tmpdir>/<tmp>/project/etc/passwd"
    assert t.text("/tmp/tmp1/a.jsonl") != t.text("/tmp/tmp1/b.jsonl")
    assert t.text("/tmp/tmpab12/x") == t.text("/tmp/tmpzz99/x") == t.text("/private/var/folders/q1/w2/T/k9/x")
    assert t.text("/tmp/pytest-of-root/pytest-12/t0/a.txt") == "<tmpdir>/pytest-of-root/<tmp>/<tmp>/a.txt"


def test_temp_path_with_a_uuid_segment_keeps_both():
    path = f"/tmp/{UUID_A}/run7/out.log"
    assert stable().text(path) == "/tmp/00000000-0000-4000-8000-000000000001/tmp1/out.log"
    assert tokens().text(path) == tokens().text(stable().text(path)) == "<tmpdir>/<uuid>/<tmp>/out.log"


def test_secrets_redacted_by_pattern_key_and_regex():
    n = stable(redact=(r"hunter\d",))
    out = n.value({"apiKey": "whatever", "text": "key sk-abcdefghijklmnopqrstu and hunter2 here", "n": "sk-short"})
    assert out == {"apiKey": REDACTED, "text": f"key {REDACTED} and {REDACTED} here", "n": "sk-short"}


def test_loopback_ports_are_volatile():
    assert stable().text("http://127.0.0.1:18931/v1") == "http://127.0.0.1:40001/v1"
    assert tokens().text("http://localhost:5555/v1") == "http://localhost:<port>/v1"


def test_ids_by_key_keep_their_prefix():
    n = stable()
    frame = {"type": "toolCall", "id": "call_8xZq", "x": {"toolCallId": "call_8xZq", "responseId": "chatcmpl-77"}}
    assert n.value(frame) == {"type": "toolCall", "id": "call_1", "x": {"toolCallId": "call_1", "responseId": "chatcmpl-2"}}
    # command ids are not volatile: the client chose them
    assert stable().value({"id": "p1", "type": "prompt"}) == {"id": "p1", "type": "prompt"}


def test_usage_only_when_asked():
    frame = {"usage": {"input": 12, "output": 7, "cost": {"total": 0.5}}, "contextWindow": 128000}
    assert stable().value(frame) == frame
    assert stable(usage=True).value(frame) == {"usage": {"input": 0, "output": 0, "cost": {"total": 0.0}},
                                               "contextWindow": 128000}
    assert tokens(usage=True).value({"usage": {"input": 3}}) == {"usage": {"input": "<n>"}}


def test_durations_zeroed():
    assert stable().value({"details": {"wallTimeMs": 1234}}) == {"details": {"wallTimeMs": 0}}
    # omp's assistant messages carry time to first token and duration
    assert stable().value({"role": "assistant", "ttft": 81.5, "duration": 402}) == {
        "role": "assistant", "ttft": 0, "duration": 0}
    # pi 1.5.2's bash tool result: one run took 0.1 s, another 0 (a replay against the real agent differed)
    result = {"structuredContent": {"output": "hi\n", "exit_code": 0, "wall_time_seconds": 0.1}}
    assert stable().value(result) == {"structuredContent": {"output": "hi\n", "exit_code": 0, "wall_time_seconds": 0.0}}


def test_frame_keeps_bytes_when_nothing_changes():
    data = b'{"type":"agent_start"}'
    assert stable().frame(data) is data
    raw = '{"type":"x","t":"a\u2028b"}'.encode()
    assert stable().frame(raw) is raw
    n = stable()
    out = n.frame(b'{"sessionId":"%s"}' % UUID_A.encode())
    assert out == b'{"sessionId":"00000000-0000-4000-8000-000000000001"}'


def test_frame_text_and_invalid_utf8():
    assert stable().frame(b"not json " + UUID_A.encode()) == b"not json 00000000-0000-4000-8000-000000000001"
    bad = b"\xff\xfe not utf8"
    assert stable().frame(bad) is bad


def test_compact_partials():
    msg = {"type": "message_update", "assistantMessageEvent": {"type": "text_delta", "delta": "a", "partial": {"x": 1}},
           "message": {"x": 1}}
    assert compact_partial(msg) == {"type": "message_update", "assistantMessageEvent": {"type": "text_delta", "delta": "a"},
                                    "message": {"x": 1}}
    other = {"type": "agent_start"}
    assert compact_partial(other) is other
    out = stable(compact_partials=True).frame(msgspec.json.encode(msg))
    assert b"partial" not in out


def test_placeholders_normalise_to_the_same_tokens_as_originals():
    frame = {"sessionId": UUID_A, "timestamp": 1795331184161, "p": "/tmp/x9/y", "t": "2026-01-01T00:00:00Z"}
    fixture = stable().value(frame)
    assert tokens().value(fixture) == tokens().value(frame)


json_leaf = st.one_of(
    st.none(), st.booleans(), st.integers(-10**15, 10**15), st.text(max_size=20),
    st.sampled_from([UUID_A, UUID_B, "2026-05-07T10:11:12.345Z", "/tmp/abc123/f", "sk-abcdefghijklmnopqrstuvwx",
                     f"/tmp/{UUID_B}/w1/f.log", "/var/folders/ab/c9/T/tmpq1/src/a.py", "/tmp/plain/x",
                     "http://127.0.0.1:1234/v1", 1795331184161]),
)
json_values = st.recursive(
    json_leaf,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.dictionaries(st.sampled_from(["timestamp", "sessionId", "id", "type", "text", "usage", "toolCallId",
                                         "durationMs", "apiKey", "x"]), inner, max_size=4),
    ),
    max_leaves=20,
)


@settings(max_examples=120, deadline=None)
@given(json_values)
def test_stable_normalisation_is_idempotent(value):
    once = stable(usage=True).value(value)
    assert stable(usage=True).value(once) == once


@settings(max_examples=120, deadline=None)
@given(json_values)
def test_tokens_equal_for_fixture_and_original(value):
    assert tokens(usage=True).value(stable(usage=True).value(value)) == tokens(usage=True).value(value)


def test_tool_call_ids_are_replaced_alike_on_toolcall_start_and_the_tool_call() -> None:
    """pi >= 0.84 repeats the tool call id on toolcall_start; one placeholder must serve both."""
    from rpcspy.normalise.normaliser import Normaliser

    norm = Normaliser(stable=True)
    start = norm.value({"type": "message_update", "assistantMessageEvent": {"type": "toolcall_start", "id": "call_9",
                                                                           "toolName": "bash"}})
    end = norm.value({"type": "tool_execution_start", "toolCallId": "call_9"})
    assert start["assistantMessageEvent"]["id"] == end["toolCallId"] != "call_9"
