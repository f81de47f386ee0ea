"""`rpcspy run --legs -- pi-acp`: both legs of the adapter (ACP in front, pi's RPC behind) recorded on one clock,
and `rpcspy legs` showing which ACP request caused which pi command. pi-acp 0.0.34 on pi 1.6.0 against rpcspy's
model server, driven by the official Python ACP SDK."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from rpcspy.recording import open_recording
from tests.conftest import _installed
from tests.support.homes import agent_env

pytest.importorskip("acp")
REPO = Path(__file__).resolve().parents[2]


def record_legs(request: pytest.FixtureRequest, agent_home: Path, tmp_path: Path,
                prompts: tuple[str, ...] = ("hello", "tool: echo hi-from-acp")) -> tuple[Path, list[Path]]:
    specs = request.getfixturevalue("_agent_specs")
    adapter, pi = _installed("pi-acp-0.0.34", specs), _installed("pi-1.6.0", specs)
    wrapper = tmp_path / "pi"
    wrapper.write_text("#!/bin/sh\nexec " + " ".join(pi.argv_prefix) + ' "$@" --provider fake --model fake-model\n')
    wrapper.chmod(0o755)
    env = agent_env(agent_home, adapter.environ())
    env["PI_ACP_PI_COMMAND"] = str(wrapper)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")]))
    rec = tmp_path / "front.jsonl"
    argv = [sys.executable, "-m", "tests.support.acp_client", *(a for p in prompts for a in ("--prompt", p)),
            "--", sys.executable, "-m", "rpcspy", "run", "--legs", "-o", str(rec), "--", *adapter.argv_prefix]
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=180, env=env, cwd=agent_home / "project")
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.split() == ["stopReason=end_turn"] * len(prompts)
    return rec, sorted(tmp_path.glob("front.back.*.jsonl"))


def legs(path: Path) -> str:
    out = subprocess.run([sys.executable, "-m", "rpcspy", "legs", str(path)], capture_output=True, text=True,
                         timeout=60, env={**os.environ, "PYTHONPATH": str(REPO)})
    assert out.returncode == 0, out.stderr
    return out.stdout


GATE = """\
// Before a bash command: ask why (an input dialog), then a confirm; block the command when refused.
export default function (pi) {
  pi.on("tool_call", async (event, ctx) => {
    if (event.toolName !== "bash") return undefined;
    await ctx.ui.input("rpcspy legs", "why run " + event.input.command + "?");
    const ok = await ctx.ui.confirm("rpcspy legs", "run " + event.input.command + "?");
    return ok ? undefined : { block: true, reason: "refused" };
  });
}
"""
"""A pi extension (``-e``-style, from ~/.pi/agent/extensions) with two dialogs: pi-acp 0.0.34 answers an
``input`` itself (cancelled: "not supported in ACP yet") and turns a ``confirm`` into
``session/request_permission`` (options yes / no)."""
DIALOG_DATA = REPO / "tests" / "data" / "acp" / "legs"
"""front.jsonl and front.back.PID.jsonl: the pair recorded by the test below (a pair keeps the names it was
recorded with: the back leg names its front)."""


@pytest.mark.agents
def test_pi_acp_translates_a_pi_dialog_into_a_permission_request(request: pytest.FixtureRequest, agent_home: Path,
                                                                  tmp_path: Path) -> None:
    """A real session where the adapter translates: `rpcspy legs` says which pi dialog became which ACP
    request, and which one the adapter answered by itself."""
    ext = agent_home / ".pi" / "agent" / "extensions"
    ext.mkdir(parents=True, exist_ok=True)
    (ext / "rpcspy-legs-gate.js").write_text(GATE)
    rec, backs = record_legs(request, agent_home, tmp_path, ("tool: echo gated",))
    assert len(backs) == 1
    assert_dialog_observations(legs(backs[0]))
    methods = [json.loads(f.data).get("method") for f in open_recording(rec).frames() if f.dir == "c2a"]
    answers = [json.loads(f.data) for f in open_recording(rec).frames()
               if f.dir == "c2a" and "result" in json.loads(f.data)]
    assert "session/prompt" in methods and answers[0]["result"]["outcome"] == {"outcome": "selected", "optionId": "yes"}


def assert_dialog_observations(text: str) -> None:
    observed = text.split("observations:\n")[1].splitlines()
    inputs = [o for o in observed if "pi dialog input #" in o]
    confirms = [o for o in observed if "pi dialog confirm #" in o]
    assert len(inputs) == 1 and inputs[0].endswith("answered by the adapter itself: the ACP client was never asked")
    assert len(confirms) == 1 and "translated to ACP session/request_permission #0 +" in confirms[0]
    assert not any("with no session/request_permission" in o for o in observed)  # the client was asked


def test_the_recorded_dialog_session_offline() -> None:
    """The same, on the pair recorded by the test above (pi-acp 0.0.34 on pi 1.6.0), kept in tests/data."""
    backs = sorted(DIALOG_DATA.glob("front.back.*.jsonl"))
    assert len(backs) == 1
    assert_dialog_observations(legs(DIALOG_DATA / "front.jsonl"))
    assert_dialog_observations(legs(backs[0]))


@pytest.mark.agents
def test_pi_acp_both_legs_on_one_clock(request: pytest.FixtureRequest, agent_home: Path, tmp_path: Path) -> None:
    rec, backs = record_legs(request, agent_home, tmp_path)
    assert len(backs) >= 1
    front = open_recording(rec)
    assert front.header.leg == "front"
    back = open_recording(backs[0])
    assert back.header.leg == "back" and back.header.front == str(rec)
    out = subprocess.run([sys.executable, "-m", "rpcspy", "legs", str(backs[0])], capture_output=True, text=True,
                         timeout=60, env={**os.environ, "PYTHONPATH": str(REPO)})
    assert out.returncode == 0, out.stderr
    text = out.stdout
    assert f"front (ACP): {rec}" in text and f"back (pi RPC): {backs[0]}" in text
    causes = text.split("which ACP request caused which pi commands:\n")[1].split("\n\n")[0].splitlines()
    assert causes[0].startswith("  session/new #1: get_state")  # pi-acp asks pi for its state to open a session
    # pi-acp's own start-up commands may race the first prompt; each pi prompt is for its ACP prompt
    assert [c.split(":")[0] for c in causes[1:]] == ["  session/prompt #2", "  session/prompt #3"]
    assert all(" prompt" in c.split(":")[1] for c in causes[1:])
    prompts = [line for line in text.splitlines() if "→ prompt #" in line]
    assert ["[for ACP session/prompt #2 +" in prompts[0], "[for ACP session/prompt #3 +" in prompts[1]] == [True, True]
    assert "pi ran tool bash (call_1) with no session/request_permission asked of the ACP client" in text
    assert prompts[0].index("→ prompt") > 40  # side by side: the pi column
    turns = text.split("prompt turns (from the ACP session/prompt):\n")[1].split("\n\n")[0].splitlines()
    assert [t.split(" at ")[0] for t in turns] == ["  session/prompt #2", "  session/prompt #3"]
    assert all("pi prompt +" in t and "first text: pi +" in t and "ACP stopReason +" in t for t in turns)


def test_legs_refuses_an_ordinary_recording(tmp_path: Path) -> None:
    out = subprocess.run([sys.executable, "-m", "rpcspy", "legs", str(REPO / "tests/data/acp/omp-18.2.3-acp-permission.jsonl")],
                         capture_output=True, text=True, timeout=60, env={**os.environ, "PYTHONPATH": str(REPO)})
    assert out.returncode == 2 and "not a recording of `rpcspy run --legs`" in out.stderr


def test_legs_needs_a_recording() -> None:
    out = subprocess.run([sys.executable, "-m", "rpcspy", "run", "--legs", "--no-record", "--", "true"],
                         capture_output=True, text=True, timeout=60, env={**os.environ, "PYTHONPATH": str(REPO)})
    assert out.returncode == 2 and "--legs records the back end next to the recording" in out.stderr
