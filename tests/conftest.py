"""Shared fixtures: the fake model server, temporary agent homes, the real agents.

Tests that use ``agent``/``pi_agent`` get the ``agents`` marker automatically and run
once per agent. Agents are installed from npm on first use (into ``.cache/agents/``);
if that fails the tests FAIL, unless ``RPCSPY_SKIP_AGENTS=1`` turns it into a skip.
"""

from __future__ import annotations

import atexit
import os
import shutil
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

# No per-example time limits: the suite runs on shared 2-core machines, where a
# 200 ms deadline fails for reasons that have nothing to do with the code.
settings.register_profile("rpcspy", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "rpcspy"))

# Proxies started by tests offer their control socket in a runtime directory of this test session,
# never in the user's own (so `rpcspy sessions` outside the suite does not list them).
USER_RUNTIME_DIR = os.environ.get("XDG_RUNTIME_DIR")
os.environ["XDG_RUNTIME_DIR"] = tempfile.mkdtemp(prefix="rpcspy-tests-run-")
atexit.register(shutil.rmtree, os.environ["XDG_RUNTIME_DIR"], True)

_ROOT = Path(__file__).resolve().parents[1]
if str(_ROOT) not in sys.path:
    sys.path.insert(0, str(_ROOT))
# Subprocesses (`python -m rpcspy`, the pytest plugin's replay agents) import this checkout's rpcspy,
# not whichever one pip installed last (an editable install of another worktree, an older wheel).
os.environ["PYTHONPATH"] = os.pathsep.join(p for p in (str(_ROOT), os.environ.get("PYTHONPATH", "")) if p)

from tests.support.agents import ALL_AGENTS, AgentInstallError, AgentSpec, ensure_agent  # noqa: E402
from tests.support.driver import AgentProcess  # noqa: E402
from tests.support.fake_llm import FakeLLM  # noqa: E402
from tests.support.homes import agent_args, agent_env, make_home  # noqa: E402

PI_AGENTS = tuple(name for name in ALL_AGENTS if name.startswith("pi-"))
_AGENT_FIXTURES = {"agent", "pi_agent", "agent_spec"}


@dataclass(frozen=True)
class RunnableAgent:
    """An installed agent wired to a fake-model HOME: ``spawn()`` starts it in RPC mode."""

    spec: AgentSpec
    argv: list[str]
    env: dict[str, str]
    home: Path
    cwd: Path

    @property
    def name(self) -> str:
        return self.spec.name

    @property
    def dialect(self) -> str:
        return self.spec.dialect

    def spawn(self, prefix: list[str] | None = None) -> AgentProcess:
        """Start the agent; ``prefix`` (e.g. ``[python, -m, rpcspy, --]``) goes in front."""
        return AgentProcess([*(prefix or []), *self.argv], env=self.env, cwd=self.cwd)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if _AGENT_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.agents)


@pytest.fixture(scope="session")
def _agent_specs() -> dict[str, AgentSpec | str]:
    """Per-session cache: agent name -> spec, or the install error text."""
    return {}


def _installed(name: str, cache: dict[str, AgentSpec | str]) -> AgentSpec:
    if name not in cache:
        try:
            cache[name] = ensure_agent(name, log=lambda m: print(m, file=sys.stderr))
        except AgentInstallError as exc:
            cache[name] = str(exc)
    spec = cache[name]
    if isinstance(spec, str):
        if os.environ.get("RPCSPY_SKIP_AGENTS") == "1":
            pytest.skip(f"agent {name} unavailable (RPCSPY_SKIP_AGENTS=1): {spec}")
        pytest.fail(f"agent {name} could not be installed (set RPCSPY_SKIP_AGENTS=1 to skip):\n{spec}")
    return spec


@pytest.fixture
def fake_llm() -> Iterator[FakeLLM]:
    """A running scripted OpenAI-compatible server on 127.0.0.1 (fresh per test)."""
    with FakeLLM() as server:
        yield server


@pytest.fixture
def agent_home(fake_llm: FakeLLM, tmp_path: Path) -> Path:
    """A temporary HOME whose pi/omp config points provider ``fake`` at ``fake_llm``."""
    return make_home(tmp_path / "home", fake_llm.base_url)


def _runnable(spec: AgentSpec, home: Path) -> RunnableAgent:
    argv = [*spec.argv_prefix, *agent_args(spec.dialect)]
    env = agent_env(home, spec.environ())
    return RunnableAgent(spec=spec, argv=argv, env=env, home=home, cwd=home / "project")


@pytest.fixture(params=ALL_AGENTS)
def agent_spec(request: pytest.FixtureRequest, _agent_specs: dict[str, AgentSpec | str]) -> AgentSpec:
    """The installed agent (each of ALL_AGENTS), without a HOME."""
    return _installed(request.param, _agent_specs)


@pytest.fixture(params=ALL_AGENTS)
def agent(
    request: pytest.FixtureRequest, _agent_specs: dict[str, AgentSpec | str], agent_home: Path
) -> RunnableAgent:
    """Each of pi 0.73.1, pi 0.87.1, pi 1.5.2, pi 1.6.0 and omp 18.2.3, ready to spawn against ``fake_llm``."""
    return _runnable(_installed(request.param, _agent_specs), agent_home)


@pytest.fixture(params=PI_AGENTS)
def pi_agent(
    request: pytest.FixtureRequest, _agent_specs: dict[str, AgentSpec | str], agent_home: Path
) -> RunnableAgent:
    """Each pi version (not omp), ready to spawn against ``fake_llm``."""
    return _runnable(_installed(request.param, _agent_specs), agent_home)
