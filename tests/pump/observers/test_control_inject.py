"""The control server's injections against a fake session: id mapping, diverts, refusals, answers to the injector only."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest

from rpcspy.events import Eof, Exit
from rpcspy.pump.observers.control import start_control
from rpcspy.pump.observers.control_client import (
    ControlClient,
)
from rpcspy.recording.writer import event_line
from tests.pump.control_support import FakeSession, Lines, feed, frame


def test_inject_maps_ids_and_answers_only_the_injector(rundir: Path) -> None:
    session = FakeSession()
    srv = start_control(session)
    try:
        watcher = Lines(srv.sock_path)
        watcher.send({"op": "subscribe", "ref": 1})
        assert json.loads(watcher.line())["ok"]
        responses: list[dict] = []
        with ControlClient(srv.sock_path, on_response=responses.append) as client:
            ack = client.inject({"id": "mine", "type": "get_state"})
            assert ack["ok"] and ack["inject_id"] == "rpcspy-inject-1" and ack["expects_response"]
            assert session.diverted == [b"rpcspy-inject-"]
            assert session.injected == [b'{"id":"rpcspy-inject-1","type":"get_state"}\n']
            ack2 = client.inject({"type": "steer", "message": "go"})
            assert session.injected[1] == b'{"id":"rpcspy-inject-2","type":"steer","message":"go"}\n'
            assert session.diverted == [b"rpcspy-inject-"], "divert is asked for once"
            # the proxy publishes what it injected and the diverted responses (injected=True)
            sent = [frame(1, "c2a", json.loads(line), injected=True) for line in session.injected]
            answers = [frame(3, "a2c", {"id": "rpcspy-inject-1", "type": "response", "command": "get_state",
                                        "success": True, "data": {"x": 1}}, injected=True),
                       frame(4, "a2c", {"id": "rpcspy-inject-2", "type": "response", "command": "steer",
                                        "success": True}, injected=True)]
            feed(srv, *sent, *answers)
            first = client.wait_response(ack["ref"], 5)
            second = client.wait_response(ack2["ref"], 5)
        assert first["response"] == {"id": "mine", "type": "response", "command": "get_state", "success": True,
                                     "data": {"x": 1}}
        assert first["inject_id"] == "rpcspy-inject-1" and first["repeat"] is False
        assert "id" not in second["response"], "no id was given, so none comes back"
        assert len(responses) == 2
        # a subscriber sees the frames as recorded (server ids, injected flag) and no response message
        lines = [watcher.line() for _ in range(4)]
        assert lines == [event_line(e) for e in (*sent, *answers)]
        assert all(b'"injected":true' in line for line in lines)
        watcher.close()
    finally:
        srv.close()


def test_response_before_the_ack_still_follows_it(rundir: Path) -> None:
    """The agent may answer before the injector is told the injection went out."""
    holder = {}

    def answer_at_once(line: bytes) -> None:
        rid = json.loads(line)["id"]
        feed(holder["srv"], frame(9, "a2c", {"id": rid, "type": "response", "command": "get_state",
                                             "success": True}, injected=True))

    srv = holder["srv"] = start_control(FakeSession(on_inject=answer_at_once))
    try:
        raw = Lines(srv.sock_path)
        raw.send({"op": "inject", "ref": "r", "command": {"id": 5, "type": "get_state"}})
        ack, resp = json.loads(raw.line()), json.loads(raw.line())
        assert (ack["op"], resp["op"]) == ("inject", "response")
        assert resp["ref"] == "r" and resp["response"]["id"] == 5
        raw.close()
    finally:
        srv.close()


def test_answers_are_injected_verbatim_without_divert(server) -> None:
    with ControlClient(server.sock_path) as client:
        ack = client.inject({"type": "extension_ui_response", "id": "dlg-1", "value": "B"})
    assert ack["ok"] and ack["inject_id"] is None and ack["expects_response"] is False
    assert server.session.injected == [b'{"type":"extension_ui_response","id":"dlg-1","value":"B"}\n']
    assert server.session.diverted == []


@pytest.mark.parametrize("command", [None, [1], {"id": "x"}, {"type": 3}, "get_state"])
def test_inject_refuses_what_is_not_a_typed_object(server, command) -> None:
    with ControlClient(server.sock_path) as client:
        ack = client.inject(command)
    assert ack["ok"] is False and "JSON object" in ack["error"]
    assert server.session.injected == []


def test_inject_refused_once_input_is_closed_or_agent_exited(server) -> None:
    feed(server, Eof(1, 0.1, "c2a"))
    with ControlClient(server.sock_path) as client:
        assert "stdin is closed" in client.inject({"type": "get_state"})["error"]
        feed(server, Exit(2, 0.2, 0))
        assert "exited" in client.inject({"type": "get_state"})["error"]
    assert server.session.injected == []


def test_pending_injection_fails_when_the_agent_exits(server) -> None:
    with ControlClient(server.sock_path) as client:
        ack = client.inject({"type": "get_state"})
        feed(server, Exit(2, 0.2, 1))
        msg = client.wait_response(ack["ref"], 5)
    assert msg["ok"] is False and "exited" in msg["error"]


def test_an_answer_and_the_exit_in_one_batch_keep_their_order(server) -> None:
    """A batch with the exit takes the events in order: the answer first reaches its injector, then the
    exit fails the injection still pending; the counts and the why tracker see every frame."""
    with ControlClient(server.sock_path) as client:
        ack = client.inject({"id": "a", "type": "get_state"})
        late = client.inject({"id": "b", "type": "get_state"})
        answer = frame(3, "a2c", {"id": "rpcspy-inject-1", "type": "response", "command": "get_state",
                                  "success": True}, injected=True)
        server.handle_batch([frame(1, "c2a", {"id": "x", "type": "get_state"}), answer, Exit(4, 0.4, 0),
                             frame(5, "err", "bye")])
        first = client.wait_response(ack["ref"], 5)
        second = client.wait_response(late["ref"], 5)
    assert first["response"]["id"] == "a" and first["inject_id"] == "rpcspy-inject-1"
    assert second["ok"] is False and "exited" in second["error"]
    assert server.frames == {"c2a": 1, "a2c": 1, "err": 1} and server.injected["a2c"] == 1
    assert server._why.frames == 2 and server._why.exit == (4, 0.4, 0)


def test_session_failure_to_inject_is_reported(rundir: Path) -> None:
    def broken(line: bytes) -> None:
        raise BrokenPipeError("the agent's stdin is closed")

    srv = start_control(FakeSession(on_inject=broken))
    try:
        with ControlClient(srv.sock_path) as client:
            ack = client.inject({"type": "get_state"})
        assert ack["ok"] is False and "stdin is closed" in ack["error"]
    finally:
        srv.close()


def test_an_injection_is_refused_unsent_when_the_divert_is_not_armed_in_time(rundir: Path) -> None:
    """The session could not arm the divert within ARM_WITHIN: the injector hears why, nothing is
    sent to the agent, and the next injection asks for the divert again (sent once it is armed)."""
    session = FakeSession()
    session.arms = False
    srv = start_control(session)
    try:
        with ControlClient(srv.sock_path) as client:
            ack = client.inject({"type": "get_state"})
            assert ack["ok"] is False and "could not arm the divert" in ack["error"]
            assert session.injected == [] and session.diverted == [b"rpcspy-inject-"]
            session.arms = True
            ack = client.inject({"type": "get_state"})
        assert ack["ok"] is True and ack["inject_id"] == "rpcspy-inject-2"
        assert session.diverted == [b"rpcspy-inject-"] * 2
        assert session.injected == [b'{"id":"rpcspy-inject-2","type":"get_state"}\n']
    finally:
        srv.close()


def test_concurrent_injectors_each_get_their_own_answers(rundir: Path) -> None:
    import queue

    agent: queue.Queue = queue.Queue()  # the agent answers in its own time, one dispatcher feeds the server

    def answer(line: bytes) -> None:
        rid = json.loads(line)["id"]
        agent.put(frame(9, "a2c", {"id": rid, "type": "response", "command": "get_state", "success": True},
                        injected=True))

    srv = start_control(FakeSession(on_inject=answer))

    def dispatcher() -> None:
        while (event := agent.get()) is not None:
            feed(srv, event)

    threading.Thread(target=dispatcher, daemon=True).start()
    results: dict[int, list] = {}

    def run(k: int) -> None:
        with ControlClient(srv.sock_path) as client:
            got = []
            for i in range(20):
                ack = client.inject({"id": f"c{k}-{i}", "type": "get_state"})
                got.append(client.wait_response(ack["ref"], 5)["response"]["id"])
            results[k] = got

    try:
        threads = [threading.Thread(target=run, args=(k,)) for k in range(3)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(30)
        assert results == {k: [f"c{k}-{i}" for i in range(20)] for k in range(3)}
    finally:
        agent.put(None)
        srv.close()
