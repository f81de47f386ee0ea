"""Fixtures of the control server's tests: a private runtime dir (``rundir``) and a server on a fake session (``server``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from rpcspy.pump.observers.control import start_control
from tests.pump.control_support import FakeSession


@pytest.fixture
def rundir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path))
    return tmp_path / "rpcspy"


@pytest.fixture
def server(rundir: Path):
    srv = start_control(FakeSession())
    yield srv
    srv.close()
