"""The control socket after its observer process was killed (kill -9): the session forwards on, every client
says the socket is gone (not an errno), and the proxy removes the socket and its metadata at exit. And while it
starts: its path appears only once it listens, so "gone" is never said of a session that is starting."""

from __future__ import annotations

import os
import signal
import socket
import stat
import subprocess
import time
from pathlib import Path

import pytest

from rpcspy.pump.observers.control import start_control
from rpcspy.pump.observers.control_client import ControlClient, ControlGone
from tests.pump.control_support import FakeSession
from tests.pump.proxyrun import RPCSPY, fake, spawn
from tests.pump.test_stalled_observers import _wait_for_observer_tree

GONE = b"control socket is gone: nothing listens on"


def _rpcspy(*args: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([*RPCSPY, *args], capture_output=True, timeout=60, stdin=subprocess.DEVNULL)


def _wait_for(path: Path) -> None:
    deadline = time.monotonic() + 60
    while not path.exists():
        assert time.monotonic() < deadline, f"{path} never appeared"
        time.sleep(0.01)


def test_a_killed_observer_process_leaves_no_socket_and_clients_say_it_is_gone(tmp_path: Path, rundir: Path) -> None:
    proc = spawn(tmp_path / "r.jsonl", fake("echo"))
    try:
        sock, meta = rundir / f"{proc.pid}.sock", rundir / f"{proc.pid}.json"
        _wait_for(meta)
        os.kill(_wait_for_observer_tree(proc.pid)[0], signal.SIGKILL)
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write(b'{"type":"get_state"}\n')
        proc.stdin.flush()
        assert proc.stdout.readline() == b'{"type":"get_state"}\n'  # the session forwards on

        why = _rpcspy("why", str(proc.pid))
        assert why.returncode == 2 and GONE in why.stderr and b"Errno" not in why.stderr, why.stderr
        assert f"session {proc.pid}'s control socket is gone".encode() in why.stderr
        inject = _rpcspy("inject", str(proc.pid), "--once", '{"type":"get_state"}')
        assert inject.returncode == 1 and GONE in inject.stderr and b"Errno" not in inject.stderr, inject.stderr
        watch = _rpcspy("watch", str(proc.pid))
        assert watch.returncode == 1 and GONE in watch.stderr, watch.stderr
        sessions = _rpcspy("sessions")
        assert sessions.returncode == 0 and b"control gone" in sessions.stdout, sessions.stdout
        assert sock.exists() and meta.exists()  # while the proxy runs: so that clients can say the above

        proc.stdin.close()
        assert proc.wait(60) == 0
        proc.stdout.read()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert not sock.exists() and not meta.exists()  # the proxy removed what its observer process could not


def test_a_removed_socket_file_is_named_gone(tmp_path: Path) -> None:
    path = tmp_path / "4242.sock"
    try:
        ControlClient(str(path), timeout=1)
    except ControlGone as exc:
        assert str(exc) == f"session 4242's control socket is gone: {path} does not exist (the session ended, " \
                           "or runs with --no-control)"
    else:
        raise AssertionError("connected to nothing")


def test_the_proxy_removes_its_registration_even_if_the_server_is_stopped_at_exit(tmp_path: Path,
                                                                                  rundir: Path) -> None:
    """A SIGSTOPped observer process is ended by the proxy at exit: it never removes its files; the proxy does."""
    proc = spawn(tmp_path / "r.jsonl", fake("echo"))
    try:
        _wait_for(rundir / f"{proc.pid}.json")
        os.kill(_wait_for_observer_tree(proc.pid)[0], signal.SIGSTOP)
        assert proc.stdin is not None
        proc.stdin.close()
        assert proc.wait(60) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert sorted(p.name for p in rundir.iterdir()) == []



def test_the_socket_path_appears_only_once_it_listens(rundir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A client that finds the socket can connect: it is bound beside its path and renamed there after
    listen(), so a client never takes a session that is starting for one whose control socket is gone."""
    seen: list[bool] = []
    real_listen = socket.socket.listen

    def listen(self: socket.socket, backlog: int) -> None:
        seen.append(os.path.exists(rundir / f"{os.getpid()}.sock"))
        real_listen(self, backlog)

    monkeypatch.setattr(socket.socket, "listen", listen)
    (rundir).mkdir(mode=0o700)
    (rundir / f"{os.getpid()}.new").write_bytes(b"")  # a leftover of a process that had our pid
    server = start_control(FakeSession())
    try:
        assert seen == [False]
        assert sorted(p.name for p in rundir.iterdir()) == [f"{os.getpid()}.json", f"{os.getpid()}.sock"]
        assert stat.S_IMODE(os.stat(rundir / f"{os.getpid()}.sock").st_mode) == 0o600
        with ControlClient(str(rundir / f"{os.getpid()}.sock")) as client:
            assert client.info()["ok"] is True
    finally:
        server.close()
    assert list(rundir.iterdir()) == []


def test_unregister_also_removes_a_metadata_file_cut_short(tmp_path: Path) -> None:
    """The observer process rewrites its metadata (NAME.PID.tmp, then a rename) when the agent's pid is known:
    stopped or killed in between, it leaves the temporary file, which the proxy removes with the rest."""
    from rpcspy.pump.observers.control import meta_path, unregister

    directory = tmp_path / "rpcspy"
    directory.mkdir(mode=0o700)
    meta = Path(meta_path(str(directory), 4242))
    meta.write_text("{}")
    Path(f"{meta}.4243.tmp").write_text("{")
    (directory / "4243.json").write_text("{}")  # another proxy's: kept
    unregister(4242, str(directory))
    assert sorted(p.name for p in directory.iterdir()) == ["4243.json"]
