"""pytest plugin (entry point ``pytest11``): recordings as fake agents in client tests.

* Fixture ``rpcspy_replay``: a factory ``rpcspy_replay(recording, **options) -> list[str]``
  returning the command line that starts ``rpcspy replay`` on that recording; the
  test spawns it wherever its client expects an agent. Each replay keeps a JSON
  divergence report up to date in a temporary file the factory remembers.
* Marker ``@pytest.mark.rpcspy_strict``: the test fails when any replay it started
  diverged (a live command with no recorded match, a dialog left unanswered past
  its timeout); ``rpcspy_strict(unconsumed=True)`` also fails it when a replay that
  has exited left recorded commands unused.
* Fixture ``rpcspy_scenario`` (torture kit): a test using it runs once per bundled scenario
  (``@pytest.mark.rpcspy_scenarios(["u2028", ...])`` picks some); ``rpcspy_scenario.argv``
  starts ``rpcspy replay --scenario NAME``, ``.faults()`` lists what was injected.

Importing this module is cheap: nothing of rpcspy is imported until a test asks.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import pytest

MARKER = "rpcspy_strict"


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        f"{MARKER}(unconsumed=False): fail the test when an rpcspy replay agent it started (fixture rpcspy_replay) "
        "diverged from its recording; unconsumed=True also fails on recorded commands left unused",
    )
    _configure_scenarios(config)


class ReplayFactory:
    """Builds replay command lines and reads back their reports."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.reports: list[Path] = []

    def __call__(
        self,
        recording: str | os.PathLike[str],
        *,
        match: str | None = None,
        speed: float = 0.0,
        strict: bool = False,
        reuse: bool = False,
        redact: Iterable[str] = (),
        usage: bool = False,
        record: str | os.PathLike[str] | None = None,
        no_stderr: bool = False,
        python: str | None = None,
    ) -> list[str]:
        """The argv of a replay agent for ``recording`` (``speed`` 0: as fast as possible)."""
        report = self.directory / f"replay-{len(self.reports) + 1}.json"
        self.reports.append(report)
        argv = [python or sys.executable, "-m", "rpcspy", "replay", "--speed", repr(float(speed)),
                "--report", str(report)]
        if match:
            argv += ["--match", match]
        if strict:
            argv.append("--strict")
        if reuse:
            argv.append("--reuse")
        if usage:
            argv.append("--usage")
        if no_stderr:
            argv.append("--no-stderr")
        for pattern in redact:
            argv += ["--redact", pattern]
        if record is not None:
            argv += ["-o", os.fspath(record)]
        argv.append(os.fspath(recording))
        return argv

    def results(self) -> Iterator[tuple[Path, dict[str, Any]]]:
        """Each replay's report as written so far (replays that never started are skipped)."""
        for path in self.reports:
            try:
                yield path, json.loads(path.read_text())
            except (OSError, ValueError):
                continue

    def problems(self, *, unconsumed: bool = False) -> list[str]:
        """One line per divergence (and per unused recorded command if asked)."""
        out: list[str] = []
        for _path, rep in self.results():
            rec = rep.get("recording", "?")
            for d in rep.get("divergences", []):
                out.append(f"{rec}: live line {d.get('line')} {d.get('command')}: {d.get('message')}")
            if unconsumed and rep.get("final"):
                for u in rep.get("unconsumed", []):
                    ident = f" id {json.dumps(u['id'])}" if "id" in u else ""
                    out.append(f"{rec}: recorded seq {u.get('seq')} ({u.get('command')}{ident}) was never requested")
        return out


@pytest.fixture
def rpcspy_replay(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> ReplayFactory:
    """Factory ``(recording, **options) -> argv`` of a fake agent replaying ``recording``."""
    factory = ReplayFactory(tmp_path_factory.mktemp("rpcspy-replay"))
    request.node.stash[_FACTORY] = factory
    return factory


_FACTORY = pytest.StashKey[ReplayFactory]()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Any:
    result = yield
    marker = item.get_closest_marker(MARKER)
    factory = item.stash.get(_FACTORY, None)
    if marker is not None and factory is not None:
        problems = factory.problems(unconsumed=bool(marker.kwargs.get("unconsumed", False)))
        if problems:
            pytest.fail("rpcspy replay diverged from the recording:\n  " + "\n  ".join(problems), pytrace=False)
    return result


# -- torture kit: one run of a client test per bundled scenario ---------------------------------
SCENARIOS_MARKER = "rpcspy_scenarios"


def _configure_scenarios(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        f"{SCENARIOS_MARKER}(names=None): run the test once per bundled torture scenario (fixture rpcspy_scenario); "
        "names restricts it to some (rpcspy replay --scenario list)",
    )


class ScenarioRun:
    """One scenario for one test: ``argv`` starts ``rpcspy replay --scenario NAME``; ``report()``
    reads its report (divergences and every injected fault) once the replay has run."""

    def __init__(self, name: str, argv: list[str], report_path: Path, catches: str) -> None:
        self.name = name
        self.argv = argv
        self.report_path = report_path
        self.catches = catches

    def report(self) -> dict[str, Any]:
        try:
            return json.loads(self.report_path.read_text())
        except (OSError, ValueError):
            return {}

    def faults(self) -> list[dict[str, Any]]:
        return list(self.report().get("faults", []))


def _scenario_names(metafunc: pytest.Metafunc) -> list[str]:
    from rpcspy.replay.scenarios import BY_NAME, SCENARIOS

    marker = metafunc.definition.get_closest_marker(SCENARIOS_MARKER)
    names = list(marker.args[0]) if marker is not None and marker.args else [s.name for s in SCENARIOS]
    unknown = [n for n in names if n not in BY_NAME]
    if unknown:
        raise pytest.UsageError(f"{SCENARIOS_MARKER}: unknown scenario(s) {', '.join(unknown)}; known: {', '.join(BY_NAME)}")
    return names


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "rpcspy_scenario" in metafunc.fixturenames:
        names = _scenario_names(metafunc)
        metafunc.parametrize("rpcspy_scenario", names, indirect=True, ids=names)


@pytest.fixture
def rpcspy_scenario(request: pytest.FixtureRequest, rpcspy_replay: ReplayFactory) -> ScenarioRun:
    """A :class:`ScenarioRun` per bundled scenario (``@pytest.mark.rpcspy_scenarios([NAMES])`` picks some).

    The test runs once per scenario; failing ones name the scenario in their id, and
    ``rpcspy_scenario.faults()`` says which faults the client was given."""
    from rpcspy.replay.scenarios import BY_NAME

    name = getattr(request, "param", None) or "clean"
    factory = rpcspy_replay
    report = factory.directory / f"scenario-{name}-{len(factory.reports) + 1}.json"
    factory.reports.append(report)
    argv = [sys.executable, "-m", "rpcspy", "replay", "--speed", "0", "--no-stderr", "--report", str(report),
            "--scenario", name]
    return ScenarioRun(name, argv, report, BY_NAME[name].catches)
