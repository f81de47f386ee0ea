"""The protocol facts the diagnosis rests on, in one place (protocol-notes sections 2, 4, 10, 11).

What a ``disposition`` means, which dialects settle, and the client-side limits of the agents'
own clients. The names it sorts frames by (which commands start or stop a run, which events end
or settle one) live in :mod:`rpcspy.protocol.vocabulary` and are re-exported here, so the
trackers read everything as ``K.*``; the dialect modules (:mod:`rpcspy.protocol`) own the schemas.
"""

from __future__ import annotations

# Names re-exported (the trackers read K.*); their home is the protocol vocabulary.
from rpcspy.protocol.vocabulary import COMPACTION_END as COMPACTION_END
from rpcspy.protocol.vocabulary import COMPACTION_START as COMPACTION_START
from rpcspy.protocol.vocabulary import DIALOGS as DIALOGS
from rpcspy.protocol.vocabulary import HOST_CALLS as HOST_CALLS
from rpcspy.protocol.vocabulary import HOST_CANCELS as HOST_CANCELS
from rpcspy.protocol.vocabulary import OMP_PROMPT_RESULT as OMP_PROMPT_RESULT
from rpcspy.protocol.vocabulary import OMP_SESSION_SETTLED as OMP_SESSION_SETTLED
from rpcspy.protocol.vocabulary import QUEUE_COMMANDS as QUEUE_COMMANDS
from rpcspy.protocol.vocabulary import QUEUE_UPDATE as QUEUE_UPDATE
from rpcspy.protocol.vocabulary import RETRY_END as RETRY_END
from rpcspy.protocol.vocabulary import RETRY_START as RETRY_START
from rpcspy.protocol.vocabulary import RUN_COMMANDS as RUN_COMMANDS
from rpcspy.protocol.vocabulary import RUN_END as RUN_END
from rpcspy.protocol.vocabulary import RUN_START as RUN_START
from rpcspy.protocol.vocabulary import SESSION_START_COMMANDS as SESSION_START_COMMANDS
from rpcspy.protocol.vocabulary import SETTLED as SETTLED
from rpcspy.protocol.vocabulary import STOP_COMMANDS as STOP_COMMANDS

DISPOSITION_STARTS = "started"
DISPOSITION_QUEUED = "queued"
DISPOSITION_HANDLED = "handled"
DISPOSITIONS: dict[str, str] = {
    DISPOSITION_STARTS: "a run starts",
    DISPOSITION_QUEUED: "it waits in the queue of the run in progress",
    DISPOSITION_HANDLED: "an extension or input handler consumed it and no run starts",
}
"""pi >= 0.99 ``data.disposition`` of ``prompt``/``steer``/``follow_up`` success responses."""


CLIENT_TIMEOUT = 30.0
UNSAID_HANDLED_GRACE = 1.0
"""pi before 0.99 answers a ``/name`` prompt without a disposition: an extension command runs without a run,
and nothing says so. A client that waits for the run takes it as handled after this many seconds without
``agent_start`` (a real run starts within milliseconds of its response)."""
"""Seconds pi's bundled ``RpcClient`` gives every command before it gives up."""

OMP_FRAME_CAP = 1 << 20
"""omp's physical frame cap (``ready.maxFrameBytes``) without protocol v2."""
OMP_CAP_MARKS = (b"elided for RPC frame]", b"exceeded the transport limit")
"""Text omp puts in a frame it shrank or replaced because it was over the cap."""
OMP_NEGOTIATE = "negotiate_protocol"

JSONRPC_KEYS = ("jsonrpc", "method")
"""Keys of a JSON-RPC request, which pi and omp do not speak (they read ``type``)."""

FORWARDED_SIGNAL = "forwarded "
"""How the proxy's note of a signal it passed to the agent begins (``forwarded SIGTERM to ...``)."""
SHUTDOWN_SIGNALS = {129: "SIGHUP", 130: "SIGINT", 131: "SIGQUIT", 134: "SIGABRT", 137: "SIGKILL", 139: "SIGSEGV",
                    143: "SIGTERM"}
"""Exit statuses 128+N that say signal N ended the agent (pi exits 143 and 129 itself on SIGTERM and
SIGHUP, after an orderly shutdown: protocol-notes 11.1); they are not the client's EOF."""
