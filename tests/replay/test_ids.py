"""Id rewriting: responses get the live id, agent requests keep or refresh theirs, answers map back."""

from __future__ import annotations

import itertools

import msgspec

from rpcspy.replay.ids import IdMapper, canon
from rpcspy.replay.model import MISSING, classify


def mapper() -> IdMapper:
    counter = itertools.count(1)
    return IdMapper(new_id=lambda: f"fresh-{next(counter)}")


def test_response_id_rewritten_in_place_keeping_bytes():
    ids = mapper()
    ids.command_served(classify(b'{"id":"p1","type":"prompt"}'), classify(b'{"id": 42, "type":"prompt"}'))
    out = ids.agent_frame(b'{"id":"p1","type":"response","command":"prompt","success":true,"x":"\xe2\x80\xa8"}')
    assert out == b'{"id":42,"type":"response","command":"prompt","success":true,"x":"\xe2\x80\xa8"}'


def test_response_loses_id_when_live_command_had_none():
    ids = mapper()
    ids.command_served(classify(b'{"id":"s1","type":"get_state"}'), classify(b'{"type":"get_state"}'))
    assert ids.agent_frame(b'{"id":"s1","type":"response","command":"get_state","success":true}') == \
        b'{"type":"response","command":"get_state","success":true}'


def test_response_gains_id_when_recorded_command_had_none():
    ids = mapper()
    served = ids.command_served(classify(b'{"type":"get_state"}'), classify(b'{"id":"L","type":"get_state"}'))
    parse_err = b'{"type":"response","command":"parse","success":false,"error":"x"}'
    assert ids.agent_frame(parse_err, served) == parse_err
    out = ids.agent_frame(b'{"type":"response","command":"get_state","success":true}', served)
    assert out == b'{"id":"L","type":"response","command":"get_state","success":true}'
    # only the first one
    assert ids.agent_frame(b'{"type":"response","command":"get_state","success":true}', served).startswith(b'{"type"')


def test_id_not_first_uses_slow_path():
    ids = mapper()
    ids.command_served(classify(b'{"id":"b1","type":"bash"}'), classify(b'{"id":"B","type":"bash"}'))
    out = ids.agent_frame(b'{"type":"bash_execution_update","id":"b1","delta":"x"}')
    assert msgspec.json.decode(out) == {"type": "bash_execution_update", "id": "B", "delta": "x"}


def test_events_untouched_and_unknown_ids_untouched():
    ids = mapper()
    ev = b'{"type":"message_update","id":"p1"}'
    assert ids.agent_frame(ev) is ev
    resp = b'{"id":"nobody","type":"response","command":"x","success":true}'
    assert ids.agent_frame(resp) is resp
    assert ids.agent_frame(b"garbage") == b"garbage"


def test_agent_request_ids_kept_then_refreshed_and_answers_mapped_back():
    ids = mapper()
    req = b'{"type":"extension_ui_request","id":"u-1","method":"select","title":"t","options":["a"]}'
    assert ids.agent_frame(req) is req
    assert ids.last_request is not None and ids.last_request.method == "select"
    again = ids.agent_frame(req)
    assert msgspec.json.decode(again)["id"] == "fresh-1"
    assert ids.answer_id(classify(b'{"type":"extension_ui_response","id":"fresh-1","value":"a"}')) == "u-1"
    assert ids.answer_id(classify(b'{"type":"extension_ui_response","id":"u-1","value":"a"}')) == "u-1"
    assert ids.answer_id(classify(b'{"type":"extension_ui_response","id":"other","value":"a"}')) == "other"
    assert ids.answer_id(classify(b'{"type":"extension_ui_response","value":"a"}')) is MISSING


def test_cancel_targets_follow_the_map():
    ids = mapper()
    ids.agent_frame(b'{"type":"host_tool_call","id":"h1","toolName":"x"}')
    ids.agent_frame(b'{"type":"host_tool_call","id":"h1","toolName":"x"}')  # re-sent: fresh-1
    out = ids.agent_frame(b'{"type":"host_tool_cancel","id":"c1","targetId":"h1"}')
    assert msgspec.json.decode(out)["targetId"] == "fresh-1"


def test_canon_matches_json_stringify():
    assert canon(b'1.50') == b"1.5"
    assert canon(b'"\\u00e9"') == '"é"'.encode()


def test_overlapping_commands_with_one_recorded_id_each_get_their_own_id():
    """Two live commands served by recorded commands with the same id before either answer is played."""
    ids = mapper()
    resp = b'{"id":"req","type":"response","command":"get_state","success":true}'
    first = ids.command_served(classify(b'{"id":"req","type":"get_state"}'), classify(b'{"id":"A","type":"get_state"}'))
    second = ids.command_served(classify(b'{"id":"req","type":"get_state"}'), classify(b'{"type":"get_state"}'))
    third = ids.command_served(classify(b'{"id":"req","type":"get_state"}'), classify(b'{"id":"A3","type":"get_state"}'))
    assert msgspec.json.decode(ids.agent_frame(resp, first))["id"] == "A"
    assert "id" not in msgspec.json.decode(ids.agent_frame(resp, second))
    assert msgspec.json.decode(ids.agent_frame(resp, third))["id"] == "A3"


def test_answer_played_in_a_later_exchange_follows_its_own_command():
    """An exchange with no frames still binds its id: its response may sit in the next exchange."""
    ids = mapper()
    a = ids.command_served(classify(b'{"id":"x","type":"get_state"}'), classify(b'{"id":"A","type":"get_state"}'))
    b = ids.command_served(classify(b'{"id":"y","type":"get_state"}'), classify(b'{"id":"B","type":"get_state"}'))
    c = ids.command_served(classify(b'{"id":"x","type":"get_state"}'), classify(b'{"id":"C","type":"get_state"}'))
    # a's exchange played nothing; b's holds both recorded responses
    assert msgspec.json.decode(ids.agent_frame(b'{"id":"x","type":"response"}', b))["id"] == "A"
    assert msgspec.json.decode(ids.agent_frame(b'{"id":"y","type":"response"}', b))["id"] == "B"
    assert msgspec.json.decode(ids.agent_frame(b'{"id":"x","type":"response"}', c))["id"] == "C"
    assert a.started and b.started and c.started


def test_echoes_of_an_id_follow_the_command_the_pairing_says_it_names():
    """Two recorded prompts with one id, both waiting: the update before the first answer is the first's;
    ``prompt_result`` after both answers is the last answered one's."""
    ids = mapper()
    ids.command_served(classify(b'{"id":"p","type":"prompt"}'), classify(b'{"id":"A","type":"prompt"}'))
    ids.command_served(classify(b'{"id":"p","type":"prompt"}'), classify(b'{"id":"B","type":"prompt"}'))
    decode = msgspec.json.decode
    assert decode(ids.agent_frame(b'{"type":"bash_execution_update","id":"p"}'))["id"] == "A"
    assert decode(ids.agent_frame(b'{"id":"p","type":"response","command":"prompt","success":true}'))["id"] == "A"
    assert decode(ids.agent_frame(b'{"id":"p","type":"response","command":"prompt","success":true}'))["id"] == "B"
    assert decode(ids.agent_frame(b'{"type":"prompt_result","id":"p"}'))["id"] == "B"


def test_omp_recording_blank_line_waits_for_no_answer():
    """omp's `ready` (played first) says the recording is omp's: the blank line served before
    `{"type":"parse"}` waits for nothing, so omp's id-less error answers that command and gains its live id."""
    ids = mapper()
    assert ids.agent_frame(b'{"type":"ready"}') == b'{"type":"ready"}' and ids.omp
    ids.command_served(classify(b""), classify(b""))
    served = ids.command_served(classify(b'{"type":"parse"}'), classify(b'{"id":"L","type":"parse"}'))
    out = ids.agent_frame(b'{"type":"response","command":"parse","success":false,"error":"Unknown command: parse"}',
                          served)
    assert out == b'{"id":"L","type":"response","command":"parse","success":false,"error":"Unknown command: parse"}'
