"""How each agent event moves a :class:`~rpcspy.diagnose.state.InFlight` (a tracker's state): runs opened, ended and
settled, omp's prompt results, queued messages, tool executions, compaction, retries, and the
dialogs and host calls the agent waits on. Pure: no I/O, never raises on bad frames.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rpcspy.diagnose import knowledge as K
from rpcspy.diagnose import pitfalls as P
from rpcspy.diagnose.state import InFlight, Waiting
from rpcspy.protocol.bounded import trim_oldest
from rpcspy.protocol.pairing import id_key

ASKED_CAP = 4096
"""UI request ids remembered, to tell an answer to an id never asked for (the tracker runs live: bounded)."""


def agent_start(tr: InFlight, seq: int, t: float, obj: dict[str, Any]) -> None:
    if tr.run is None or not tr.omp:  # omp's retry saga opens a new run without agent_end
        tr.run_by = tr.starting.pop(0) if tr.starting else None
    tr.run = seq
    tr.ended = None
    tr.retry = None if tr.retry is not None and not tr.omp else tr.retry


def agent_end(tr: InFlight, seq: int, t: float, obj: dict[str, Any]) -> None:
    tr.run = None
    tr.tools.clear()
    tr.will_retry = obj.get("willRetry") is True
    if "messageCount" in obj and tr.omp and not tr.v2:
        tr.pitfalls.append(P.over_cap(seq, "agent_end", tr.frame_cap))
    if tr.settling:
        tr.ended = seq
    else:
        settled(tr, seq)


def agent_settled(tr: InFlight, seq: int, t: float, obj: dict[str, Any]) -> None:
    tr.settles = True
    if tr.run is None:  # pi 0.87 may settle inside a run after a dropped prompt: the run goes on
        settled(tr, seq)


def settled(tr: InFlight, seq: int) -> None:
    for cmd in [c for c in tr.starting if c.resp is not None and c.resp < seq]:
        tr.starting.remove(cmd)  # its run never came: consumed (an extension command) or dropped
        if cmd.behind and not cmd.slash:
            tr.pitfalls.append(P.dropped(cmd, seq))
    tr.ended = None
    tr.last_settle = seq
    tr.queued.clear()
    tr.queue_update = None
    tr.compaction = None


def prompt_result(tr: InFlight, seq: int, t: float, obj: dict[str, Any]) -> None:
    tr.omp_results = True
    if "id" in obj:
        cmd = tr.omp_open.pop(id_key(obj["id"]), None)
        if cmd is not None and cmd in tr.starting:
            tr.starting.remove(cmd)
    tr.omp_settle_due = None if obj.get("sessionSettled") is not False else seq


def session_settled(tr: InFlight, seq: int, t: float, obj: dict[str, Any]) -> None:
    tr.omp_results = True
    tr.omp_settle_due = None
    tr.last_settle = seq


def message_start(tr: InFlight, seq: int, t: float, obj: dict[str, Any]) -> None:
    message = obj.get("message")
    if "messageId" in obj:
        tr.omp_results = True
    if tr.queue_update is None and isinstance(message, dict) and message.get("role") == "user":
        if tr.queued and tr.run is not None:
            tr.queued.pop(0)


def queue_update(tr: InFlight, seq: int, t: float, obj: dict[str, Any]) -> None:
    steering, follow_up = obj.get("steering"), obj.get("followUp")
    tr.queue_update = (seq, steering if isinstance(steering, list) else [],
                         follow_up if isinstance(follow_up, list) else [])


def tool_start(tr: InFlight, seq: int, t: float, obj: dict[str, Any]) -> None:
    name = obj.get("toolName")
    tr.tools[id_key(obj.get("toolCallId"))] = [seq, t, name if isinstance(name, str) else "?", None]


def tool_update(tr: InFlight, seq: int, t: float, obj: dict[str, Any]) -> None:
    tool = tr.tools.get(id_key(obj.get("toolCallId")))
    if tool is not None:
        tool[3] = seq


def tool_end(tr: InFlight, seq: int, t: float, obj: dict[str, Any]) -> None:
    tr.tools.pop(id_key(obj.get("toolCallId")), None)


def compaction_start(tr: InFlight, seq: int, t: float, obj: dict[str, Any]) -> None:
    reason = obj.get("reason")
    tr.compaction = (seq, t, reason if isinstance(reason, str) else "")


def compaction_end(tr: InFlight, seq: int, t: float, obj: dict[str, Any]) -> None:
    tr.compaction = None


def retry_start(tr: InFlight, seq: int, t: float, obj: dict[str, Any]) -> None:
    tr.retry = (seq, t)


def retry_end(tr: InFlight, seq: int, t: float, obj: dict[str, Any]) -> None:
    tr.retry = None


def ui_request(tr: InFlight, seq: int, t: float, obj: dict[str, Any]) -> None:
    method, rid = obj.get("method"), obj.get("id")
    tr.asked[id_key(rid)] = method if isinstance(method, str) else "?"
    trim_oldest(tr.asked, ASKED_CAP)
    if method in K.DIALOGS:  # a Names set: False for a method that is no string
        timeout = obj.get("timeout")
        deadline = t + timeout / 1000.0 if isinstance(timeout, (int, float)) and timeout > 0 else None
        title = obj.get("title")
        what = f"`{method}` dialog" + (f" {title!r}" if isinstance(title, str) and title else "")
        tr.waiting[id_key(rid)] = Waiting(seq, t, "dialog", rid, what, deadline)
    elif method == "cancel":
        tr.waiting.pop(id_key(obj.get("targetId")), None)


def host_call(tr: InFlight, seq: int, t: float, obj: dict[str, Any]) -> None:
    etype = obj.get("type")
    what = (f"host tool call `{obj.get('toolName')}`" if etype == "host_tool_call"
            else f"host URI request {obj.get('operation')} {obj.get('url')}")
    tr.waiting[id_key(obj.get("id"))] = Waiting(seq, t, "host", obj.get("id"), what)


def host_cancel(tr: InFlight, seq: int, t: float, obj: dict[str, Any]) -> None:
    tr.waiting.pop(id_key(obj.get("targetId")), None)


def ready(tr: InFlight, seq: int, t: float, obj: dict[str, Any]) -> None:
    cap = obj.get("maxFrameBytes")
    if isinstance(cap, int) and cap > 0:
        tr.frame_cap = cap


def frame_error(tr: InFlight, seq: int, t: float, obj: dict[str, Any]) -> None:
    if not tr.v2:
        original = obj.get("originalType")
        tr.pitfalls.append(P.over_cap(seq, original if isinstance(original, str) else None, tr.frame_cap))


EVENTS: dict[str, Callable[[InFlight, int, float, dict[str, Any]], None]] = {
    K.RUN_START: agent_start, K.RUN_END: agent_end, K.SETTLED: agent_settled,
    K.OMP_PROMPT_RESULT: prompt_result, K.OMP_SESSION_SETTLED: session_settled,
    "message_start": message_start, K.QUEUE_UPDATE: queue_update,
    "tool_execution_start": tool_start, "tool_execution_update": tool_update,
    "tool_execution_end": tool_end,
    **{name: compaction_start for name in K.COMPACTION_START},
    **{name: compaction_end for name in K.COMPACTION_END},
    K.RETRY_START: retry_start, K.RETRY_END: retry_end,
    "extension_ui_request": ui_request,
    **{name: host_call for name in K.HOST_CALLS},
    **{name: host_cancel for name in K.HOST_CANCELS},
    "ready": ready, "rpc_frame_error": frame_error,
}
