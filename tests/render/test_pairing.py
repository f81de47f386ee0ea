"""Pairing responses with commands, including pi's id-less responses."""

from __future__ import annotations

from rpcspy.render.frameinfo import NOT_JSON
from rpcspy.render.pairing import Pairer


def test_by_id_even_out_of_order() -> None:
    p = Pairer()
    p.command(1, 1.0, {"id": "a", "type": "bash"})
    p.command(2, 2.0, {"id": "b", "type": "get_state"})
    m = p.response(2.5, {"id": "b", "type": "response", "command": "get_state", "success": True})
    assert m is not None and m.command.seq == 2 and m.latency == 0.5
    m = p.response(4.0, {"id": "a", "type": "response", "command": "bash", "success": True})
    assert m is not None and m.command.seq == 1 and m.latency == 3.0
    assert p.unanswered() == []


def test_ids_of_any_json_type_are_distinct() -> None:
    p = Pairer()
    p.command(1, 0.0, {"id": 5, "type": "get_state"})
    p.command(2, 0.0, {"id": "5", "type": "get_state"})
    p.command(3, 0.0, {"id": None, "type": "get_state"})
    assert p.response(1, {"id": "5", "type": "response", "command": "get_state"}).command.seq == 2
    assert p.response(1, {"id": None, "type": "response", "command": "get_state"}).command.seq == 3
    assert p.response(1, {"id": 5, "type": "response", "command": "get_state"}).command.seq == 1


def test_unknown_command_without_echoed_id_pairs_by_type() -> None:
    p = Pairer()
    p.command(1, 0.0, {"id": "unk", "type": "nope"})
    m = p.response(0.1, {"type": "response", "command": "nope", "success": False})
    assert m is not None and m.command.seq == 1


def test_parse_errors_pair_with_unparsed_lines_and_untyped_with_untyped() -> None:
    p = Pairer()
    p.command(1, 0.0, NOT_JSON)
    p.command(2, 0.0, 42)
    p.command(3, 0.0, {"id": "x"})
    assert p.response(1, {"type": "response", "command": "parse"}).command.seq == 1
    assert p.response(1, {"type": "response", "success": False}).command.seq == 2
    assert p.response(1, {"id": "x", "type": "response", "success": False}).command.seq == 3


def test_omp_null_is_a_parse_error() -> None:
    p = Pairer()
    p.command(1, 0.0, None)
    assert p.response(1, {"type": "response", "command": "parse"}).command.seq == 1


def test_second_response_with_the_same_id_is_a_repeat() -> None:
    p = Pairer()
    p.command(1, 0.0, {"id": "p4", "type": "prompt"})
    assert not p.response(0.1, {"id": "p4", "type": "response", "command": "prompt", "success": True}).repeat
    m = p.response(0.2, {"id": "p4", "type": "response", "command": "prompt", "success": False})
    assert m is not None and m.repeat and m.command.seq == 1


def test_answers_are_not_commands_and_unanswered_are_listed() -> None:
    p = Pairer()
    assert p.command(1, 0.0, {"type": "extension_ui_response", "id": "d"}) is None
    p.command(2, 0.0, {"id": "a", "type": "prompt"})
    p.command(3, 0.0, {"type": "abort"})
    assert [x.seq for x in p.unanswered()] == [2, 3]
    assert p.response(1, {"id": "zz", "type": "response", "command": "prompt"}) is None
