"""The protocol facts the diagnosis rests on, in one place (protocol-notes sections 2, 4, 10, 11).

Which commands start a run, which events end or settle one per dialect, what a
``disposition`` means, and the client-side limits of the agents' own clients. The
dialect modules (:mod:`rpcspy.protocol`) own the schemas; this module owns only the
*meaning* the diagnosis needs, so a new agent version is one edit here.
"""

from __future__ import annotations

from rpcspy.protocol.vocabulary import DIALOGS as DIALOGS  # re-exported: the trackers read K.*
from rpcspy.protocol.vocabulary import QUEUE_COMMANDS as QUEUE_COMMANDS
from rpcspy.protocol.vocabulary import RUN_COMMANDS as RUN_COMMANDS

STOP_COMMANDS = frozenset({"abort", "abort_and_prompt", "compact", "new_session", "switch_session", "fork",
                           "clone", "branch", "open_session", "handoff"})
"""Commands that end (or may tear down) a run in progress; their response can come after its settle."""

DISPOSITION_STARTS = "started"
DISPOSITION_QUEUED = "queued"
DISPOSITION_HANDLED = "handled"
DISPOSITIONS: dict[str, str] = {
    DISPOSITION_STARTS: "a run starts",
    DISPOSITION_QUEUED: "it waits in the queue of the run in progress",
    DISPOSITION_HANDLED: "an extension or input handler consumed it and no run starts",
}
"""pi >= 0.99 ``data.disposition`` of ``prompt``/``steer``/``follow_up`` success responses."""

RUN_START = "agent_start"
RUN_END = "agent_end"
SETTLED = "agent_settled"
"""pi >= 0.84: the agent is idle (after the run, its retries, compaction and queued messages)."""
OMP_PROMPT_RESULT = "prompt_result"
"""omp >= 18.3: closes one accepted prompt (by its id), after its work settles."""
OMP_SESSION_SETTLED = "session_settled"
SETTLING_DIALECTS = frozenset({"pi-0.84", "pi-0.99"})
"""Dialects whose agent emits ``agent_settled`` (also assumed once one is seen); tests/protocol/
test_vocabulary.py checks this against the dialects' schemas."""

COMPACTION_START = frozenset({"compaction_start", "auto_compaction_start"})
COMPACTION_END = frozenset({"compaction_end", "auto_compaction_end"})
RETRY_START = "auto_retry_start"
RETRY_END = "auto_retry_end"
QUEUE_UPDATE = "queue_update"
"""pi: full current queues (``steering``, ``followUp``) on every change."""

HOST_CALLS: dict[str, str] = {"host_tool_call": "host_tool_result", "host_uri_request": "host_uri_result"}
"""omp requests to the host and the client frame that answers each."""
HOST_CANCELS: dict[str, str] = {"host_tool_cancel": "host_tool_call", "host_uri_cancel": "host_uri_request"}

CLIENT_TIMEOUT = 30.0
"""Seconds pi's bundled ``RpcClient`` gives every command before it gives up."""

OMP_FRAME_CAP = 1 << 20
"""omp's physical frame cap (``ready.maxFrameBytes``) without protocol v2."""
OMP_CAP_MARKS = (b"elided for RPC frame]", b"exceeded the transport limit")
"""Text omp puts in a frame it shrank or replaced because it was over the cap."""
OMP_NEGOTIATE = "negotiate_protocol"

JSONRPC_KEYS = ("jsonrpc", "method")
"""Keys of a JSON-RPC request, which pi and omp do not speak (they read ``type``)."""
