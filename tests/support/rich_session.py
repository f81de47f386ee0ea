"""The standard scripted session: every command and event a client can provoke offline.

One well-behaved client, used by the integration test "a rich session gives nothing above
info" and by ``scripts/probe-agent`` (which records it with any agent command and lists what
the checker did not know). Commands the dialect does not define are not sent, so the same
script drives pi 0.73, pi >= 0.84, pi >= 0.99 and omp.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from tests.support.driver import AgentProcess, is_response
from tests.support.scenarios import idle_event, is_idle, prompt

RUNS = 60.0
LACKS = {"omp-18.2.3": frozenset({"open_session", "get_entries", "get_tree", "set_event_filter",
                                  "get_available_thinking_levels"})}
"""Commands a dialect defines that an older version of its agent does not know (omp's dialect is 18.3.4's)."""


def is_first_delta(msg: dict[str, Any]) -> bool:
    return msg.get("type") == "message_update" and msg.get("assistantMessageEvent", {}).get("type") == "text_delta"


def _known(dialect: str) -> frozenset[str]:
    from rpcspy.protocol import command_types

    return frozenset(command_types(dialect))


def _recovered(msg: dict[str, Any]) -> bool:
    return msg.get("type") == "agent_end" and "Recovered answer." in json.dumps(msg)


def run(ap: AgentProcess, dialect: str, lacks: Iterable[str] = ()) -> None:
    """Drive ``ap`` (the agent, or rpcspy in front of it) through the whole session.

    ``lacks``: commands of the dialect this agent version does not know (see :data:`LACKS`).
    """
    known = _known(dialect) - frozenset(lacks)

    def ask(id_: str, type_: str, **fields: Any) -> dict[str, Any] | None:
        if type_ not in known:
            return None
        return ap.request({"id": id_, "type": type_, **fields}, timeout=RUNS)

    ask("s1", "get_state")
    prompt(ap, dialect, "hello", "p1", timeout=RUNS)
    prompt(ap, dialect, "tool: echo hi", "p2", timeout=RUNS)
    prompt(ap, dialect, "think: about it", "p3", timeout=RUNS)
    # a transient error, retried: the run (or runs) end with the recovered answer
    ap.send({"id": "p4", "type": "prompt", "message": "error: then recover"})
    ap.read_until(_recovered, timeout=RUNS)
    if idle_event(dialect) != "agent_end":
        ap.read_until(is_idle(dialect), timeout=RUNS)
    # steer and follow up while streaming, then let the run finish
    ap.send({"id": "p5", "type": "prompt", "message": "slow: 60"})
    ap.read_until(is_first_delta, timeout=RUNS)
    ask("st", "steer", message="and also this")
    ask("fu", "follow_up", message="then this")
    ask("p6", "prompt", message="queued", streamingBehavior="followUp")
    ap.read_until(is_idle(dialect), timeout=RUNS)
    # abort mid-stream
    ap.send({"id": "p7", "type": "prompt", "message": "slow: 400"})
    ap.read_until(is_first_delta, timeout=RUNS)
    ap.send({"id": "a1", "type": "abort"})
    ap.read_until(is_response("a1"), timeout=RUNS)  # after the run's agent_end (and agent_settled)
    ask("b1", "bash", command="echo out")
    ask("m1", "get_messages")
    ask("la", "get_last_assistant_text")
    ask("ss", "get_session_stats")
    ask("am", "get_available_models")
    ask("tl", "get_available_thinking_levels")
    ask("th", "set_thinking_level", level="low")
    ask("ct", "cycle_thinking_level")
    ask("sm", "set_steering_mode", mode="all")
    ask("fm", "set_follow_up_mode", mode="one-at-a-time")
    ask("ac", "set_auto_compaction", enabled=False)
    ask("ar", "set_auto_retry", enabled=True)
    ask("sn", "set_session_name", name="rich session")
    ask("gc", "get_commands")
    ask("gac", "get_available_commands")
    ask("fk", "get_fork_messages")
    ask("bm", "get_branch_messages")
    ask("en", "get_entries")
    ask("tr", "get_tree")
    ask("cq", "clear_queue")
    ask("ab", "abort_bash")
    ask("ns", "new_session")
    ask("s2", "get_state")
