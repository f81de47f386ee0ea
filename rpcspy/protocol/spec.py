"""Every dialect, as one spec each: the only place a dialect's name is spelled (tests/test_rings.py checks).

A :class:`Spec` says what a dialect is (name, description, family), how detection may refine it, and
what its agents do, by capabilities named for what they mean. Everything else is derived from
:data:`SPECS`: :data:`DIALECTS` (the ``--dialect`` choices), the schema factories' branches, the
checker's traits, the diagnosis. This module imports nothing, so the shell can list the dialects
without building a schema.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Family = Literal["pi", "omp", "acp"]
"""Whose protocol: pi's JSONL RPC, oh-my-pi's fork of it, or the Agent Client Protocol (JSON-RPC 2.0)."""
PI: Family = "pi"
OMP: Family = "omp"
ACP: Family = "acp"


@dataclass(frozen=True, slots=True)
class Spec:
    """One dialect: what distinguishes its schemas and its agents' behaviour from the others'."""

    name: str
    description: str
    family: Family = PI
    delta_updates: bool = False
    """``message_update`` carries deltas only (pi >= 0.84's schema generation: also system messages,
    ``get_entries``/``get_tree`` and the other commands that came with it)."""
    settles: bool = False
    """The agent emits ``agent_settled`` once a run is really over, and session commands close a
    running run before they are answered."""
    dispositions: bool = False
    """``prompt``/``steer``/``follow_up`` success responses carry a ``disposition``; also
    ``agent_settled.aborted``, durations and nested tool calls (pi >= 0.99, protocol-notes 11.1)."""
    doc_shapes: bool = False
    """Shapes only pi's RPC doc of Feb 2026 describes: image ``source`` form, ``auto_compaction_*``."""
    ready_frame: bool = False
    """The agent announces itself with a ``ready`` frame before anything else."""
    blank_lines_skipped: bool = False
    """A blank client line is skipped without an answer (pi answers it with a ``parse`` error), and a
    prompt sent while streaming may be answered twice under one id (success, then error)."""
    retry_in_run: bool = False
    """A retried run keeps its run open: the retry's ``agent_start`` comes before the failed run's end."""
    jsonrpc: bool = False
    """JSON-RPC 2.0 framing (``jsonrpc``/``id``/``method``; requests both ways, notifications without id)."""
    refines_to: str | None = None
    """A newer dialect later frames may still show a session of this one to be (detection stays open)."""

    @property
    def omp_family(self) -> bool:
        """oh-my-pi's protocol: its own command set, session entries, ``get_state`` and host frames."""
        return self.family == OMP

    @property
    def thinking_levels(self) -> tuple[str, ...]:
        base = ("off", "minimal", "low", "medium", "high", "xhigh")
        if self.omp_family:
            return ("inherit",) + base + ("max",)
        return base + ("max",) if self.delta_updates else base

    @property
    def stop_reasons(self) -> tuple[str, ...]:
        base = ("stop", "length", "toolUse", "error", "aborted")
        return ("pending",) + base + ("deferred",) if self.delta_updates else base


PI_073 = "pi-0.73"
PI_084 = "pi-0.84"
PI_099 = "pi-0.99"
PI_FEB2026 = "pi-feb2026"
OMP_18 = "omp"
ACP_V1 = "acp-v1"

SPECS: dict[str, Spec] = {s.name: s for s in (
    Spec(PI_073, "pi 0.73.x (@mariozechner/pi-coding-agent): full message + partial in message_update"),
    Spec(PI_084, "pi >= 0.84 (@earendil-works/pi-coding-agent, e.g. 0.87.1): delta-only message_update, "
                 "agent_settled, system messages",
         delta_updates=True, settles=True, refines_to=PI_099),
    Spec(PI_099, "pi >= 0.99 (e.g. 1.5.2): pi-0.84 plus `disposition` on prompt/steer/follow_up responses, "
                 "agent_settled.aborted, tool and message durations, nested tool calls",
         delta_updates=True, settles=True, dispositions=True),
    Spec(PI_FEB2026, "pi docs of Feb 2026 (docs/rpc.md e54dff7): image `source` form, auto_compaction_* events",
         doc_shapes=True),
    Spec(OMP_18, "oh-my-pi (omp 18.x, typed from 18.3.4): ready frame, host tools, prompt_result, session_settled, "
                 "its own command set, session entries and todos",
         family=OMP, ready_frame=True, blank_lines_skipped=True, retry_in_run=True),
    Spec(ACP_V1, "Agent Client Protocol v1 (JSON-RPC 2.0 over stdio: `omp acp`, pi-acp, editors' agents), typed "
                 "from the official schema; methods gated by the capabilities negotiated in `initialize`",
         family=ACP, jsonrpc=True),
)}
"""Each dialect's spec, in the order ``--dialect`` lists them."""

DIALECTS: tuple[str, ...] = tuple(SPECS)
DESCRIPTIONS: dict[str, str] = {name: spec.description for name, spec in SPECS.items()}
FALLBACK = PI_073
"""What ``--dialect auto`` assumes until a frame tells the dialects apart."""
SCHEMA_DEFAULT = PI_084
"""The dialect ``rpcspy schema`` prints by default."""
JSONL_DIALECTS: tuple[str, ...] = tuple(name for name, spec in SPECS.items() if not spec.jsonrpc)
"""The pi family's dialects (pi's JSONL RPC framing): checked together while a session is undecided."""
JSONRPC_DIALECTS: tuple[str, ...] = tuple(name for name, spec in SPECS.items() if spec.jsonrpc)
SETTLING_DIALECTS = frozenset(name for name, spec in SPECS.items() if spec.settles)
REFINED: dict[str, str] = {name: spec.refines_to for name, spec in SPECS.items() if spec.refines_to}
"""A decided dialect -> the newer one later frames may still show it to be."""


def spec_of(dialect: str | None) -> Spec | None:
    """The spec of ``dialect``; None for None, ``"auto"`` or a name no spec has."""
    return SPECS.get(dialect) if dialect is not None else None


def skips_blank_lines(dialect: str | None) -> bool:
    """``dialect``'s agent skips blank client lines (and may answer a prompt twice): pairing must know."""
    spec = spec_of(dialect)
    return spec is not None and spec.blank_lines_skipped
