"""pytest plugin (entry point ``pytest11``): recordings as fake agents in client tests.

* Fixture ``rpcspy_replay``: a factory ``rpcspy_replay(fixture, **options) -> list[str]``
  returning the command line of an agent for the test to spawn wherever its client
  expects one: ``rpcspy replay`` on the fixture, or, when the record mode says so, the
  real agent behind the proxy (``rpcspy run``), whose session becomes the fixture.
  A relative fixture path is resolved against the test file's directory. Each replay
  keeps a JSON divergence report up to date in a temporary file the factory remembers.
* Record modes, like VCR.py's (``--rpcspy-record`` or ini ``rpcspy_record``; default ``none``):
  ``none`` replays only and fails the test when its fixture is missing; ``once`` records
  a missing fixture and replays an existing one; ``new`` also re-records an existing
  fixture the client strayed from (the test body runs again against the real agent);
  ``all`` records every fixture again. The agent comes from ``--rpcspy-agent`` or ini
  ``rpcspy_agent`` (shell words) or the factory's ``agent=`` argument. A fixture is
  written (normalised and redacted like ``rpcspy fixture``) only when the test passes.
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
import shlex
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

MARKER = "rpcspy_strict"
MODES = ("none", "once", "new", "all")


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("rpcspy", "rpcspy replay fixtures")
    group.addoption("--rpcspy-record", choices=MODES, default=None, metavar="MODE",
                    help="none: replay fixtures, fail when one is missing (default); once: record missing ones "
                         "with the real agent; new: also re-record those the client strays from; all: record all.")
    group.addoption("--rpcspy-agent", default=None, metavar="CMD",
                    help="Agent command line to record fixtures with, e.g. 'pi --mode rpc' (overrides ini "
                         "rpcspy_agent).")
    parser.addini("rpcspy_record", "rpcspy record mode: none, once, new or all (default none)", default="none")
    parser.addini("rpcspy_agent", "agent command line (shell words) that rpcspy records fixtures with", default="")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        f"{MARKER}(unconsumed=False): fail the test when an rpcspy replay agent it started (fixture rpcspy_replay) "
        "diverged from its recording; unconsumed=True also fails on recorded commands left unused",
    )
    _configure_scenarios(config)


@dataclass
class _Recording:
    """A session recorded through the proxy, to become ``fixture`` once the test has passed."""

    raw: Path
    fixture: Path
    usage: bool
    redact: tuple[str, ...]


class ReplayFactory:
    """Builds replay (or recording) command lines and reads back their reports."""

    def __init__(self, directory: Path, *, base: Path | None = None, mode: str = "none",
                 agent: Iterable[str] = ()) -> None:
        self.directory = directory
        self.base = base or Path.cwd()
        """Relative fixture paths are resolved against it: the test file's directory."""
        self.mode = mode
        self.agent = list(agent)
        self.reports: list[Path] = []
        self.replayed: dict[Path, Path] = {}
        """Report -> the fixture it replays."""
        self.recordings: list[_Recording] = []
        self.rerecord: set[Path] = set()
        """Fixtures that ``new`` records again on the second run of the test body."""

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
        agent: Iterable[str] | None = None,
    ) -> list[str]:
        """The argv of an agent for ``recording`` (``speed`` 0: as fast as possible)."""
        fixture = self.resolve(recording)
        if self._records(fixture):
            return self._record_argv(fixture, list(agent or self.agent), usage, tuple(redact), python)
        if not fixture.is_file():
            pytest.fail(self._missing(fixture), pytrace=False)
        report = self.directory / f"replay-{len(self.reports) + 1}.json"
        self.reports.append(report)
        self.replayed[report] = fixture
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
        argv.append(str(fixture))
        return argv

    def resolve(self, recording: str | os.PathLike[str]) -> Path:
        path = Path(os.fspath(recording)).expanduser()
        return path if path.is_absolute() else self.base / path

    def _records(self, fixture: Path) -> bool:
        if fixture in self.rerecord or self.mode == "all":
            return True
        return self.mode in ("once", "new") and not fixture.exists()

    def _missing(self, fixture: Path) -> str:
        how = ("record it with --rpcspy-record=once and an agent (--rpcspy-agent CMD or ini rpcspy_agent)"
               if self.mode == "none" else "")
        return (f"rpcspy fixture {fixture} does not exist (relative paths are resolved against the test "
                f"file's directory, {self.base}); {how}").rstrip("; ")

    def _record_argv(self, fixture: Path, agent: list[str], usage: bool, redact: tuple[str, ...],
                     python: str | None) -> list[str]:
        if not agent:
            pytest.fail(f"rpcspy: record mode {self.mode!r} needs the agent to record {fixture} with: "
                        "--rpcspy-agent CMD, ini rpcspy_agent, or rpcspy_replay(..., agent=[...])", pytrace=False)
        raw = self.directory / f"record-{len(self.recordings) + 1}.jsonl"
        self.recordings.append(_Recording(raw, fixture, usage, redact))
        return [python or sys.executable, "-m", "rpcspy", "run", "-o", str(raw), "--no-control", "--", *agent]

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

    def diverged(self) -> set[Path]:
        """Fixtures whose replay met a live command it had no match for."""
        return {self.replayed[path] for path, rep in self.results() if rep.get("divergences")}

    def again(self, rerecord: set[Path]) -> None:
        """Forget this run's agents: the test body runs again, recording ``rerecord``."""
        self.reports.clear()
        self.replayed.clear()
        self.recordings.clear()
        self.rerecord = rerecord

    def write_fixtures(self) -> list[str]:
        """Turn each recorded session into its fixture; one line per fixture written."""
        from rpcspy.normalise.fixture import fixture_lines, known_secrets
        from rpcspy.normalise.normaliser import NormaliseOptions
        from rpcspy.recording import open_recording

        done = []
        for r in self.recordings:
            rec = open_recording(r.raw)
            options = NormaliseOptions(usage=r.usage, redact=r.redact, secrets=True)  # as `rpcspy fixture`
            known = known_secrets(rec.header, rec.entries(), options)
            lines = list(fixture_lines(rec.header, rec.entries(), options, source=r.fixture.name, known=known))
            r.fixture.parent.mkdir(parents=True, exist_ok=True)
            tmp = r.fixture.with_name(f"{r.fixture.name}.{os.getpid()}.tmp")
            tmp.write_bytes(b"".join(lines))
            os.replace(tmp, r.fixture)
            done.append(f"recorded {r.fixture} ({len(lines)} lines)")
        return done


def _mode(config: pytest.Config) -> str:
    mode = config.getoption("rpcspy_record") or config.getini("rpcspy_record") or "none"
    if mode not in MODES:
        raise pytest.UsageError(f"rpcspy_record = {mode!r}: one of {', '.join(MODES)}")
    return str(mode)


@pytest.fixture
def rpcspy_replay(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> ReplayFactory:
    """Factory ``(fixture, **options) -> argv`` of a fake agent replaying ``fixture`` (or recording it)."""
    config = request.config
    agent = config.getoption("rpcspy_agent") or config.getini("rpcspy_agent")
    factory = ReplayFactory(tmp_path_factory.mktemp("rpcspy-replay"), base=Path(request.path).parent,
                            mode=_mode(config), agent=shlex.split(agent) if agent else ())
    request.node.stash[_FACTORY] = factory
    return factory


_FACTORY = pytest.StashKey[ReplayFactory]()
_WRITTEN = pytest.StashKey[list[str]]()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Any:
    failure: BaseException | None = None
    try:
        result = yield
    except BaseException as exc:  # noqa: BLE001 - re-raised below, after a possible re-recording
        failure, result = exc, None
    factory = item.stash.get(_FACTORY, None)
    if factory is not None and factory.mode == "new" and factory.diverged():
        factory.again(factory.diverged())  # the client strayed from these fixtures: record them anew
        failure = None
        item.runtest()
    marker = item.get_closest_marker(MARKER)
    if failure is not None:
        if factory is not None and factory.recordings:
            kept = ", ".join(str(r.raw) for r in factory.recordings)
            item.add_report_section("call", "rpcspy", f"the test failed: no fixture written (sessions kept: {kept})")
        problems = factory.problems() if factory is not None else []
        if problems and not isinstance(failure, (KeyboardInterrupt, SystemExit)):
            # a client waiting for a run the replay never started fails with a timeout: name the cause
            text = "rpcspy replay diverged from the recording:\n  " + "\n  ".join(problems)
            if marker is None:
                item.add_report_section("call", "rpcspy", text)
                raise failure
            pytest.fail(f"{text}\n(then the test failed: {type(failure).__name__}: {failure})", pytrace=False)
        raise failure
    if factory is not None:
        item.config.stash.setdefault(_WRITTEN, []).extend(factory.write_fixtures())
        if marker is not None:
            problems = factory.problems(unconsumed=bool(marker.kwargs.get("unconsumed", False)))
            if problems:
                pytest.fail("rpcspy replay diverged from the recording:\n  " + "\n  ".join(problems), pytrace=False)
    return result


def pytest_terminal_summary(terminalreporter: Any, config: pytest.Config) -> None:
    written = config.stash.get(_WRITTEN, [])
    if written:
        terminalreporter.write_sep("-", "rpcspy fixtures")
        for line in written:
            terminalreporter.write_line(line)


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
