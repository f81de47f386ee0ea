"""``rpcspy repl``: usage errors (the interactive behaviour is in tests/interactive/)."""

from __future__ import annotations

import subprocess

from tests.cli.proxied import RPCSPY


def test_needs_a_terminal() -> None:
    r = subprocess.run([*RPCSPY, "repl", "--", "cat"], check=False, capture_output=True, text=True, timeout=60, stdin=subprocess.PIPE)
    assert r.returncode == 2 and "rpcspy repl needs a terminal" in r.stderr
    hint = " ".join(r.stderr.split())  # the recipe that works (drive), not the one that cuts the run off
    assert "use `rpcspy drive STEPS.jsonl -o REC -- AGENT_CMD`" in hint and "write JSON lines" not in hint


def test_needs_an_agent() -> None:
    r = subprocess.run([*RPCSPY, "repl"], check=False, capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and "AGENT_CMD" in r.stderr


def test_help_shows_the_syntax() -> None:
    r = subprocess.run([*RPCSPY, "repl", "--help"], check=False, capture_output=True, text=True, timeout=60)
    assert r.returncode == 0
    assert "set_model anthropic claude-sonnet-4" in r.stdout and "--dialect" in r.stdout


def test_a_misspelt_option_is_refused_not_passed_to_the_agent(tmp_path) -> None:  # noqa: ANN001
    """Like run (the same click settings): refused before anything starts, whatever the terminal."""
    r = subprocess.run([*RPCSPY, "repl", "--outptu", "x.jsonl", "--", "cat"], check=False, capture_output=True,
                       text=True, timeout=60, stdin=subprocess.PIPE, cwd=tmp_path)
    assert r.returncode == 2 and "No such option '--outptu'. Did you mean '--output'?" in r.stderr
    assert "needs a terminal" not in r.stderr and list(tmp_path.iterdir()) == []


def test_the_agents_own_options_after_its_name_are_its_own() -> None:
    r = subprocess.run([*RPCSPY, "repl", "--no-record", "cat", "--outptu"], check=False, capture_output=True,
                       text=True, timeout=60, stdin=subprocess.PIPE)
    assert r.returncode == 2 and "needs a terminal" in r.stderr  # parsed: cat --outptu is the agent


def test_repl_and_run_share_the_agent_command_settings() -> None:
    from rpcspy.cli import repl_cmd, run_cmd

    assert repl_cmd.command.context_settings is run_cmd.command.context_settings is run_cmd.AGENT_COMMAND_SETTINGS
