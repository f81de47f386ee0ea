"""``--gap-after SECONDS``: one option shared by run, repl and drive, checked alike and handed to the session."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import click
import pytest
from click.testing import CliRunner

from rpcspy.cli import drive_cmd, repl_cmd, run_cmd
from rpcspy.pump import inprocess
from tests.cli.proxied import RPCSPY
from tests.pump.proxyrun import fake

COMMANDS = {"run": run_cmd.command, "repl": repl_cmd.command, "drive": drive_cmd.command}


def _option(command: click.Command) -> click.Option:
    (opt,) = [p for p in command.params if isinstance(p, click.Option) and "--gap-after" in p.opts]
    return opt


def test_run_repl_and_drive_share_one_option() -> None:
    options = [_option(c) for c in COMMANDS.values()]
    assert {(o.help, o.envvar, o.default, o.metavar) for o in options} == {
        (options[0].help, "RPCSPY_GAP_AFTER", 2.0, "SECONDS")}
    assert "gap note" in (options[0].help or "") and "0: never slow" in (options[0].help or "")


@pytest.mark.parametrize("name", ["repl", "drive"])
def test_a_bad_value_is_a_usage_error_from_the_option_or_the_environment(tmp_path: Path, name: str) -> None:
    steps = tmp_path / "steps.jsonl"
    steps.write_text('{"type":"get_state"}\n')
    before = [str(steps), "-o", str(tmp_path / "r.jsonl")] if name == "drive" else []
    for opts, env in (["--gap-after", "-1"], {}), ([], {"RPCSPY_GAP_AFTER": "soon"}):
        done = subprocess.run([*RPCSPY, name, *before, *opts, "--", "cat"], capture_output=True, text=True,
                              timeout=60, stdin=subprocess.PIPE, env={**os.environ, **env})
        assert done.returncode == 2 and "Invalid value for '--gap-after'" in done.stderr, done.stderr


class _Spy:
    """Records the stall time each in-process proxy is made with (and makes it as usual)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.seen: list[float | None] = []
        real = inprocess.InProcessProxy.__init__

        def init(proxy: Any, *args: Any, **kwargs: Any) -> None:
            self.seen.append(kwargs.get("gap_after"))
            real(proxy, *args, **kwargs)

        monkeypatch.setattr(inprocess.InProcessProxy, "__init__", init)


def test_drive_hands_the_stall_time_to_its_session(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    spy = _Spy(monkeypatch)
    steps = tmp_path / "steps.jsonl"
    steps.write_text('{"id":"s","type":"get_state","rpcspy":{"wait":"none"}}\n')
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path))
    monkeypatch.delenv("RPCSPY_GAP_AFTER", raising=False)
    for opts, env in (["--gap-after", "0.25"], {}), ([], {"RPCSPY_GAP_AFTER": "7.5"}), ([], {}):
        result = CliRunner().invoke(drive_cmd.command, [str(steps), "-o", str(tmp_path / "r.jsonl"), "--overwrite",
                                                        "-q", "--no-check", *opts, "--", *fake("pid")], env=env)
        assert result.exit_code == 0, result.output
    assert spy.seen == [0.25, 7.5, 2.0]


def test_repl_hands_the_stall_time_to_its_session(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import rpcspy.interactive.app

    spy = _Spy(monkeypatch)

    class App:  # the prompt itself is tested in tests/interactive; here only what it is given
        def __init__(self, backend: Any, **_: Any) -> None:
            self.backend = backend

        def run(self) -> int:
            return 0

    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    def leave(code: int) -> None:
        raise SystemExit(code)

    monkeypatch.setattr(rpcspy.interactive.app, "ReplApp", App)
    monkeypatch.setattr(sys, "stdin", Tty())
    monkeypatch.setattr(sys, "stdout", Tty())
    monkeypatch.setattr(repl_cmd.os, "_exit", leave)
    monkeypatch.delenv("RPCSPY_GAP_AFTER", raising=False)
    for opts in (["--gap-after", "0"], ["--gap-after", "30"]):
        with pytest.raises(SystemExit) as left:
            repl_cmd.command.main([*opts, "--no-record", "--no-history", "--", "cat"], standalone_mode=False)
        assert left.value.code == 0
    assert spy.seen == [0.0, 30.0]
