"""The one pairing model: commands and responses by id, and pi's id-less answers."""

from __future__ import annotations

from rpcspy.protocol.pairing import Pairing


def _resp(**kw: object) -> dict:
    return {"type": "response", **kw}


def test_by_id_even_out_of_order() -> None:
    p = Pairing()
    p.client(1, 1.0, {"id": "a", "type": "bash"})
    p.client(2, 2.0, {"id": "b", "type": "get_state"})
    a = p.response(3, _resp(id="b", command="get_state", success=True))
    assert a.kind == "id" and a.command is not None and a.command.seq == 2
    a = p.response(4, _resp(id="a", command="bash", success=True))
    assert a.kind == "id" and a.command is not None and a.command.seq == 1
    assert p.unanswered() == []


def test_ids_of_any_json_type_are_distinct() -> None:
    p = Pairing()
    p.client(1, 0.0, {"id": 5, "type": "get_state"})
    p.client(2, 0.0, {"id": "5", "type": "get_state"})
    p.client(3, 0.0, {"id": None, "type": "get_state"})
    assert [p.response(9, _resp(id=i, command="get_state")).command.seq for i in ("5", None, 5)] == [2, 3, 1]


def test_unknown_command_without_echoed_id_pairs_by_type_only_when_it_fails() -> None:
    p = Pairing()
    p.client(1, 0.0, {"id": "unk", "type": "nope"})
    assert p.response(2, _resp(command="nope", success=True)).kind == "unexpected"
    a = p.response(3, _resp(command="nope", success=False))
    assert a.kind == "idless_error" and a.command is not None and a.command.seq == 1


def test_idless_answer_goes_to_the_idless_command_even_when_one_with_an_id_is_older() -> None:
    """The example of issue 11: the agent answers the id-less ``get_commands`` first."""
    p = Pairing()
    p.client(1, 0.0, {"id": 1, "type": "get_commands"})
    p.client(2, 0.0, {"type": "get_commands"})
    first = p.response(3, _resp(command="get_commands", success=True))
    second = p.response(4, _resp(id=1, command="get_commands", success=True))
    assert (first.kind, first.command.seq) == ("idless", 2)
    assert (second.kind, second.command.seq) == ("id", 1)
    assert p.unanswered() == []


def test_parse_errors_pair_with_unparsed_lines_and_untyped_with_untyped() -> None:
    p = Pairing()
    p.client(1, 0.0, None, parsed=False)
    p.client(2, 0.0, 42)
    p.client(3, 0.0, {"id": "x"})
    assert [q.name for q in p.unanswered()] == ["(invalid)", "(no type)", "(no type)"]
    assert p.response(4, _resp(command="parse")).command.seq == 1
    assert p.response(5, _resp(success=False)).command.seq == 2
    assert p.response(6, _resp(id="x", success=False)).command.seq == 3


def test_omp_null_is_a_parse_error() -> None:
    p = Pairing()
    p.client(1, 0.0, None)
    assert p.response(2, _resp(command="parse")).command.seq == 1


def test_omp_second_response_to_a_prompt_is_a_repeat_other_second_responses_duplicates() -> None:
    p = Pairing()
    p.client(1, 0.0, {"id": "p4", "type": "prompt"})
    assert p.response(2, _resp(id="p4", command="prompt", success=True)).fresh
    a = p.response(3, _resp(id="p4", command="prompt", success=False), omp=True)
    assert a.kind == "repeat" and not a.fresh and a.command.seq == 1
    a = p.response(4, _resp(id="p4", command="prompt", success=False), omp=True)
    assert a.kind == "duplicate" and a.first == 2 and a.command.seq == 1


def test_reused_ids_wait_in_order_and_mismatched_commands_are_flagged() -> None:
    p = Pairing()
    assert p.command(1, 0.0, {"id": "a", "type": "get_state"})[1] is None
    _, older = p.command(2, 0.0, {"id": "a", "type": "bash"})
    assert older is not None and older.seq == 1
    assert [q.seq for q in p.waiting_with_id()] == [1, 2]
    a = p.response(3, _resp(id="a", command="bash"))
    assert a.command.seq == 1 and a.mismatch
    assert p.response(4, _resp(id="a", command="bash")).command.seq == 2


def test_answers_are_not_commands_and_unanswered_are_listed() -> None:
    p = Pairing()
    assert p.client(1, 0.0, {"type": "extension_ui_response", "id": "d"}) is None
    p.client(2, 0.0, {"id": "a", "type": "prompt"})
    p.client(3, 0.0, {"type": "abort"})
    assert [x.seq for x in p.unanswered()] == [2, 3]
    a = p.response(4, _resp(id="zz", command="prompt"))
    assert a.kind == "unknown_id" and a.command is None


def test_a_bounded_pairing_forgets_the_oldest_waiting_commands_reused_ids_too(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    import rpcspy.protocol.pairing as pairing

    monkeypatch.setattr(pairing, "WAITING_CAP", 4)  # trimmed past 4 + 4 // 4, down to 4
    p = Pairing(bounded=True)
    for i in range(6):
        p.command(i + 1, 0.0, {"id": f"c{i}", "type": "get_state"})
    assert [q.seq for q in p.waiting_with_id()] == [3, 4, 5, 6]
    for i in range(6):  # one id reused, never answered: past the cap its queue is dropped
        p.command(7 + i, 0.0, {"id": "c5", "type": "get_state"})
    assert [q.seq for q in p.waiting_with_id()] == [3, 4, 5, 6, 12]
    assert p.response(13, _resp(id="c5", command="get_state")).command.seq == 6
    assert p.response(14, _resp(id="c5", command="get_state")).command.seq == 12
    assert p.response(15, _resp(id="c5", command="get_state")).kind == "duplicate"
    unbounded = Pairing()
    for i in range(6):
        unbounded.command(i + 1, 0.0, {"id": "x", "type": "get_state"})
    assert len(unbounded.waiting_with_id()) == 6
