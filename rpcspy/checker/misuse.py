"""Client misuse the agent accepts or answers only indirectly: prompts at the wrong time,
extension commands in the steering queue. (``null`` frames are found by the engine.)
"""

from __future__ import annotations

from typing import Any

from rpcspy.checker.findings import Sink
from rpcspy.protocol.bounded import trim_oldest
from rpcspy.protocol.pairing import Pending
from rpcspy.protocol.vocabulary import QUEUE_COMMANDS

_STREAMING = "sent-while-streaming"
_IN_RUN = "sent-during-a-run"
"""Sent while a run was open (between its agent_start and agent_end), not only while busy."""
_EXT_REPORTED = "ext-reported"
_EXT_MAYBE = "ext-maybe"
_IDLE_CAP = 1024


def starts_no_run(obj: dict[str, Any]) -> bool:
    """A successful prompt response saying no run starts: pi >= 0.99 ``disposition`` ``handled``
    (an extension or input handler consumed it) or ``queued``; omp ``agentInvoked: false``."""
    data = obj.get("data")
    if not isinstance(data, dict):
        return False
    return data.get("disposition") in ("handled", "queued") or data.get("agentInvoked") is False


def _slash_name(message: Any) -> str | None:
    if isinstance(message, str) and message.startswith("/") and len(message) > 1:
        return message[1:].split(None, 1)[0] if message[1:].strip() else None
    return None


class MisuseTracker:
    """Prompt timing and queue rules; fed by the engine with lifecycle state."""

    def __init__(self, sink: Sink) -> None:
        self.sink = sink
        self.starting: Pending | None = None
        """A prompt sent while idle whose run has not started yet."""
        self.extension_commands: set[str] | None = None
        """Names of extension commands, once a `get_commands` response listed them."""
        self.idle_queue: dict[int, Pending] = {}
        """``steer``/``follow_up`` sent while no run was open, starting or settling, until answered."""

    # ---- stdin -----------------------------------------------------------------------------
    def prompt(self, t: float, seq: int, p: Pending, busy: bool, running: bool = False) -> None:
        """A prompt sent; ``busy`` while the agent works, ``running`` while a run is open."""
        if busy or running:
            if not p.behavior:
                p.note = _IN_RUN if running else _STREAMING  # judged when the response arrives
            return
        if self.starting is not None:
            first = self.starting
            self.sink.emit("misuse.prompt_while_starting", t, seq, "c2a",
                           f"prompt sent before the prompt at frame {first.seq} started its run "
                           "(no agent_start yet); one of them will be dropped silently", related=first.seq)
        self.starting = p

    def queue(self, t: float, seq: int, p: Pending, idle: bool = False) -> None:
        """``steer``/``follow_up`` sent; ``idle``: no run open or settling (pi's queue then waits for a prompt)."""
        if idle and self.starting is None:
            self.idle_queue[p.seq] = p
            trim_oldest(self.idle_queue, _IDLE_CAP)
        name = _slash_name(p.message)
        if name is None:
            return
        if self.extension_commands is not None and name in self.extension_commands:
            p.note = _EXT_REPORTED
            self._queue_finding(t, seq, p, name, None)
        else:
            p.note = _EXT_MAYBE

    def _queue_finding(self, t: float, seq: int, p: Pending, name: str, related: int | None) -> None:
        self.sink.emit("misuse.queue_extension_command", t, seq, "c2a",
                       f"`{p.type}` with extension command /{name}; extension commands cannot be queued",
                       path="$.message", related=related)

    # ---- stdout ----------------------------------------------------------------------------
    def run_started(self) -> None:
        self.starting = None

    def prompt_closed(self, cid: Any) -> None:
        """omp's ``prompt_result`` for the prompt with id ``cid``: its work is over, run or not."""
        if self.starting is not None and self.starting.id == cid:
            self.starting = None

    def answered(self, t: float, seq: int, p: Pending, obj: dict[str, Any], again: bool) -> None:
        """The response ``obj`` (frame ``seq``) answers ``p``; ``again`` for a second response."""
        success = obj.get("success")
        if p.type == "prompt":
            no_run = success is True and starts_no_run(obj)
            if p is self.starting and not again and (success is not True or _slash_name(p.message) or no_run):
                self.starting = None
            if p.note in (_STREAMING, _IN_RUN) and success is False:
                p.note = None
                self.sink.emit("misuse.prompt_while_streaming", t, p.seq, "c2a",
                               "prompt without streamingBehavior sent while the agent was streaming; "
                               f"the agent rejected it (frame {seq})", related=seq)
            elif p.note == _IN_RUN and success is True and not no_run and not _slash_name(p.message):
                p.note = None
                self.sink.emit("misuse.prompt_while_streaming", t, p.seq, "c2a",
                               "prompt without streamingBehavior sent during a run; the agent accepted it "
                               f"(frame {seq}) but pi drops it silently (omp answers an error next)",
                               related=seq)
        elif isinstance(p.type, str) and p.type in QUEUE_COMMANDS:
            if self.idle_queue.pop(p.seq, None) is p and success is True and not again:
                self._queued_idle(t, seq, p, obj)
            if p.note == _EXT_MAYBE and success is False:
                error = obj.get("error")
                if isinstance(error, str) and "cannot be queued" in error:
                    self._queue_finding(t, p.seq, p, _slash_name(p.message) or "?", seq)
        elif p.type == "get_commands" and success is True:
            self._learn(obj.get("data"))

    def _queued_idle(self, t: float, seq: int, p: Pending, obj: dict[str, Any]) -> None:
        data = obj.get("data")
        disposition = data.get("disposition") if isinstance(data, dict) else None
        if disposition not in (None, "queued"):
            return  # "handled": an input handler consumed it
        said = ' `disposition:"queued"`' if disposition else ""
        self.sink.emit("misuse.queued_while_idle", t, p.seq, "c2a",
                       f"`{p.type}` sent while no run was active was accepted{said} (frame {seq}) and starts "
                       "nothing: it waits in the queue until a later prompt's run delivers it; a client that "
                       "waits for a run after it waits forever", related=seq)

    def _learn(self, data: Any) -> None:
        commands = data.get("commands") if isinstance(data, dict) else None
        if isinstance(commands, list):
            self.extension_commands = {
                c["name"] for c in commands
                if isinstance(c, dict) and c.get("source") == "extension" and isinstance(c.get("name"), str)
            }
