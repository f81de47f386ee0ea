"""The declared session type: both sessions observers get offer its facts, read by name.

mypy (scripts/lint) checks that ProxySession and ChildSession satisfy rpcspy.pump.forward.session.Session
where they are handed to observers; these tests check the values the control server reads.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from rpcspy.pump.forward.observer_process import ChildSession
from rpcspy.pump.observers.control import start_control
from rpcspy.pump.proxy import ProxyConfig, ProxySession


@pytest.fixture(autouse=True)
def rundir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path))
    return tmp_path / "rpcspy"


def test_the_in_process_session_offers_its_configs_facts() -> None:
    session = ProxySession(ProxyConfig(argv=("pi", "--mode", "rpc"), record_path="r.jsonl", mode="drive"))
    assert session.argv == ["pi", "--mode", "rpc"] and session.record_path == "r.jsonl"
    assert session.mode == "drive" and session.proxy_pid == os.getpid() and session.started > 0
    srv = start_control(session)
    try:
        meta = srv.metadata()
    finally:
        srv.close()
    assert meta["mode"] == "drive" and meta["argv"] == ["pi", "--mode", "rpc"] and meta["pid"] == os.getpid()
    assert meta["started_unix"] == session.started and meta["record_path"] == os.path.abspath("r.jsonl")


def test_the_observer_process_session_carries_the_proxys_start_and_mode() -> None:
    child = ChildSession(-1, ["omp", "--mode", "rpc"], None, "proxy", os.getpid(), 1_700_000_000.5)
    srv = start_control(child)
    try:
        meta = srv.metadata()
    finally:
        srv.close()
    assert meta["started_unix"] == 1_700_000_000.5  # the proxy's start, not the control server's
    assert meta["mode"] == "proxy" and meta["record_path"] is None and meta["argv"] == ["omp", "--mode", "rpc"]


def test_the_proxy_hands_its_start_and_mode_to_the_observer_process(monkeypatch: pytest.MonkeyPatch) -> None:
    import rpcspy.pump.forward.observer_process as op

    seen: list[ChildSession] = []

    def fake_fork(make_observers, session, **_kw):  # noqa: ANN001, ANN202
        seen.append(session)
        raise RuntimeError("stop here")

    monkeypatch.setattr(op, "fork_observers", fake_fork)
    session = ProxySession(ProxyConfig(argv=["pi"], record_path=None, observer_process=True, mode="proxy"))
    with pytest.raises(RuntimeError, match="stop here"):
        session._start_observers()
    assert seen[0].started == session.started and seen[0].mode == "proxy" and seen[0].proxy_pid == os.getpid()
