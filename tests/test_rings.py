"""The three rings (docs/architecture.md): no import runs from a lower ring to a higher one.

The pure core (framing, events, protocol, checker, recording, render, replay's matching with diff and
normalise, stats, filters) imports neither the I/O ring (``rpcspy.pump``, the control client too) nor the shell
(``rpcspy.cli``) nor the interactive front ends; it never imports click or prompt_toolkit, and rich
only where it renders; rendering is the core's top floor (stats, the checker, recordings and replay
do not import :mod:`rpcspy.render`). The pump renders nothing and knows no command. Imports inside functions
(the lazy ones) count too. Processes, threads, signals and sockets are the pump's: no core module
imports the stdlib modules that make them (replay's fake agent and fake client run in the pump; replay/
keeps the matching and planning), and the shell only parses options and wires the pump to the core.
"""

from __future__ import annotations

import ast
import functools
import re
from collections.abc import Iterator
from pathlib import Path

import rpcspy

ROOT = Path(rpcspy.__file__).parent
SHELL = ("rpcspy.cli", "rpcspy.__main__")
FRONT_ENDS = ("rpcspy.interactive", "rpcspy.browse", "rpcspy.pytest_plugin")
IO = ("rpcspy.pump",)
PROCESS_AND_THREAD = ("subprocess", "threading", "_thread", "socket", "signal", "queue", "select", "selectors",
                      "multiprocessing", "asyncio", "concurrent", "ctypes")
"""Stdlib modules that start processes or threads, catch signals or open sockets: the pump's alone."""
LOCKS = {"rpcspy.plans": "threading"}
"""The one core module that takes a lock (it starts no thread): msgspec's lazily built type plans crash when two
threads build one at once, so the core builds them under one lock (rpcspy/plans.py)."""
RENDERS = ("rpcspy.render",)
"""Core modules that build rich renderables."""


def _modules() -> Iterator[tuple[str, set[str]]]:
    for path in sorted(ROOT.rglob("*.py")):
        name = ".".join(path.relative_to(ROOT.parent).with_suffix("").parts).removesuffix(".__init__")
        found: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                found.update(a.name for a in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                found.add(node.module)
        yield name, found


def _under(name: str, prefixes: tuple[str, ...]) -> bool:
    return any(name == p or name.startswith(p + ".") for p in prefixes)


def _violations() -> list[str]:
    out = []
    for name, imports in _modules():
        if _under(name, SHELL):
            continue
        out += [f"{name} imports {i} (the shell)" for i in imports if _under(i, ("rpcspy.cli",))]
        if _under(name, IO):
            out += [f"{name} imports {i}" for i in imports
                    if _under(i, FRONT_ENDS + ("rpcspy.render", "click", "rich", "prompt_toolkit"))]
        elif not _under(name, FRONT_ENDS):
            out += [f"{name} (core) imports {i}" for i in imports
                    if (_under(i, IO + FRONT_ENDS + PROCESS_AND_THREAD + ("click", "prompt_toolkit"))
                        and LOCKS.get(name) != i)
                    or (_under(i, ("rich", "rpcspy.render")) and not _under(name, RENDERS))]
    return out


def test_no_import_runs_up_the_rings() -> None:
    assert _violations() == []


def test_the_shell_only_parses_and_wires() -> None:
    """Processes, threads, signal handlers and sockets of a command run in the pump (a function the shell calls)."""
    found = [f"{name} imports {i}" for name, imports in _modules() if _under(name, SHELL)
             for i in imports if _under(i, PROCESS_AND_THREAD)]
    assert found == []


def test_the_import_walk_sees_lazy_imports() -> None:
    imports = dict(_modules())
    assert "rpcspy.checker" in imports["rpcspy.pump.observers.check_observer"]  # a module-level import
    assert "rpcspy.recording.decode" in imports["rpcspy.pump.observers.control_client"]  # an import inside a method
    assert "rpcspy.cli" in imports["rpcspy.__main__"]


FORWARD = ("rpcspy.pump.forward",)
OBSERVERS = ("rpcspy.pump.observers",)
COMMANDS = ("rpcspy.pump.commands",)
ASSEMBLERS = ("rpcspy.pump.proxy", "rpcspy.pump.inprocess")
"""The pump's wings (rpcspy/pump/__init__.py) and the two assemblers above them."""


@functools.cache
def _pump_imports() -> dict[str, set[str]]:
    """Each pump module's imports, ``from P import m`` named ``P.m`` where ``m`` is a module of the package ``P``."""
    modules = dict(_modules())
    out = {}
    for name, imports in modules.items():
        if not _under(name, IO):
            continue
        path = ROOT.parent.joinpath(*name.split("."))
        path = path / "__init__.py" if path.is_dir() else path.with_suffix(".py")
        found = set(imports)
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                found.update(f"{node.module}.{a.name}" for a in node.names if f"{node.module}.{a.name}" in modules)
        out[name] = found
    return out


def _wing_imports(wing: tuple[str, ...], never: tuple[str, ...]) -> list[str]:
    return sorted(f"{name} imports {i}" for name, imports in _pump_imports().items() if _under(name, wing)
                  for i in imports if _under(i, never))


def test_forwarding_knows_no_observer_command_or_assembler() -> None:
    """The forwarding path and its hand-off feed whatever observers they are given; they start no command."""
    assert _wing_imports(FORWARD, OBSERVERS + COMMANDS + ASSEMBLERS) == []


def test_observers_start_no_session_and_run_no_command() -> None:
    assert _wing_imports(OBSERVERS, COMMANDS + ASSEMBLERS) == []


def test_commands_use_no_observer_and_only_drive_an_assembler() -> None:
    """A command's process runs beside the proxy, never inside its observers; only ``rpcspy drive`` runs the
    in-process proxy (its agent recorded like any session) and so imports an assembler."""
    assert _wing_imports(COMMANDS, OBSERVERS) == []
    assert _wing_imports(COMMANDS, ASSEMBLERS) == ["rpcspy.pump.commands.drive imports rpcspy.pump.inprocess"]


def test_the_pump_is_its_wings_and_assemblers() -> None:
    """Every module of the pump stands in a wing, or is one of the assemblers."""
    loose = [name for name in _pump_imports() if name != "rpcspy.pump"
             and not _under(name, FORWARD + OBSERVERS + COMMANDS + ASSEMBLERS)]
    assert loose == []


def test_the_wing_walk_sees_imports_of_a_packages_modules() -> None:
    imports = _pump_imports()["rpcspy.pump.forward.observer_process"]
    assert {"rpcspy.pump.forward.wire", "rpcspy.pump.forward.procstate"} <= imports


PROTOCOL_HOMES = ("rpcspy.protocol.vocabulary", "rpcspy.protocol.pairing", "rpcspy.protocol.spec")
"""Each protocol fact has one home: its names are imported from there, never through another module."""


def _defined(tree: ast.Module) -> set[str]:
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names.update(t.id for t in targets if isinstance(t, ast.Name))
    return names


def test_protocol_names_are_imported_from_their_home() -> None:
    trees = {".".join(p.relative_to(ROOT.parent).with_suffix("").parts).removesuffix(".__init__"):
             ast.parse(p.read_text(encoding="utf-8")) for p in sorted(ROOT.rglob("*.py"))}
    homes = {name: home for home in PROTOCOL_HOMES for name in _defined(trees[home]) if not name.startswith("_")}
    found = [f"{name} imports {a.name} from {node.module}, not {homes[a.name]}"
             for name, tree in trees.items() for node in ast.walk(tree)
             if isinstance(node, ast.ImportFrom) and node.module in trees and node.module not in PROTOCOL_HOMES
             for a in node.names if a.name in homes and a.name not in _defined(trees[node.module])]
    assert found == []


EVENT_HOME = "rpcspy.events"
EVENTS = ("Start", "SpawnFailed", "Eof", "Exit", "Note", "Finding")
"""The recording's entries other than frames: events of :mod:`rpcspy.events`, written and read as they are
(one hierarchy since issue 23; a frame on disk is :class:`~rpcspy.recording.format.FrameEntry`)."""


def _sources() -> list[Path]:
    """The Python of the package, its tests and benches, and the scripts (files without a suffix too)."""
    repo = ROOT.parent
    return [p for d in ("rpcspy", "tests", "bench", "scripts") if (repo / d).is_dir()
            for p in sorted((repo / d).rglob("*")) if p.is_file() and "__pycache__" not in p.parts
            and (p.suffix == ".py" or (d == "scripts" and not p.suffix))]


def test_an_event_has_one_name_imported_from_its_home() -> None:
    """The entries' old twin names (an event's name with ``Entry`` after it) are gone, and an event is imported
    from :mod:`rpcspy.events`, never through a module that imports it (rpcspy.recording.format does)."""
    twin = re.compile(r"\b(?:" + "|".join(EVENTS) + r")Entry\b")
    found = [f"{p.relative_to(ROOT.parent)}:{n}: {m.group(0)}" for p in _sources()
             for n, line in enumerate(p.read_text(encoding="utf-8", errors="replace").splitlines(), 1)
             for m in twin.finditer(line)]
    assert found == []
    found = [f"{p.relative_to(ROOT.parent)}:{node.lineno} imports {a.name} from {node.module}"
             for p in _sources() if p.suffix == ".py"
             for node in ast.walk(ast.parse(p.read_text(encoding="utf-8")))
             if isinstance(node, ast.ImportFrom) and node.module != EVENT_HOME
             and (node.module or "").startswith("rpcspy") for a in node.names if a.name in EVENTS]
    assert found == []
    assert twin.search("from rpcspy.recording.format import Note" + "Entry")  # the scan would see one


def test_opentelemetry_is_the_pumps_alone() -> None:
    """The otel extra is optional: the core's span model (rpcspy.otel) never imports it, nor the shell; only the
    pump's exporter does, inside functions, so rpcspy runs without it until --otel or --format otlp is asked for."""
    users = sorted(name for name, imports in _modules() if any(_under(i, ("opentelemetry", "oteltap"))
                                                               for i in imports))
    assert users == ["rpcspy.pump.observers.otel_export"]
    source = (ROOT / "pump" / "observers" / "otel_export.py").read_text(encoding="utf-8")
    top = [n for n in ast.parse(source).body if isinstance(n, (ast.Import, ast.ImportFrom))]
    assert not [n for n in top if (n.module if isinstance(n, ast.ImportFrom) else n.names[0].name or "")
                .startswith("opentelemetry")]
    assert "rpcspy.otel.mapper" in dict(_modules())  # the core package the walk covers


DIALECT_HOME = "rpcspy.protocol.spec"
OTHER_MEANINGS = {("rpcspy.modelserver.config", "omp"), ("rpcspy.cli.modelserver_cmd", "omp"),
                  ("rpcspy.recording.naming", "omp")}
"""(module, literal) where a dialect's name means something else: omp the program, whose config a
model server writes, not omp's dialect."""


def test_a_dialect_name_is_spelled_only_in_its_spec() -> None:
    """A dialect is one :class:`~rpcspy.protocol.spec.Spec`: every other module derives its lists from
    :data:`~rpcspy.protocol.spec.SPECS` or names a dialect by the spec module's constant."""
    from rpcspy.protocol.spec import DIALECTS

    found = []
    for path in sorted(ROOT.rglob("*.py")):
        name = ".".join(path.relative_to(ROOT.parent).with_suffix("").parts).removesuffix(".__init__")
        if name == DIALECT_HOME:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and node.value in DIALECTS and (name, node.value) not in OTHER_MEANINGS:
                found.append(f"{name}:{node.lineno}: {node.value!r}")
    assert found == []


REPLAY_FAMILY = ("rpcspy.normalise", "rpcspy.diff", "rpcspy.replay")
"""Replay's family, bottom up: normalising volatile values, diffing recordings, replaying one. Each imports only
those below it (diff and normalise know no engine, matcher or source), and none renders: their views are
:mod:`rpcspy.render`'s (``render/diff.py``, ``render/compat.py``)."""


def test_the_replay_family_imports_downwards_and_renders_nothing() -> None:
    found = []
    for name, imports in _modules():
        rank = next((i for i, family in enumerate(REPLAY_FAMILY) if _under(name, (family,))), None)
        if rank is None:
            continue
        above = REPLAY_FAMILY[rank + 1:]
        found += [f"{name} imports {i}" for i in imports
                  if _under(i, above + ("rpcspy.render", "rich", "click", "prompt_toolkit") + IO)]
    assert found == []
    assert {"rpcspy.diff.differ", "rpcspy.normalise.normaliser", "rpcspy.replay.engine"} <= dict(_modules()).keys()


OFFLINE_COMMANDS = tuple(f"rpcspy.cli.{m}" for m in ("show_cmd", "stats_cmd", "export_cmd", "export_otlp", "browse_cmd",
                                                      "check_cmd", "why_cmd", "recfile"))
"""The offline commands read recordings through one core room, :mod:`rpcspy.offline` (open, dialect, events
with the check and a frame filter applied): they import no :mod:`rpcspy.recording` module, and no
reading loop is assembled in the shell."""


def test_offline_commands_read_through_the_offline_room() -> None:
    imports = dict(_modules())
    found = [f"{name} imports {i}" for name in OFFLINE_COMMANDS for i in imports[name]
             if _under(i, ("rpcspy.recording",))]
    assert found == []
    assert "rpcspy.offline" in imports["rpcspy.cli.recfile"]  # the walk sees the room
