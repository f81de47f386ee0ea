"""The torture kit: named scenarios bundled with rpcspy, each a real recording plus a chaos spec.

``rpcspy replay --scenario NAME`` replays one; ``--scenario list`` lists them; the pytest
plugin's ``rpcspy_scenario`` fixture runs a client test once per scenario. docs/torture.md
says what each catches. The recordings (rpcspy/data/scenarios/, made by scripts/make-scenarios)
are sessions of pi 1.5.2 driven by its own RpcClient. Scenarios match commands by type and
reuse answers, so a client that sends other commands than the recorded ones still gets answers.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Scenario:
    name: str
    recording: str
    """File name under rpcspy/data/scenarios/."""
    chaos: str
    """The --chaos SPEC (empty: none)."""
    catches: str
    """The client bug this scenario catches."""
    match: str = "type"


BASE = "pi-1.5.2-rpc-client.jsonl"

SCENARIOS: tuple[Scenario, ...] = (
    Scenario("clean", BASE, "", "nothing: the baseline session, to compare the others against"),
    Scenario("u2028", BASE, "seed=1,u2028=1",
             "readers that split lines on U+2028/U+2029 (Node readline, str.splitlines): every frame carries both raw"),
    Scenario("split-frames", BASE, "seed=1,split=1",
             "readers that take one read() for one frame: every frame arrives in three writes"),
    Scenario("oversize", BASE, "seed=2,oversize=0.25:2M",
             "line-length limits (asyncio's 64 KiB StreamReader, omp's 1 MiB frames): events grow by 2 MiB"),
    Scenario("idless-errors", BASE, "seed=1,idless-error=1",
             "clients that assume every response has an id, or crash on one they cannot match"),
    Scenario("duplicate-responses", BASE, "seed=1,dup=1",
             "clients that settle a request twice or fail on a response to no pending request"),
    Scenario("reordered-responses", BASE, "seed=1,reorder=1",
             "clients that expect a response before the next frame (pi answers abort after agent_end)"),
    Scenario("stray-settled", BASE, "seed=0,settled=0.3",
             "clients that end a run at agent_settled without checking agent_end (pi 0.87.1 emits strays mid-run)"),
    Scenario("slow-agent", BASE, "seed=1,latency=300ms,jitter=20ms,stall=1.5s@0.05",
             "tight timeouts: responses 300 ms late, jitter, and a 1.5 s silence now and then"),
    Scenario("lost-response", BASE, "seed=14,drop=0.12",
             "clients that wait forever for a response: one response is never sent"),
    Scenario("auto-retry", "pi-1.5.2-retry.jsonl", "",
             "clients that end a prompt at the first agent_end: HTTP 429 gives a failed run, auto_retry_start, a second run"),
    Scenario("agent-crash", "pi-1.5.2-crash.jsonl", "",
             "clients that wait for agent_end forever: the agent dies mid-run (stderr line, exit 1)"),
)

BY_NAME: dict[str, Scenario] = {s.name: s for s in SCENARIOS}


def data_dir() -> Path:
    """Where the bundled scenario recordings live."""
    return Path(__file__).resolve().parents[1] / "data" / "scenarios"


def recording_path(scenario: Scenario) -> Path:
    return data_dir() / scenario.recording


def listing() -> str:
    """The text of ``rpcspy replay --scenario list``."""
    width = max(len(s.name) for s in SCENARIOS)
    lines = [f"{s.name:{width}}  {s.catches}\n{'':{width}}  chaos: {s.chaos or '(none)'}; recording: {s.recording}"
             for s in SCENARIOS]
    return "\n".join(lines) + "\n"
