"""One-sided input: the rules that cannot be judged when a direction is not in the file.

An rpcspy recording holds both directions (the proxy sees both). A transcript may hold one: raw
agent stdout captured with ``tee`` or by a client's log is read as a raw transcript whose lines are
all the agent's, and the client's commands are simply not there. Rules that pair one side with the
other would then blame the side that is present (every response "answers an id never sent"), so
:func:`skipped_rules` names them, and the report says they were skipped and why.
"""

from __future__ import annotations

from collections.abc import Iterable

SIDES = {"c2a": "client", "a2c": "agent"}

NEED_CLIENT = frozenset({
    "correlation.unknown_id", "correlation.unexpected_response", "correlation.duplicate_response",
    "correlation.command_mismatch", "correlation.echoed_type", "correlation.idless_error",
    "correlation.ui_unanswered", "lifecycle.response_after_settle",
})
"""Rules that judge the agent's frames against the client's: without the client's side, they blame the agent
for commands and answers that are only missing from the file."""

NEED_AGENT = frozenset({
    "correlation.unanswered", "correlation.ui_unknown_id", "correlation.ui_duplicate",
    "correlation.ui_fire_and_forget", "correlation.ui_wrong_shape", "correlation.ui_late",
    "correlation.reused_id", "misuse.prompt_while_starting", "misuse.prompt_while_streaming",
    "misuse.queued_while_idle", "lifecycle.response_after_settle",
})
"""Rules that judge the client's frames against the agent's (answers, runs, dialogs asked)."""


def absent_sides(directions: Iterable[str], both_recorded: bool) -> frozenset[str]:
    """The directions (``c2a``, ``a2c``) missing from a file that holds frames of ``directions``; none for a
    file that records both by construction (an rpcspy recording), or for one without any frame."""
    seen = {d for d in directions if d in SIDES}
    if both_recorded or not seen:
        return frozenset()
    return frozenset(SIDES) - seen


def skipped_rules(absent: Iterable[str]) -> frozenset[str]:
    """The rules that need a side in ``absent``."""
    out: set[str] = set()
    for side in absent:
        out |= NEED_CLIENT if side == "c2a" else NEED_AGENT if side == "a2c" else set()
    return frozenset(out)


def absent_note(absent: Iterable[str]) -> str:
    """What the report says: which side is missing and which rules were skipped for it."""
    sides = sorted(absent)
    if not sides:
        return ""
    names = " and ".join(f"the {SIDES[s]}'s ({s})" for s in sides)
    rules = sorted(skipped_rules(sides))
    return (f"one-sided: the file holds no frame of {names} side, so {len(rules)} rules that need it were "
            f"skipped ({', '.join(rules)})")

