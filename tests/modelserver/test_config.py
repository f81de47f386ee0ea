"""Temporary agent homes: config files and the environment the agents run with."""

from __future__ import annotations

import json
from pathlib import Path

from rpcspy.modelserver.config import agent_args, agent_env, make_home, snippet


def test_make_home_declares_the_fake_provider_for_pi_and_omp(tmp_path: Path) -> None:
    home = make_home(tmp_path / "h", "http://127.0.0.1:1234/v1")
    pi = json.loads((home / ".pi/agent/models.json").read_text())
    omp = json.loads((home / ".omp/agent/models.yml").read_text())  # JSON is YAML
    assert pi == omp
    fake = pi["providers"]["fake"]
    assert (fake["api"], fake["baseUrl"]) == ("openai-completions", "http://127.0.0.1:1234/v1")
    assert {m["id"]: m["reasoning"] for m in fake["models"]} == {"fake-model": False, "fake-reasoner": True}
    settings = json.loads((home / ".pi/agent/settings.json").read_text())
    assert settings["retry"]["baseDelayMs"] == 300 and settings["retry"]["provider"]["maxRetries"] == 0
    assert (home / "project").is_dir()


def test_agent_env_isolates_the_agent(tmp_path: Path) -> None:
    base = {"PATH": "/bin", "PI_CODING_AGENT_DIR": "/real", "OPENAI_API_KEY": "sk", "XDG_CONFIG_HOME": "/x", "LANG": "C"}
    env = agent_env(tmp_path, base)
    assert env == {"PATH": "/bin", "LANG": "C", "HOME": str(tmp_path), "PWD": str(tmp_path / "project"), "NO_COLOR": "1"}
    assert agent_args("omp") == ["--mode", "rpc", "--no-session", "--provider", "fake", "--model", "fake-model"]


def test_snippets_name_the_file_the_command_and_the_url() -> None:
    pi, omp = snippet("pi", "http://127.0.0.1:9/v1"), snippet("omp", "http://127.0.0.1:9/v1")
    assert pi.startswith("# ~/.pi/agent/models.json; then: pi --mode rpc --no-session --provider fake")
    assert omp.startswith("# ~/.omp/agent/models.yml (JSON is valid YAML); then: omp --mode rpc")
    body = json.loads(pi.split("\n", 1)[1])
    assert body["providers"]["fake"]["baseUrl"] == "http://127.0.0.1:9/v1"
    assert pi.split("\n", 1)[1] == omp.split("\n", 1)[1]
