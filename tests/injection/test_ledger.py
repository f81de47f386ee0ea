"""The injected-id table: requests and answers in, what to send and whom to tell out (no sockets)."""

from __future__ import annotations

import json

from rpcspy.injection import ledger as ledger_mod
from rpcspy.injection.divert import InjectedIds
from rpcspy.injection.ledger import PREFIX, Injection, Ledger, Push, injected_id, refusal


def answer(rid: str, **more: object) -> bytes:
    return json.dumps({"id": rid, "type": "response", "command": "get_state", "success": True, **more}).encode()


def sent(ledger: Ledger[str], conn: str, ref: object, command: dict) -> tuple[Injection, list[Push[str]]]:
    injection = ledger.register(conn, ref, command)
    return injection, ledger.acknowledge(conn, ref, injection)


def test_a_command_gets_our_id_first_and_the_first_one_asks_for_the_divert() -> None:
    ledger: Ledger[str] = Ledger()
    first = ledger.register("a", 1, {"type": "get_state", "id": "mine", "x": 1})
    assert first == Injection({"id": "rpcspy-inject-1", "type": "get_state", "x": 1}, "rpcspy-inject-1", PREFIX.encode())
    assert list(first.command) == ["id", "type", "x"]
    assert ledger.register("a", 2, {"type": "get_state"}).divert == PREFIX.encode()  # not diverted yet: ask again
    ledger.diverted()
    assert ledger.register("a", 3, {"type": "get_state"}).divert is None


def test_the_answer_goes_to_its_injector_with_its_own_id_restored_or_removed() -> None:
    ledger: Ledger[str] = Ledger()
    with_id, ack = sent(ledger, "a", "r1", {"type": "get_state", "id": "mine"})
    assert ack == [Push("a", {"op": "inject", "ref": "r1", "ok": True, "inject_id": "rpcspy-inject-1",
                              "expects_response": True})]
    without_id, _ = sent(ledger, "b", "r2", {"type": "get_state"})
    [to_b] = ledger.answer(answer("rpcspy-inject-2"))
    assert to_b.to == "b" and "id" not in to_b.message["response"] and to_b.message["repeat"] is False
    [to_a] = ledger.answer(answer("rpcspy-inject-1"))
    assert to_a == Push("a", {"op": "response", "ref": "r1", "inject_id": "rpcspy-inject-1", "repeat": False,
                              "response": {"id": "mine", "type": "response", "command": "get_state", "success": True}})


def test_an_answer_before_the_acknowledgement_follows_it() -> None:
    ledger: Ledger[str] = Ledger()
    injection = ledger.register("a", 7, {"type": "get_state"})
    assert ledger.answer(answer("rpcspy-inject-1")) == []
    ack, response = ledger.acknowledge("a", 7, injection)
    assert ack.message["op"] == "inject" and response.message["op"] == "response" and response.to == "a"


def test_a_repeated_answer_is_marked_and_unknown_or_broken_ones_are_dropped() -> None:
    ledger: Ledger[str] = Ledger()
    sent(ledger, "a", 1, {"type": "get_state"})
    ledger.answer(answer("rpcspy-inject-1"))
    [again] = ledger.answer(answer("rpcspy-inject-1"))
    assert again.message["repeat"] is True
    for data in (answer("rpcspy-inject-2"), b"not json", b"[1]", b'{"id":1,"type":"response"}', b"[" * 5000):
        assert ledger.answer(data) == []


def test_ids_that_share_a_prefix_are_different_injections() -> None:
    ledger: Ledger[str] = Ledger()
    for n in range(1, 11):
        sent(ledger, f"conn{n}", n, {"type": "get_state"})
    assert [p.to for p in ledger.answer(answer("rpcspy-inject-10"))] == ["conn10"]
    assert [p.to for p in ledger.answer(answer("rpcspy-inject-1"))] == ["conn1"]
    assert ledger.answer(answer("rpcspy-inject-1 ")) == [] and ledger.answer(answer("rpcspy-inject-")) == []


def test_answers_to_the_agent_go_as_they_are_and_wait_for_nothing() -> None:
    ledger: Ledger[str] = Ledger()
    command = {"type": "extension_ui_response", "id": "dialog-1", "value": "y"}
    injection, ack = sent(ledger, "a", 1, command)
    assert injection == Injection(command, None, None)
    assert ack == [Push("a", {"op": "inject", "ref": 1, "ok": True, "inject_id": None, "expects_response": False})]
    assert ledger.fail_all("gone") == []


def test_fail_all_tells_every_waiting_injector_once() -> None:
    ledger: Ledger[str] = Ledger()
    sent(ledger, "a", 1, {"type": "get_state"})
    unacked = ledger.register("b", 2, {"type": "get_state"})
    [to_a] = ledger.fail_all("the agent exited before answering")
    assert to_a == Push("a", {"op": "response", "ref": 1, "inject_id": "rpcspy-inject-1", "ok": False,
                              "error": "the agent exited before answering"})
    assert ledger.fail_all("again") == []
    ack, failed = ledger.acknowledge("b", 2, unacked)
    assert failed.to == "b" and failed.message["ok"] is False
    assert ledger.answer(answer("rpcspy-inject-1")) == []  # too late: nobody waits for it


def test_a_withdrawn_injection_is_forgotten() -> None:
    ledger: Ledger[str] = Ledger()
    injection = ledger.register("a", 1, {"type": "get_state"})
    ledger.withdraw(injection)
    assert ledger.answer(answer("rpcspy-inject-1")) == [] and ledger.fail_all("x") == []
    assert ledger.register("a", 2, {"type": "get_state"}).inject_id == "rpcspy-inject-2"  # ids are never reused


def test_an_injection_whose_divert_is_not_armed_is_withdrawn_and_the_next_asks_again() -> None:
    """Not armed in time: never sent, forgotten (its answer, should one come, goes nowhere), and the
    divert is still to be asked for; the reason says nothing reached the agent."""
    ledger: Ledger[str] = Ledger()
    injection = ledger.register("a", 1, {"type": "get_state"})
    reason = ledger.unarmed(injection, 5.0)
    assert "within 5 s" in reason and "nothing was written to the agent" in reason
    assert ledger.answer(answer("rpcspy-inject-1")) == []
    assert ledger.fail_all("gone") == []
    assert ledger.register("a", 2, {"type": "get_state"}).divert == PREFIX.encode()


def test_answered_ids_are_remembered_within_a_bound(monkeypatch) -> None:  # noqa: ANN001
    monkeypatch.setattr(ledger_mod, "KEEP_ANSWERED", 2)
    ledger: Ledger[str] = Ledger()
    for n in (1, 2, 3):
        sent(ledger, "a", n, {"type": "get_state"})
        ledger.answer(answer(injected_id(n)))
    assert ledger.answer(answer(injected_id(1))) == []
    assert [p.message["repeat"] for p in ledger.answer(answer(injected_id(3)))] == [True]


def test_refusals() -> None:
    typed = {"type": "get_state"}
    for command in (None, [], {"type": 1}, {"id": "x"}):
        assert "string type" in str(refusal(command, exited=False, input_closed=False))
    assert refusal(typed, exited=True, input_closed=True) == "the agent has exited"
    assert refusal(typed, exited=False, input_closed=True) == "the agent's stdin is closed"
    assert refusal(typed, exited=False, input_closed=False) is None


def test_the_ids_it_hands_out_are_the_ones_the_diverter_matches() -> None:
    ids = InjectedIds((PREFIX.encode(),))
    assert all(ids.matches(injected_id(n)) for n in (1, 9, 10, 12345))
