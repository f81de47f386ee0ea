"""Start-up: `--help` of every command imports no heavy library and none of the core packages."""

from __future__ import annotations

import subprocess
import sys

import pytest

from rpcspy.cli import COMMANDS

HEAVY = ("msgspec", "rich", "prompt_toolkit", "rpcspy.checker", "rpcspy.protocol", "rpcspy.render", "rpcspy.pump",
         "rpcspy.recording", "rpcspy.replay", "rpcspy.diff", "rpcspy.normalise", "rpcspy.interactive")
LIGHT = ("rpcspy.protocol", "rpcspy.protocol.vocabulary", "rpcspy.protocol.spec")
"""The protocol package's face (it imports on first use), its vocabulary (literal name sets) and the
dialects' specs (the ``--dialect`` choices; it imports nothing)."""
PROBE = """
import sys
sys.argv = ["rpcspy", *sys.argv[1:], "--help"]
from rpcspy.cli import main
try:
    main()
except SystemExit:
    pass
print(" ".join(sorted(sys.modules)), file=sys.stderr)
"""


@pytest.mark.parametrize("command", ["", *COMMANDS])
def test_help_imports_nothing_heavy(command: str) -> None:
    proc = subprocess.run([sys.executable, "-c", PROBE, *([command] if command else [])],
                          capture_output=True, text=True, check=True)
    modules = proc.stderr.split()
    assert "click" in modules  # the probe did run the command line
    heavy = [m for m in modules if m.startswith(HEAVY) and (m in HEAVY or m.startswith(tuple(h + "." for h in HEAVY)))
             and m not in LIGHT]
    assert heavy == []


PROXY_HEAVY = ("rich", "prompt_toolkit", "rpcspy.checker", "rpcspy.protocol", "rpcspy.render",
               "rpcspy.replay", "rpcspy.diff", "rpcspy.normalise", "rpcspy.interactive", "rpcspy.diagnose",
               "rpcspy.recording.writer", "rpcspy.recording.format", "rpcspy.pump.observers.recorder",
               "rpcspy.pump.observers.check_observer", "rpcspy.pump.observers.control")
"""What the observer process imports after the fork, and the proxy itself never needs to forward. msgspec is
not among them since the events are the recording's entries (msgspec Structs, issue 23): the proxy makes
Start, Note and Exit events; its import cost is in docs/performance.md (*start-up*)."""
PROXY_PROBE = """
import sys
from rpcspy.pump import proxy
real = proxy.ProxySession._start_relays
seen = sys.argv[1]
def start_relays(self, *args, **kwargs):
    relays = real(self, *args, **kwargs)
    with open(seen, "w") as f:  # the proxy's modules once the agent runs and bytes can flow
        f.write(" ".join(sorted(sys.modules)))
    return relays
proxy.ProxySession._start_relays = start_relays
sys.argv = ["rpcspy", *sys.argv[2:]]
from rpcspy.cli import main
main()
"""


@pytest.mark.parametrize("options", [[], ["--no-check"], ["--no-control"]])
def test_the_proxy_starts_forwarding_without_the_observers_imports(tmp_path, options: list[str]) -> None:  # type: ignore[no-untyped-def]
    """The proxy's start (until the relays run) imports neither the checker, the schemas nor the recorder:
    the observer process imports them after the fork, off the client's critical path."""
    seen = tmp_path / "modules"
    subprocess.run([sys.executable, "-c", PROXY_PROBE, str(seen), *options, "--overwrite", "-o",
                    str(tmp_path / "r.rec"), "--", "cat"], stdin=subprocess.DEVNULL, capture_output=True,
                   check=True, timeout=60)
    modules = seen.read_text().split()
    assert "rpcspy.pump.forward.inject_relays" in modules  # the probe saw the proxy running
    heavy = [m for m in modules if (m in PROXY_HEAVY or m.startswith(tuple(h + "." for h in PROXY_HEAVY)))
             and m not in LIGHT]  # the injection decider's name sets: literals, nothing built
    assert heavy == []


CHECK_PROBE = """
import atexit, sys
atexit.register(lambda: print(" ".join(sorted(sys.modules)), file=sys.stderr))
sys.argv = ["rpcspy", "check", "--format", "json", *sys.argv[1:]]
from rpcspy.cli import main
main()
"""
NOT_FOR_PI = ("rpcspy.protocol.omp", "rpcspy.protocol.omp_session", "rpcspy.protocol.walk", "xml.etree")
"""What `check --format json` of a clean pi recording never uses: omp's schemas, the walker of schema issues,
JUnit's XML."""


@pytest.mark.parametrize(("name", "omp"), [("pi087_01_basic_text_prompt.jsonl", False),
                                           ("omp_O1_omp_18.2.3_basic.jsonl", True)])
def test_check_imports_only_the_dialect_it_checks(name: str, omp: bool) -> None:
    from tests.paths import REPO

    proc = subprocess.run([sys.executable, "-c", CHECK_PROBE, str(REPO / "tests" / "golden" / "inputs" / name)],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode in (0, 1), proc.stderr
    modules = set(proc.stderr.split())
    assert "rpcspy.checker.engine" in modules  # the probe saw the check run
    assert [m for m in NOT_FOR_PI if m in modules] == (["rpcspy.protocol.omp", "rpcspy.protocol.omp_session"]
                                                       if omp else [])
