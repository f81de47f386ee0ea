"""The control socket's limits: request line length, number of clients, clients that never read,
hostile requests; none of them grows the proxy without bound or prints a traceback."""

from __future__ import annotations

import json
import socket
import threading
import time

import pytest

from rpcspy.events import Frame
from rpcspy.pump.observers import control, control_conn
from tests.pump.control_support import Lines, feed


def _threads() -> int:
    return sum(1 for t in threading.enumerate() if t.name.startswith("rpcspy-control-"))


def test_a_request_line_without_end_is_cut_at_the_limit(server, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(control_conn, "LINE_LIMIT", 1 << 20)
    raw = Lines(server.sock_path)
    try:
        sent = 0
        chunk = b"x" * (1 << 16)
        while sent < 8 << 20:  # a client that never ends its line: 8 times the limit
            try:
                raw.sock.sendall(chunk)
            except OSError:  # the server closed on us: what we want
                break
            sent += len(chunk)
        reply = json.loads(raw.line())
        assert reply["ok"] is False and "longer than 1 MiB" in reply["error"]
        try:
            assert raw.line() == b""  # and closed
        except ConnectionResetError:  # closed with bytes of ours still unread: as closed
            pass
    finally:
        raw.close()


def test_clients_beyond_the_limit_are_told_and_closed(server, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(control, "MAX_CLIENTS", 4)
    before = _threads()
    clients = [Lines(server.sock_path) for _ in range(4)]
    for c in clients:  # each is served
        c.send({"op": "info", "ref": 1})
        assert json.loads(c.line())["ok"] is True
    extra: list[Lines] = []
    try:
        for _ in range(20):
            c = Lines(server.sock_path)
            extra.append(c)
            reply = json.loads(c.line())
            assert reply["ok"] is False and "too many control clients (4)" in reply["error"]
            assert c.line() == b""
        assert _threads() - before <= 2 * 4
    finally:
        for c in clients + extra:
            c.close()
    deadline = time.monotonic() + 10
    while _threads() > before and time.monotonic() < deadline:  # the served ones are forgotten when they leave
        time.sleep(0.05)
    fresh = Lines(server.sock_path)
    fresh.send({"op": "info", "ref": 2})
    assert json.loads(fresh.line())["ok"] is True
    fresh.close()


def test_a_subscriber_that_never_reads_is_dropped_and_its_threads_end(server, monkeypatch) -> None:
    monkeypatch.setattr(control_conn, "SEND_TIMEOUT", 1)
    before = set(threading.enumerate())
    raw = Lines(server.sock_path)
    raw.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    raw.send({"op": "subscribe", "ref": 1})
    json.loads(raw.line())
    mine = [t for t in threading.enumerate() if t not in before and t.name.startswith("rpcspy-control-")]
    assert len(mine) == 2  # its reader and its writer
    big = Frame(1, 0.1, "a2c", b'{"type":"x","pad":"' + b"y" * 8000 + b'"}')
    for _ in range(200):  # 1.6 MB: below OUT_LIMIT, but the client takes nothing
        feed(server, big)
    for t in mine:
        t.join(30)
    assert not any(t.is_alive() for t in mine), "the writer stayed blocked on a client that never reads"
    assert server.info()["subscribers"] == 0
    raw.close()


@pytest.mark.parametrize("request_line", [
    b"[" * 100_000 + b"]" * 100_000 + b"\n",
    b'{"op":"inject","command":' + b'{"a":' * 50_000 + b"1" + b"}" * 50_000 + b"}\n",
    b'{"op":"subscribe","backlog":"x"}\n',
    b'{"op":["info"]}\n',
    b"\xff\xfe\n",
])
def test_hostile_requests_get_an_error_not_a_traceback(server, request_line: bytes,
                                                        capfd: pytest.CaptureFixture[str]) -> None:
    raw = Lines(server.sock_path)
    raw.sock.sendall(request_line)
    reply = json.loads(raw.line())
    assert "op" in reply
    raw.send({"op": "info", "ref": 7})  # the connection still works
    assert json.loads(raw.line())["ref"] == 7
    raw.close()
    assert "Traceback" not in capfd.readouterr().err


def test_a_bug_in_a_request_is_answered_not_printed(server, monkeypatch, capfd) -> None:
    def broken(_conn, _line):  # noqa: ANN001, ANN202
        raise KeyError("boom")

    monkeypatch.setattr(server, "request", broken)
    raw = Lines(server.sock_path)
    raw.send({"op": "info"})
    reply = json.loads(raw.line())
    assert reply["ok"] is False and "internal error: KeyError" in reply["error"]
    raw.close()
    assert "Traceback" not in capfd.readouterr().err
