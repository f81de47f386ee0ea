"""Extension UI sub-protocol: dialog requests (stdout) and their answers (stdin)."""

from __future__ import annotations

from typing import Any

from rpcspy.checker.findings import Sink
from rpcspy.protocol.bounded import trim_oldest
from rpcspy.protocol.ui import ANSWER_FIELDS
from rpcspy.protocol.vocabulary import DIALOGS

_VALUE_DIALOGS = frozenset(m for m, keys in ANSWER_FIELDS.items() if "value" in keys)
_CAP = 65536
AUTO_CANCEL_WITHIN = 0.05
"""Seconds: a dialog cancelled this soon after it was asked was cancelled by a program, not by a person.
Reading and dismissing a dialog takes a person a few hundred milliseconds at the very least; a host that
cancels by program answers within a millisecond, a few on a loaded machine. 50 ms keeps a wide margin on
both sides (the rule's explanation says so)."""

TIMEOUT_MEANS = {
    "confirm": "`false`, as if the user had declined",
    "select": "`undefined`, as if nothing had been chosen",
    "input": "`undefined`, as if nothing had been entered",
    "editor": "`undefined`, as if the editor had been closed",
}
"""What pi resolves a dialog to when its ``timeout`` expires, or when it is answered with the wrong shape
(protocol-notes 5.2): the extension goes on with this, and no frame tells the client."""


def timeout_means(method: str) -> str:
    return TIMEOUT_MEANS.get(method, "its default")


class Dialog:
    __slots__ = ("seq", "t", "method", "deadline", "answered_at", "closed")

    def __init__(self, seq: int, t: float, method: str, deadline: float | None) -> None:
        self.seq, self.t, self.method, self.deadline = seq, t, method, deadline
        self.answered_at: int | None = None
        self.closed = False
        """Answered, timed out or cancelled by the agent: no longer blocks anything."""


def _shape_error(method: str, obj: dict[str, Any]) -> str | None:
    """Why ``obj`` is not a valid answer to a ``method`` dialog, or None."""
    if obj.get("cancelled") is True:
        return None
    if method == "confirm":
        if isinstance(obj.get("confirmed"), bool):
            return None
        got = "value" if "value" in obj else "no answer field"
        return f"`confirm` takes {{confirmed: bool}} or {{cancelled: true}}, got {got}; pi resolves it as false"
    if method in _VALUE_DIALOGS:
        if isinstance(obj.get("value"), str):
            return None
        got = "confirmed" if "confirmed" in obj else "value of another type" if "value" in obj else "no answer field"
        return f"`{method}` takes {{value: string}} or {{cancelled: true}}, got {got}; pi resolves it as undefined"
    return None


class UiTracker:
    """Pending dialogs by id, and the ids of fire-and-forget requests."""

    def __init__(self, sink: Sink) -> None:
        self.sink = sink
        self.dialogs: dict[str, Dialog] = {}
        self._fire_and_forget: dict[str, str] = {}
        self._open: dict[str, Dialog] = {}
        self.asked = 0
        """Dialogs the agent asked for in the session."""
        self.auto_cancelled = 0
        """Of those, answered ``cancelled`` within :data:`AUTO_CANCEL_WITHIN` (a timed recording only)."""
        self.first_cancel: tuple[float, int, Dialog] | None = None

    @property
    def blocked(self) -> bool:
        """True while a dialog without answer is open (a command may be waiting on the user)."""
        return bool(self._open)

    def request(self, seq: int, t: float, obj: dict[str, Any]) -> None:
        rid, method = obj.get("id"), obj.get("method")
        if not isinstance(rid, str) or not isinstance(method, str):
            return  # the schema rules report it
        if method in DIALOGS:
            timeout = obj.get("timeout")
            deadline = t + timeout / 1000.0 if isinstance(timeout, (int, float)) and timeout > 0 else None
            self.dialogs[rid] = self._open[rid] = Dialog(seq, t, method, deadline)
            self.asked += 1
            self._trim(self.dialogs)
        elif method == "cancel":  # omp: the agent withdrew a dialog
            target_id = obj.get("targetId")
            target = self._open.pop(target_id, None) if isinstance(target_id, str) else None
            if target is not None:
                target.closed = True
        else:
            self._fire_and_forget[rid] = method
            self._trim(self._fire_and_forget)

    def response(self, seq: int, t: float, obj: dict[str, Any]) -> None:
        rid = obj.get("id")
        if not isinstance(rid, str):
            return  # missing or mistyped id: the schema rules report it
        dialog = self.dialogs.get(rid)
        if dialog is None:
            method = self._fire_and_forget.get(rid)
            if method is not None:
                self.sink.emit("correlation.ui_fire_and_forget", t, seq, "c2a",
                               f"answer to a `{method}` request, which expects none", path="$.id")
            else:
                self.sink.emit("correlation.ui_unknown_id", t, seq, "c2a",
                               f"answer to dialog id {rid!r}, which was never requested", path="$.id")
            return
        if dialog.answered_at is not None:
            self.sink.emit("correlation.ui_duplicate", t, seq, "c2a",
                           f"second answer to the `{dialog.method}` dialog (first at frame {dialog.answered_at})",
                           path="$.id", related=dialog.seq)
            return
        dialog.answered_at = seq
        dialog.closed = True
        self._open.pop(rid, None)
        timed = t > 0 or dialog.t > 0  # raw transcripts carry no times
        if obj.get("cancelled") is True and timed and t - dialog.t <= AUTO_CANCEL_WITHIN:
            self.auto_cancelled += 1
            if self.first_cancel is None:
                self.first_cancel = (t, seq, dialog)
        problem = _shape_error(dialog.method, obj)
        if problem:
            self.sink.emit("correlation.ui_wrong_shape", t, seq, "c2a", problem, related=dialog.seq)
        if dialog.deadline is not None and t > dialog.deadline and dialog.t > 0:
            self.sink.emit("correlation.ui_late", t, seq, "c2a",
                           f"`{dialog.method}` answered {t - dialog.t:.2f} s after the request, past its "
                           f"timeout of {dialog.deadline - dialog.t:.2f} s: the agent had already resolved it to "
                           f"{timeout_means(dialog.method)}, and ignores this answer", related=dialog.seq)

    def expire(self, now: float) -> None:
        """Dialogs whose timeout passed were resolved by the agent (silently): said once, as unanswered."""
        if not self._open:
            return
        for rid in [rid for rid, d in self._open.items() if d.deadline is not None and now > d.deadline]:
            self._unanswered(now, rid, self._open.pop(rid))

    def _unanswered(self, t: float, rid: str, d: Dialog) -> None:
        d.closed = True
        if d.deadline is not None and t > d.deadline:
            text = (f"`{d.method}` dialog {rid!r} was never answered: when its timeout of "
                    f"{d.deadline - d.t:.2f} s expired the agent resolved it to {timeout_means(d.method)}, "
                    "and told the client nothing")
        elif d.deadline is not None:
            text = (f"`{d.method}` dialog {rid!r} was never answered (the session ended before its timeout of "
                    f"{d.deadline - d.t:.2f} s, which would have resolved it to {timeout_means(d.method)})")
        else:
            text = (f"`{d.method}` dialog {rid!r} was never answered (it has no timeout: the extension, and any "
                    "command waiting on it, waits until the dialog is answered)")
        self.sink.emit("correlation.ui_unanswered", t, d.seq, "a2c", text)

    def finish(self, t: float) -> None:
        for rid, d in list(self._open.items()):
            self._unanswered(t, rid, d)
        self._open.clear()
        if self.asked and self.auto_cancelled == self.asked and self.first_cancel is not None:
            at, seq, first = self.first_cancel
            every = "the only dialog" if self.asked == 1 else f"all {self.asked} dialogs"
            self.sink.emit("correlation.ui_auto_cancelled", at, seq, "c2a",
                           f"the client cancelled {every} of the session within {AUTO_CANCEL_WITHIN * 1000:.0f} ms "
                           "of the request, faster than anyone can read one: its host answers dialogs by program, "
                           "so no user saw them and each reads to the extension as dismissed (a permission "
                           "`confirm` as declined)", related=first.seq)

    @staticmethod
    def _trim(table: dict[str, Any]) -> None:
        trim_oldest(table, _CAP)
