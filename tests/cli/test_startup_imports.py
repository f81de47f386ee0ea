"""Start-up: `--help` of every command imports no heavy library and none of the core packages."""

from __future__ import annotations

import subprocess
import sys

import pytest

from rpcspy.cli import COMMANDS

HEAVY = ("msgspec", "rich", "prompt_toolkit", "rpcspy.checker", "rpcspy.protocol", "rpcspy.render", "rpcspy.pump",
         "rpcspy.recording", "rpcspy.replay", "rpcspy.interactive")
LIGHT = ("rpcspy.protocol", "rpcspy.protocol.vocabulary")
"""The protocol package's face (it imports on first use) and its vocabulary (literal name sets)."""
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
