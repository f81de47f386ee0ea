"""``rpcspy sessions``: the table, JSON, and removal of stale registrations."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli.proxied import RPCSPY, control_env, proxied
from tests.pump.proxyrun import fake


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    return control_env(tmp_path)


def sessions(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*RPCSPY, "sessions", *args], env={**env, "COLUMNS": "200"}, check=False, capture_output=True,
                          text=True, timeout=60)


def test_live_sessions_are_listed_with_their_counts(env: dict[str, str], tmp_path: Path) -> None:
    rec = tmp_path / "listed.jsonl"
    with proxied(fake("respond"), env, rec) as proc:
        assert proc.stdin is not None
        proc.stdin.write(b'{"id":"c1","type":"get_state"}\n{"id":"c2","type":"get_state"}\n')
        proc.stdin.flush()
        subprocess.run([*RPCSPY, "inject", "--once", "get_state"], env=env, check=False, capture_output=True, timeout=60)
        (entry,) = json.loads(sessions(env, "--json").stdout)
        assert entry["pid"] == proc.pid and entry["state"] == "live" and entry["mode"] == "proxy"
        assert entry["record_path"] == str(rec) and entry["agent_pid"] > 0
        assert entry["info"]["frames"] == {"c2a": 3, "a2c": 6, "err": 0}
        assert entry["info"]["injected"] == {"c2a": 1, "a2c": 1}
        table = sessions(env).stdout.splitlines()
        assert table[0].split() == ["PID", "AGENT", "STARTED", "RECORDING", "C→A", "A→C", "INJ", "STATE"]
        row = table[1].split()
        assert row[0] == str(proc.pid) and row[1:3] == ["fake_agent", "respond"] and "listed.jsonl" in table[1]
        assert row[-4:] == ["3", "6", "2", "live"]
        proc.communicate(b"", timeout=30)
    assert "no live rpcspy sessions" in sessions(env).stdout


def test_stale_registrations_are_removed(env: dict[str, str]) -> None:
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    run = Path(env["XDG_RUNTIME_DIR"]) / "rpcspy"
    run.mkdir(mode=0o700)
    (run / f"{gone.pid}.json").write_text(json.dumps({"pid": gone.pid, "argv": ["pi"]}))
    (run / f"{gone.pid}.sock").write_text("")
    kept = sessions(env, "--no-clean", "--json")
    assert json.loads(kept.stdout)[0]["state"] == "stale" and (run / f"{gone.pid}.json").exists()
    out = sessions(env).stdout
    assert "no live rpcspy sessions (1 stale registration(s) removed)" in out
    assert list(run.iterdir()) == []
