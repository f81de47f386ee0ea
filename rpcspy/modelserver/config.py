"""Agent configuration for the scripted model server: provider snippets and temporary HOMEs.

pi reads ``~/.pi/agent/models.json`` (and ``settings.json``); omp reads
``~/.omp/agent/models.yml`` with the same provider schema. JSON is valid YAML, so the
omp file is written as JSON too (no YAML dependency). Writing files is the only I/O here.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

PROVIDER = "fake"
MODEL = "fake-model"
REASONER = "fake-reasoner"
RETRY_DELAY_MS = 300


def provider_config(base_url: str) -> dict[str, Any]:
    """The ``providers`` block declaring ``fake`` with ``fake-model`` and ``fake-reasoner``."""
    common = {
        "input": ["text", "image"],
        "contextWindow": 128000,
        "maxTokens": 4096,
        "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0},
    }
    return {
        PROVIDER: {
            "baseUrl": base_url,
            "api": "openai-completions",
            "apiKey": "fake-key",
            "compat": {"supportsDeveloperRole": False, "supportsReasoningEffort": False},
            "models": [
                {"id": MODEL, "name": "Fake", "reasoning": False, **common},
                {"id": REASONER, "name": REASONER, "reasoning": True, **common},
            ],
        }
    }


def settings() -> dict[str, Any]:
    """Agent settings that keep tests fast: short auto-retry, no provider-level retries."""
    return {
        "retry": {
            "enabled": True,
            "maxRetries": 2,
            "baseDelayMs": RETRY_DELAY_MS,
            "provider": {"maxRetries": 0},
        },
    }


def models_file(base_url: str) -> dict[str, Any]:
    """The whole content of ``models.json`` (pi) or ``models.yml`` (omp)."""
    return {"providers": provider_config(base_url)}


CONFIG_PATHS: dict[str, str] = {"pi": "~/.pi/agent/models.json", "omp": "~/.omp/agent/models.yml"}
"""Where each agent family reads its provider configuration."""


def snippet(agent: str, base_url: str) -> str:
    """A commented provider snippet for ``agent`` (``pi`` or ``omp``), ready to paste."""
    body = json.dumps(models_file(base_url), indent=2)
    note = " (JSON is valid YAML)" if agent == "omp" else ""
    run = f"{agent} --mode rpc " + " ".join(agent_args(agent)[2:])
    return f"# {CONFIG_PATHS[agent]}{note}; then: {run}\n{body}\n"


def _write(path: Path, obj: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(obj, indent=2) + "\n")


def make_home(root: Path, base_url: str) -> Path:
    """Create ``root`` as a HOME for pi and omp whose provider ``fake`` is at ``base_url``.

    Also creates ``root/project`` to use as the agent's working directory.
    """
    root.mkdir(parents=True, exist_ok=True)
    models = models_file(base_url)
    _write(root / ".pi" / "agent" / "models.json", models)
    _write(root / ".pi" / "agent" / "settings.json", settings())
    _write(root / ".omp" / "agent" / "models.yml", models)
    (root / "project").mkdir(exist_ok=True)
    return root


def agent_args(dialect: str) -> list[str]:
    """The arguments after the agent's command that start RPC mode on the fake model."""
    return ["--mode", "rpc", "--no-session", "--provider", PROVIDER, "--model", MODEL]


def agent_env(home: Path, base: dict[str, str]) -> dict[str, str]:
    """``base`` with HOME set to ``home`` and variables that could leak the real config removed."""
    env = {
        k: v
        for k, v in base.items()
        if not k.startswith(("PI_", "OMP_", "XDG_")) and not k.endswith("_API_KEY")
    }
    env.update(HOME=str(home), PWD=str(home / "project"), NO_COLOR="1")
    return env
