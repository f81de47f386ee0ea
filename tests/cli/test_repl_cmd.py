"""``rpcspy repl``: usage errors (the interactive behaviour is in tests/interactive/)."""

from __future__ import annotations

import subprocess

from tests.cli.proxied import RPCSPY


def test_needs_a_terminal() -> None:
    r = subprocess.run([*RPCSPY, "repl", "--", "cat"], check=False, capture_output=True, text=True, timeout=60, stdin=subprocess.PIPE)
    assert r.returncode == 2 and "rpcspy repl needs a terminal" in r.stderr


def test_needs_an_agent() -> None:
    r = subprocess.run([*RPCSPY, "repl"], check=False, capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and "AGENT_CMD" in r.stderr


def test_help_shows_the_syntax() -> None:
    r = subprocess.run([*RPCSPY, "repl", "--help"], check=False, capture_output=True, text=True, timeout=60)
    assert r.returncode == 0
    assert "set_model anthropic claude-sonnet-4" in r.stdout and "--dialect" in r.stdout
