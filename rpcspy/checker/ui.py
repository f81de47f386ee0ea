"""Extension UI sub-protocol: dialog requests (stdout) and their answers (stdin)."""

from __future__ import annotations

from typing import Any

from rpcspy.protocol.bounded import trim_oldest
from rpcspy.checker.findings import Sink
from rpcspy.protocol.ui import ANSWER_FIELDS
from rpcspy.protocol.vocabulary import DIALOGS

_VALUE_DIALOGS = frozenset(m for m, keys in ANSWER_FIELDS.items() if "value" in keys)
_CAP = 65536


class Dialog:
    __slots__ = ("seq", "t", "method", "deadline", "answered_at", "closed")

    def __init__(self, seq: int, t: float, method: str, deadline: float | None) -> None:
        self.seq, self.t, self.method, self.deadline = seq, t, method, deadline
        self.answered_at: int | None = None
        self.closed = False
        """Answered, timed out or cancelled by the agent: no longer blocks anything."""


def _shape_error(method: str, obj: dict) -> str | None:
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

    @property
    def blocked(self) -> bool:
        """True while a dialog without answer is open (a command may be waiting on the user)."""
        return bool(self._open)

    def request(self, seq: int, t: float, obj: dict) -> None:
        rid, method = obj.get("id"), obj.get("method")
        if not isinstance(rid, str) or not isinstance(method, str):
            return  # the schema rules report it
        if method in DIALOGS:
            timeout = obj.get("timeout")
            deadline = t + timeout / 1000.0 if isinstance(timeout, (int, float)) and timeout > 0 else None
            self.dialogs[rid] = self._open[rid] = Dialog(seq, t, method, deadline)
            self._trim(self.dialogs)
        elif method == "cancel":  # omp: the agent withdrew a dialog
            target_id = obj.get("targetId")
            target = self._open.pop(target_id, None) if isinstance(target_id, str) else None
            if target is not None:
                target.closed = True
        else:
            self._fire_and_forget[rid] = method
            self._trim(self._fire_and_forget)

    def response(self, seq: int, t: float, obj: dict) -> None:
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
        problem = _shape_error(dialog.method, obj)
        if problem:
            self.sink.emit("correlation.ui_wrong_shape", t, seq, "c2a", problem, related=dialog.seq)
        if dialog.deadline is not None and t > dialog.deadline and dialog.t > 0:
            self.sink.emit("correlation.ui_late", t, seq, "c2a",
                           f"`{dialog.method}` answered {t - dialog.t:.2f} s after the request, past its "
                           f"timeout of {dialog.deadline - dialog.t:.2f} s; the answer is ignored",
                           related=dialog.seq)

    def expire(self, now: float) -> None:
        """Dialogs whose timeout passed were resolved by the agent (silently)."""
        if not self._open:
            return
        for rid in [rid for rid, d in self._open.items() if d.deadline is not None and now > d.deadline]:
            self._open.pop(rid).closed = True

    def finish(self, t: float) -> None:
        for rid, d in self._open.items():
            if d.deadline is None or t <= d.deadline:
                self.sink.emit("correlation.ui_unanswered", t, d.seq, "a2c",
                               f"`{d.method}` dialog {rid!r} was never answered")
        self._open.clear()

    @staticmethod
    def _trim(table: dict[str, Any]) -> None:
        trim_oldest(table, _CAP)
