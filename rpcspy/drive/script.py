"""A drive script: JSONL, one client command per line, exactly as a client sends it.

An optional ``"rpcspy"`` key holds the step's options and is removed before sending::

    {"id": "p1", "type": "prompt", "message": "slow: 400", "rpcspy": {"wait": {"deltas": 3}}}
    {"id": "s1", "type": "steer", "message": "stop", "rpcspy": {"timeout": 10}}
    {"rpcspy": {"wait": "settle"}}

``wait`` says what the step waits for before the next one is sent: ``"settle"`` (the
response and, if the command started a run, the run's end: the default for ``prompt``
and ``abort_and_prompt``), ``"response"`` (the default for other commands), ``"none"``
(the default for answers such as ``extension_ui_response``), ``{"deltas": N}`` (N text
deltas after sending: the next step goes in mid-stream) or ``{"event": TYPE, "count": N}``.
``timeout`` (seconds) bounds that wait. ``answer`` sets how later dialogs are answered:
``{"confirm": true, "select": "first", "input": "text", "editor": "text"}``, or
``"cancel"`` for a method (the default for every method). A line with only ``"rpcspy"``
sends nothing: it waits, or sets answers. Blank lines and lines starting with ``#`` are
skipped.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from rpcspy.protocol.vocabulary import ANSWER_TYPES, DIALOGS, RUN_COMMANDS

OPTIONS_KEY = "rpcspy"
DEFAULT_TIMEOUT = 60.0
"""Seconds a step may wait, unless its options say otherwise."""
WAIT_WORDS = ("settle", "response", "none")


class ScriptError(ValueError):
    """A script line that cannot be a step; the message names the line."""


@dataclass(frozen=True)
class Wait:
    kind: str
    """settle, response, none, deltas or event."""
    count: int = 1
    event: str | None = None

    def describe(self) -> str:
        if self.kind == "deltas":
            return f"{self.count} text delta(s)"
        if self.kind == "event":
            return f"{self.count} {self.event}"
        return {"settle": "its response and the end of its run", "response": "its response",
                "none": "nothing"}[self.kind]


@dataclass(frozen=True)
class Step:
    lineno: int
    obj: dict[str, Any] | None
    """The command as sent (without the options key); None for a wait-only line."""
    wait: Wait
    timeout: float | None = None
    answers: dict[str, Any] = field(default_factory=dict)

    @property
    def line(self) -> bytes | None:
        if self.obj is None:
            return None
        return json.dumps(self.obj, ensure_ascii=False, separators=(",", ":")).encode() + b"\n"

    def label(self) -> str:
        if self.obj is None:
            return f"line {self.lineno}: wait for {self.wait.describe()}"
        shown = f" {self.obj['id']!r}" if "id" in self.obj else ""
        return f"line {self.lineno}: {self.obj.get('type')}{shown}"


def default_wait(obj: dict[str, Any] | None) -> Wait:
    if obj is None:
        return Wait("settle")
    ctype = obj.get("type")
    if ctype in RUN_COMMANDS:
        return Wait("settle")
    if ctype in ANSWER_TYPES:
        return Wait("none")
    return Wait("response")


def _wait(value: Any, where: str) -> Wait:
    if isinstance(value, str) and value in WAIT_WORDS:
        return Wait(value)
    if isinstance(value, dict):
        count = value.get("count", 1)
        if "deltas" in value:
            count = value["deltas"]
            if isinstance(count, int) and not isinstance(count, bool) and count > 0:
                return Wait("deltas", count)
        elif isinstance(value.get("event"), str) and isinstance(count, int) and count > 0:
            return Wait("event", count, value["event"])
    raise ScriptError(f"{where}: wait must be one of {', '.join(WAIT_WORDS)}, {{\"deltas\": N}} or "
                      f"{{\"event\": TYPE, \"count\": N}}, not {json.dumps(value)}")


def _answers(value: Any, where: str) -> dict[str, Any]:
    if not isinstance(value, dict) or not set(value) <= DIALOGS:
        raise ScriptError(f"{where}: answer must be an object with keys among {', '.join(sorted(DIALOGS))}")
    return dict(value)


def parse_step(text: str, lineno: int) -> Step | None:
    """One script line as a step (None for blank and comment lines)."""
    stripped = text.strip()
    if not stripped or stripped.startswith("#"):
        return None
    where = f"line {lineno}"
    try:
        obj = json.loads(stripped)
    except ValueError as exc:
        raise ScriptError(f"{where}: not JSON: {exc}") from None
    if not isinstance(obj, dict):
        raise ScriptError(f"{where}: a step is a JSON object (a command, as a client sends it)")
    options = obj.pop(OPTIONS_KEY, {})
    if not isinstance(options, dict):
        raise ScriptError(f"{where}: \"{OPTIONS_KEY}\" must be an object of step options")
    unknown = set(options) - {"wait", "timeout", "answer"}
    if unknown:
        raise ScriptError(f"{where}: unknown step option(s) {', '.join(sorted(unknown))} "
                          "(known: wait, timeout, answer)")
    command = obj or None
    if command is not None and not isinstance(command.get("type"), str):
        raise ScriptError(f"{where}: a command needs a string \"type\"")
    wait = _wait(options["wait"], where) if "wait" in options else default_wait(command)
    timeout = options.get("timeout")
    if timeout is not None and (not isinstance(timeout, (int, float)) or isinstance(timeout, bool) or timeout <= 0):
        raise ScriptError(f"{where}: timeout must be a positive number of seconds")
    answers = _answers(options["answer"], where) if "answer" in options else {}
    return Step(lineno, command, wait, float(timeout) if timeout is not None else None, answers)


def parse_script(text: str) -> list[Step]:
    """Every step of a script (raises :class:`ScriptError` at the first bad line)."""
    steps = [step for n, line in enumerate(text.split("\n"), start=1) if (step := parse_step(line, n)) is not None]
    if not steps:
        raise ScriptError("the script has no steps")
    return steps
