"""The control server against a fake session: registry files, info, subscribe, inject and id mapping."""

from __future__ import annotations

import json
import os
import socket
import stat
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from rpcspy.events import Exit, Frame, Note, Start
from rpcspy.pump.observers import control_conn
from rpcspy.pump.observers.control import ControlError, runtime_dir, start_control
from rpcspy.pump.observers.control_client import (
    ControlClient,
    find_session,
    list_sessions,
)
from rpcspy.recording.decode import entry_or_none
from rpcspy.recording.writer import event_line
from tests.pump.control_support import FakeSession, Lines, feed, frame


def test_registry_files_are_owner_only(server, rundir: Path) -> None:
    assert stat.S_IMODE(os.stat(rundir).st_mode) == 0o700
    sock = rundir / f"{os.getpid()}.sock"
    meta = rundir / f"{os.getpid()}.json"
    assert stat.S_ISSOCK(os.stat(sock).st_mode) and stat.S_IMODE(os.stat(sock).st_mode) == 0o600
    assert stat.S_IMODE(os.stat(meta).st_mode) == 0o600
    data = json.loads(meta.read_text())
    assert data["pid"] == os.getpid() and data["argv"] == ["pi", "--mode", "rpc"]
    assert data["record_path"] == os.path.abspath("rec.jsonl") and data["socket"] == str(sock)
    assert data["started"] == "2023-11-14T22:13:20Z"


def test_start_event_records_agent_pid_and_close_removes_files(rundir: Path) -> None:
    srv = start_control(FakeSession())
    feed(srv, Start(1, 0.0, 4242, ["pi"]))
    meta = rundir / f"{os.getpid()}.json"
    assert json.loads(meta.read_text())["agent_pid"] == 4242
    srv.close()
    assert not meta.exists() and not (rundir / f"{os.getpid()}.sock").exists()


def test_runtime_dir_refuses_a_symlink(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "elsewhere").mkdir()
    os.symlink(tmp_path / "elsewhere", tmp_path / "rpcspy")
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path))
    with pytest.raises(ControlError, match="not a directory owned"):
        runtime_dir()


def test_runtime_dir_tightens_a_loose_mode(rundir: Path) -> None:
    rundir.mkdir(mode=0o755)
    os.chmod(rundir, 0o755)
    assert runtime_dir() == str(rundir)
    assert stat.S_IMODE(os.stat(rundir).st_mode) == 0o700


def test_info_counts_frames_by_direction(server) -> None:
    feed(server, Start(1, 0.0, 7, ["pi"]), frame(2, "c2a", {"id": "a", "type": "get_state"}),
         frame(3, "a2c", {"id": "a", "type": "response"}), Frame(4, 0.4, "err", b"warn"),
         frame(5, "c2a", {"id": "rpcspy-inject-1", "type": "get_state"}, injected=True))
    with ControlClient(server.sock_path) as client:
        info = client.info()
    assert info["ok"] is True
    assert info["frames"] == {"c2a": 2, "a2c": 1, "err": 1}
    assert info["injected"] == {"c2a": 1, "a2c": 0}
    assert info["agent_pid"] == 7 and info["pid"] == os.getpid() and info["exit_code"] is None


def test_subscribe_streams_the_recordings_bytes_after_a_backlog(server) -> None:
    early = [Start(1, 0.0, 7, ["pi"]), frame(2, "c2a", {"type": "get_state"}), frame(3, "a2c", {"type": "x"})]
    feed(server, *early)
    raw = Lines(server.sock_path)
    raw.send({"op": "subscribe", "ref": 1, "backlog": 2})
    ack = json.loads(raw.line())
    assert ack == {"op": "subscribe", "ref": 1, "ok": True, "backlog": 2}
    assert [raw.line(), raw.line()] == [event_line(e) for e in early[1:]]
    late = [Frame(4, 0.5, "a2c", b"not json \xff"), Note(5, 0.6, "warning", "hm"), Exit(6, 0.7, 0)]
    feed(server, *late)
    assert [raw.line() for _ in late] == [event_line(e) for e in late]
    server.close()
    assert raw.line() == b""  # EOF once the session is over
    raw.close()
    assert entry_or_none(event_line(late[0])).to_frame() == late[0]


def test_bad_requests_get_errors(server) -> None:
    raw = Lines(server.sock_path)
    raw.sock.sendall(b"not json\n")
    assert json.loads(raw.line())["error"].startswith("not JSON")
    raw.send({"op": "launch", "ref": 3})
    reply = json.loads(raw.line())
    assert reply["ok"] is False and reply["ref"] == 3 and "unknown op" in reply["error"]
    raw.close()


def test_a_slow_subscriber_is_dropped_and_never_blocks_the_session(server, monkeypatch) -> None:
    monkeypatch.setattr(control_conn, "OUT_LIMIT", 64 << 10)
    raw = Lines(server.sock_path)
    raw.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    raw.send({"op": "subscribe", "ref": 1})
    json.loads(raw.line())
    big = Frame(1, 0.1, "a2c", b'{"type":"x","pad":"' + b"y" * 8000 + b'"}')
    fed = []

    def session() -> None:
        for i in range(2000):  # ~16 MB into a client that reads nothing
            feed(server, big)
            fed.append(i)

    feeder = threading.Thread(target=session, daemon=True)
    feeder.start()
    feeder.join(120)  # a hang guard, not a speed check: the client reads nothing until the session is done
    assert not feeder.is_alive() and len(fed) == 2000, f"the session blocked on its subscriber after {len(fed)} frames"
    tail = b""
    while chunk := raw.sock.recv(1 << 20):
        tail = (tail + chunk)[-4096:]
    assert b"too far behind" in tail
    raw.close()


def test_sessions_are_listed_and_stale_ones_cleaned(server, rundir: Path) -> None:
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    (rundir / f"{dead.pid}.json").write_text(json.dumps({"pid": dead.pid, "argv": ["old"]}))
    (rundir / f"{dead.pid}.sock").write_text("")
    found = {s.pid: s for s in list_sessions()}
    assert found[dead.pid].state == "stale"
    assert not (rundir / f"{dead.pid}.json").exists() and not (rundir / f"{dead.pid}.sock").exists()
    live = found[os.getpid()]
    assert live.state == "live" and live.info is not None and live.info["frames"] == {"c2a": 0, "a2c": 0, "err": 0}
    assert find_session(None).pid == os.getpid()
    assert find_session(str(os.getpid())).pid == os.getpid()
    with pytest.raises(LookupError, match="no live rpcspy session with pid"):
        find_session("1")


def test_find_session_asks_which_when_there_are_several(rundir: Path) -> None:
    sessions = []
    try:
        for pid_offset in range(2):
            fake = FakeSession()
            fake.proxy_pid = os.getpid() if pid_offset == 0 else os.getppid()
            sessions.append(start_control(fake))
        with pytest.raises(LookupError, match="2 live sessions"):
            find_session(None)
    finally:
        for s in sessions:
            s.close()


def test_a_subscriber_that_leaves_is_forgotten_at_once(server) -> None:  # noqa: ANN001
    with ControlClient(server.sock_path) as watcher:
        watcher.subscribe()
        with ControlClient(server.sock_path) as asker:
            assert asker.info()["subscribers"] == 1
    with ControlClient(server.sock_path) as asker:
        deadline = time.monotonic() + 60  # a hang guard: the server notices the closed connection
        while asker.info()["subscribers"] and time.monotonic() < deadline:
            time.sleep(0.02)
        assert asker.info()["subscribers"] == 0


def test_the_suite_keeps_its_proxies_out_of_the_users_sessions() -> None:
    """tests/conftest.py gives the session its own XDG_RUNTIME_DIR, inherited by every proxy a test spawns."""
    import tempfile

    from tests.conftest import USER_RUNTIME_DIR

    code = "from rpcspy.pump.observers.control import runtime_dir; print(runtime_dir(create=False))"
    seen = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=30).stdout.strip()
    user = os.path.join(USER_RUNTIME_DIR, "rpcspy") if USER_RUNTIME_DIR else f"/tmp/rpcspy-{os.getuid()}"
    assert seen != user
    assert Path(seen).parent.name.startswith("rpcspy-tests-run-")
    assert Path(seen).parent.parent == Path(tempfile.gettempdir())


def test_why_diagnoses_the_session_so_far(server) -> None:
    feed(server, frame(1, "c2a", {"id": "a", "type": "get_state"}), frame(2, "c2a", {"id": "b", "type": "bash"}),
         frame(3, "a2c", {"id": "a", "type": "response", "command": "get_state", "success": True}))
    with ControlClient(server.sock_path) as client:
        live = client.call("why", client_timeout=5)
        feed(server, Exit(4, 0.5, 0))
        ended = client.call("why")
    assert live["ok"] is True
    assert [i["kind"] for i in live["why"]["outstanding"]] == ["command"]
    assert "`bash` (id 'b', frame 2)" in live["why"]["outstanding"][0]["text"]
    assert live["why"]["at"] >= 0.3, "a live session's time goes on"
    assert ended["why"]["at"] == 0.5 and "exited with code 0" in ended["why"]["context"][0]


def test_a_subscription_hands_out_batches_and_says_when_the_session_ended(server) -> None:
    from rpcspy.pump.observers.control_client import Subscription

    feed(server, Start(1, 0.0, 7, ["pi"]))
    sub = Subscription(server.sock_path, backlog=10)
    assert sub.reply["ok"]
    batches = sub.batches(idle=0.05)
    first = next(batches)
    while not first:  # quiet until the backlog arrives: empty batches
        first = next(batches)
    assert first[0].pid == 7
    feed(server, frame(2, "c2a", {"id": "a", "type": "get_state"}), Exit(3, 0.3, 0, None))
    server.close()  # the session ends: the server closes the connection
    rest = [e for batch in batches for e in batch]
    assert [type(e).__name__ for e in rest][-2:] == ["FrameEntry", "Exit"] and sub.ended
    assert sub.client.closed.wait(60)
