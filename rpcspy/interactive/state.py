"""What a person at the REPL needs to know right now, folded from the session's events (pure).

Is the agent streaming, which commands wait for an answer, what is queued,
is a compaction or a retry under way, which dialogs are open, what did
extensions put in their status lines, did the agent exit. The REPL's status bar
and its Ctrl-C (abort what is running) read this.
"""

from __future__ import annotations

import json
from collections import Counter, OrderedDict
from dataclasses import dataclass, field
from typing import Any

from rpcspy.events import Event, Exit, Finding, Frame, SpawnFailed
from rpcspy.framing import DECODE_ERRORS
from rpcspy.protocol.pairing import MISSING, Pairing, Pending, show_id
from rpcspy.protocol.vocabulary import ANSWER_TYPES as _ANSWERS
from rpcspy.protocol.vocabulary import COMPACTION_END, COMPACTION_START, OMP_PROMPT_RESULT, RUN_END
from rpcspy.protocol.vocabulary import DIALOGS as DIALOG_METHODS

_MAX_CLOSED = 256
_SKIP = (b'{"type":"message_update"', b'{"type":"tool_execution_update"', b'{"type":"bash_execution_update"')


@dataclass
class OpenDialog:
    """An extension_ui_request that waits for an answer."""

    request: dict[str, Any]
    t: float

    @property
    def id(self) -> Any:
        return self.request.get("id")


@dataclass
class SessionState:
    streaming: bool = False
    pairing: Pairing = field(default_factory=Pairing)
    """Commands and their responses, paired as check, show and stats pair them."""
    queue: tuple[list[str], list[str]] = ([], [])
    """(steering, followUp) as the last queue_update said."""
    compacting: str | None = None
    retrying: bool = False
    dialogs: OrderedDict[Any, OpenDialog] = field(default_factory=OrderedDict)
    statuses: dict[str, str] = field(default_factory=dict)
    widgets: dict[str, list[str]] = field(default_factory=dict)
    title: str | None = None
    findings: Counter[str] = field(default_factory=Counter)
    exit_code: int | None = None
    last_t: float = 0.0
    opened: list[OpenDialog] = field(default_factory=list)
    """Dialogs opened since the app last took them (:meth:`take_opened`)."""
    closed: OrderedDict[Any, str] = field(default_factory=OrderedDict)
    """Why recent dialogs closed: answered, cancelled by the agent, timed out, agent exited."""

    def feed(self, event: Event) -> None:
        self.last_t = event.t
        if self.dialogs:
            self._expire(event.t)
        if isinstance(event, Frame):
            if event.dir == "err" or event.data.startswith(_SKIP):
                return
            try:
                obj = json.loads(event.data)
            except DECODE_ERRORS:  # not JSON, or nested too deeply for the stdlib
                return
            if isinstance(obj, dict):
                (self._client if event.dir == "c2a" else self._agent)(obj, event.t, event.seq)
        elif isinstance(event, Finding):
            self.findings[event.severity] += 1
        elif isinstance(event, (Exit, SpawnFailed)):
            self.exit_code = event.code
            self.streaming = False
            for key in list(self.dialogs):
                self._close_dialog(key, "the agent exited")

    # --- client frames -------------------------------------------------------------------
    def _client(self, obj: dict[str, Any], t: float, seq: int) -> None:
        kind = obj.get("type")
        if kind in _ANSWERS:
            self._close_dialog(_key(obj.get("id")), "answered")
            return
        self.pairing.command(seq, t, obj)

    # --- agent frames --------------------------------------------------------------------
    def _agent(self, obj: dict[str, Any], t: float, seq: int) -> None:
        kind = obj.get("type")
        if kind == "response":
            self.pairing.response(seq, obj)
        elif kind == "agent_start":
            self.streaming, self.retrying = True, False
        elif kind in (RUN_END, OMP_PROMPT_RESULT):
            self.streaming = False
        elif kind == "queue_update":
            steering, follow = obj.get("steering"), obj.get("followUp")
            self.queue = (_strings(steering), _strings(follow))
        elif kind in COMPACTION_START:
            self.compacting = str(obj.get("reason") or "running")
        elif kind in COMPACTION_END:
            self.compacting = None
        elif kind == "auto_retry_start":
            self.retrying = True
        elif kind == "auto_retry_end":
            self.retrying = False
        elif kind == "extension_ui_request":
            self._ui(obj, t)

    def _ui(self, obj: dict[str, Any], t: float) -> None:
        method = obj.get("method")
        if method in DIALOG_METHODS:
            dialog = OpenDialog(obj, t)
            self.dialogs[_key(obj.get("id"))] = dialog
            self.opened.append(dialog)
        elif method == "cancel":
            self._close_dialog(_key(obj.get("targetId")), "cancelled by the agent")
        elif method == "setStatus" and isinstance(obj.get("statusKey"), str):
            text = obj.get("statusText")
            if isinstance(text, str):
                self.statuses[obj["statusKey"]] = text
            else:
                self.statuses.pop(obj["statusKey"], None)
        elif method == "setWidget" and isinstance(obj.get("widgetKey"), str):
            lines = obj.get("widgetLines")
            if isinstance(lines, list):
                self.widgets[obj["widgetKey"]] = [str(x) for x in lines]
            else:
                self.widgets.pop(obj["widgetKey"], None)
        elif method == "setTitle" and isinstance(obj.get("title"), str):
            self.title = obj["title"]

    def _expire(self, t: float) -> None:
        """Dialogs whose timeout passed: the agent went on with its default, silently."""
        for key, d in list(self.dialogs.items()):
            timeout = d.request.get("timeout")
            if isinstance(timeout, (int, float)) and not isinstance(timeout, bool) and t > d.t + timeout / 1000:
                self._close_dialog(key, "timed out: the agent went on with its default")

    def _close_dialog(self, key: Any, why: str) -> None:
        if self.dialogs.pop(key, None) is not None:
            self.closed[key] = why
            while len(self.closed) > _MAX_CLOSED:
                self.closed.popitem(last=False)

    def give_up(self, dialog_id: Any, why: str) -> None:
        """The REPL stopped waiting for a dialog (its timeout ran out on our clock)."""
        self._close_dialog(_key(dialog_id), why)

    def why_closed(self, dialog_id: Any) -> str:
        return self.closed.get(_key(dialog_id), "closed")

    # --- questions -----------------------------------------------------------------------
    def take_opened(self) -> list[OpenDialog]:
        """Dialogs opened since the last call that are still open."""
        opened, self.opened = self.opened, []
        return [d for d in opened if self.is_open(d.id)]

    def is_open(self, dialog_id: Any) -> bool:
        return _key(dialog_id) in self.dialogs

    @property
    def pending(self) -> list[Pending]:
        """Commands not answered yet, oldest first."""
        return [p for p in self.pairing.unanswered() if isinstance(p.type, str)]

    def pending_of(self, kind: str) -> list[Pending]:
        return [p for p in self.pending if p.type == kind]

    @property
    def busy(self) -> bool:
        """Something Ctrl-C could stop: a run, a bash command, a retry wait, a compaction."""
        return self.streaming or self.retrying or self.compacting is not None or bool(self.pending_of("bash"))

    def abort_command(self) -> str | None:
        """The command that stops what is running (None when idle)."""
        if self.pending_of("bash"):
            return "abort_bash"
        if self.retrying and not self.streaming:
            return "abort_retry"
        if self.streaming or self.compacting is not None:
            return "abort"
        return None

    def status_parts(self) -> list[tuple[str, str]]:
        """(style, text) pieces of the status line."""
        parts: list[tuple[str, str]] = []
        if self.exit_code is not None:
            parts.append(("bold", f"agent exited ({self.exit_code})"))
        elif self.streaming:
            parts.append(("bold green", "● streaming"))
        else:
            parts.append(("", "idle"))
        if pending := self.pending:
            names = ", ".join(p.type if p.id is MISSING else f"{p.type} {show_id(p.id).strip(chr(34))}"
                              for p in pending[-3:])
            parts.append(("", f"waiting: {names}" + (" …" if len(pending) > 3 else "")))
        steering, follow = self.queue
        if steering or follow:
            parts.append(("yellow", f"queue: {len(steering)} steer, {len(follow)} follow-up"))
        if self.compacting is not None:
            parts.append(("yellow", f"compacting ({self.compacting})"))
        if self.retrying:
            parts.append(("yellow", "retry pending"))
        if self.dialogs:
            parts.append(("magenta", f"{len(self.dialogs)} dialog(s) open"))
        for key, text in list(self.statuses.items())[:3]:
            parts.append(("cyan", f"{key}: {text}"))
        errors, warnings = self.findings["error"], self.findings["warning"]
        if errors or warnings:
            parts.append(("bold red" if errors else "yellow", f"findings: {errors} error(s), {warnings} warning(s)"))
        return parts


def _key(value: Any) -> Any:
    return value if isinstance(value, (str, int, float, bool, type(None))) else json.dumps(value, sort_keys=True)


def _strings(value: Any) -> list[str]:
    return [str(x) for x in value] if isinstance(value, list) else []
