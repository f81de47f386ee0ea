"""The demo's processes (rpcspy demo): the chain it runs and the timeline it shows."""

from __future__ import annotations

import sys
from pathlib import Path

from rpcspy.pump.commands import demo
from rpcspy.recording import open_recording
from tests.paths import REPO


def test_the_chain_is_client_then_proxy_then_fake_agent() -> None:
    argv = demo.chain_argv("d.jsonl", "r.jsonl", 0.0)
    me = [sys.executable, "-m", "rpcspy"]
    assert argv[:len(me) + 3] == [*me, "replay", "--client", "d.jsonl"]
    first, second = argv.index("--"), argv.index("--", argv.index("--") + 1)
    assert argv[first + 1:second] == [*me, "run", "-o", "r.jsonl"]
    assert argv[second + 1:] == [*me, "replay", "--speed", "0.0", "d.jsonl"]


def test_run_chain_records_the_bundled_session_and_show_prints_it(tmp_path: Path, monkeypatch, capfd) -> None:  # noqa: ANN001
    from rpcspy.cli.demo_cmd import bundled_recording

    monkeypatch.setenv("PYTHONPATH", str(REPO))
    rec = str(tmp_path / "demo.jsonl")
    done = demo.run_chain(bundled_recording(), rec, 0.0)
    assert done.returncode == 0, done.stderr.decode()
    frames = list(open_recording(rec).frames())
    assert {f.dir for f in frames} >= {"c2a", "a2c"}
    assert demo.show(rec) == 0
    assert "get_state" in capfd.readouterr().out
