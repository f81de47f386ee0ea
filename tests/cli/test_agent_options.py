"""drive, conform and replay --client start agents: a misspelt rpcspy option is refused, never handed to the agent.

They keep click's interspersed parsing (unlike run and repl, AGENT_COMMAND_SETTINGS): drive and replay take a
file before the agent, which that setting would turn into the agent's first word. So an option they do not know,
before or after the agent's name, is a usage error unless it comes after ``--``.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from rpcspy.cli import main
from tests.paths import DATA

REC = str(DATA / "transcripts" / "structured" / "01_basic_text_prompt.jsonl")
AGENT = [sys.executable, "-c", "open('started', 'w')"]


@pytest.mark.parametrize(("args", "typo", "hint"), [
    (["drive", "steps.jsonl", "-o", "d.jsonl", "--timout", "5", "--", *AGENT], "--timout", "--timeout"),
    (["drive", "steps.jsonl", "-o", "d.jsonl", *AGENT[:1], "--qiet"], "--qiet", "--quiet"),
    (["conform", "--no-modle", "--", *AGENT], "--no-modle", "--no-model"),
    (["conform", *AGENT[:1], "--no-modle"], "--no-modle", "--no-model"),
    (["replay", "--client", REC, "--sped", "0", "-o", "r.jsonl", "--", *AGENT], "--sped", "--speed"),
    (["replay", "--client", REC, "-o", "r.jsonl", *AGENT[:1], "--sped", "0"], "--sped", "--speed"),
])
def test_a_misspelt_option_is_refused_before_the_agent_starts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                             args: list[str], typo: str, hint: str) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "steps.jsonl").write_text('{"id":"a","type":"get_state"}\n')
    res = CliRunner().invoke(main, args)
    assert res.exit_code == 2, res.output
    assert f"No such option '{typo}'" in res.output and hint in res.output
    assert sorted(p.name for p in tmp_path.iterdir()) == ["steps.jsonl"]  # nothing started, nothing recorded


def test_after_the_double_dash_the_same_word_is_the_agents(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The refusal above is about place, not spelling: after ``--`` the agent gets it (and starts)."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "steps.jsonl").write_text('{"id":"a","type":"get_state","rpcspy":{"wait":"none"}}\n')
    agent = [sys.executable, "-c", "import sys; open('started', 'w').write(' '.join(sys.argv[1:]))", "--timout"]
    res = CliRunner().invoke(main, ["drive", "steps.jsonl", "-o", "d.jsonl", "-q", "--", *agent])
    assert (tmp_path / "started").read_text() == "--timout", res.output
