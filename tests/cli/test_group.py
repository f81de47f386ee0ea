"""The top-level group: a typo is a usage error, not an agent to start; `--` and run options still proxy."""

import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from rpcspy.cli import main
from tests.paths import REPO


def rpcspy(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(REPO), "RPCSPY_DIR": "recordings"}
    return subprocess.run([sys.executable, "-m", "rpcspy", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=60, stdin=subprocess.DEVNULL, env=env)


@pytest.mark.parametrize("args, hint", [
    (["shwo", "s.jsonl"], "did you mean 'show'"),
    (["replya", "s.jsonl"], "did you mean 'replay'"),
    (["--speed", "0", "--", "true"], "No such option '--speed'"),
    (["-V"], "did you mean --version"),
    (["version"], "did you mean `rpcspy --version`?"),
    (["compat", "--help"], "did you mean `rpcspy diff --compat OLD NEW`?"),
    (["xyzzy-not-a-command", "--help"], "no such command: 'xyzzy-not-a-command' (`rpcspy --help` lists them)"),
])
def test_a_typo_is_a_usage_error_and_records_nothing(tmp_path: Path, args: list[str], hint: str) -> None:
    done = rpcspy(tmp_path, *args)
    assert done.returncode == 2, done.stderr
    assert hint in done.stderr
    assert not (tmp_path / "recordings").exists()


def test_the_typo_error_says_how_to_proxy_an_agent_of_that_name() -> None:
    r = CliRunner().invoke(main, ["shwo", "s.jsonl"])
    assert r.exit_code == 2 and "rpcspy -- shwo" in r.output


def test_agents_still_start_with_and_without_the_separator(tmp_path: Path) -> None:
    quiet = ["--no-check", "--no-control"]
    assert rpcspy(tmp_path, *quiet, "--", sys.executable, "-c", "raise SystemExit(3)").returncode == 3
    assert rpcspy(tmp_path, *quiet, "-o", "s.jsonl", "--", "true").returncode == 0
    assert (tmp_path / "s.jsonl").is_file()
    # a word on PATH that resembles no command, or a path, is the agent even without `--`
    assert rpcspy(tmp_path, *quiet, "--no-record", "sh", "-c", "exit 4").returncode == 4
    assert rpcspy(tmp_path, *quiet, "--no-record", sys.executable, "-c", "pass").returncode == 0
    # the agent's own options after its name are its own, not rpcspy's
    assert rpcspy(tmp_path, *quiet, "--no-record", "sh", "-c", "exit 5", "--speed").returncode == 5


def complete(words: str) -> str:
    env = {"_RPCSPY_COMPLETE": "bash_complete", "COMP_WORDS": words, "COMP_CWORD": str(len(words.split()) - 1)}
    r = CliRunner().invoke(main, [], prog_name="rpcspy", env=env)
    assert r.exit_code == 0, (r.output, r.exception)
    return r.output


def test_shell_completion_offers_commands_and_survives_a_typo() -> None:
    """The README's completion set-up: `_RPCSPY_COMPLETE=bash_complete` answers; a typo is no traceback."""
    assert "plain,show" in complete("rpcspy sho").splitlines()
    assert "plain,--frames" in complete("rpcspy show --fr").splitlines()
    assert complete("rpcspy shwo x").strip() == ""
    assert complete("rpcspy -V x").strip() == ""


def test_readme_shows_the_completion_set_up() -> None:
    text = (REPO / "README.md").read_text()
    for shell in ("bash", "zsh", "fish"):
        assert f"_RPCSPY_COMPLETE={shell}_source rpcspy" in text
