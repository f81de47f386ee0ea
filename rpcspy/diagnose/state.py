"""The tracker's state: what is in flight (:class:`InFlight`), a client command and what became of it,
a request the agent waits on."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from rpcspy.diagnose import knowledge as K
from rpcspy.diagnose.items import Item
from rpcspy.protocol.detect import DialectDetector
from rpcspy.protocol.pairing import Pairing
from rpcspy.protocol.spec import SETTLING_DIALECTS, spec_of


@dataclass(slots=True, eq=False)
class Cmd:
    """A client command and what became of it (which response answers it is the tracker's
    :class:`~rpcspy.protocol.pairing.Pairing`'s to say: each command's ``Pending.note`` is its Cmd)."""

    seq: int
    t: float
    type: str | None
    id: Any
    busy: bool
    """The agent was busy (a run open or not yet settled) when it was sent."""
    resp: int | None = None
    resp_t: float = 0.0
    success: Any = None
    disposition: str | None = None
    message: str | None = None
    behavior: bool = False
    """A prompt carrying ``streamingBehavior`` (queued when sent during a run)."""
    behind: bool = False
    """A run command sent while an earlier one had not started its run yet."""

    @property
    def slash(self) -> bool:
        """A prompt naming a command (``/name``): an extension command may run without a run."""
        return isinstance(self.message, str) and self.message.startswith("/")


@dataclass(slots=True)
class Waiting:
    """Something the agent asked for and waits on (a dialog, a host tool call or URI request)."""

    seq: int
    t: float
    kind: str
    id: Any
    what: str
    deadline: float | None = None


@dataclass
class InFlight:
    """What is in flight in a session: the state a client waits on, moved by the tracker's frames."""

    client_timeout: float = K.CLIENT_TIMEOUT
    detector: DialectDetector = field(default_factory=DialectDetector)
    pairing: Pairing = field(default_factory=lambda: Pairing(bounded=True))
    """Which command each response answers (the one pairing model); bounded, as the tracker runs live."""
    starting: list[Cmd] = field(default_factory=list)
    """Run commands sent and not refused whose run has not started."""
    run: int | None = None
    """Seq of the open run's agent_start."""
    run_by: Cmd | None = None
    ended: int | None = None
    """Seq of the agent_end still waiting for its agent_settled (settling dialects)."""
    will_retry: bool = False
    settles: bool = False
    last_settle: int | None = None
    omp_open: dict[Any, Cmd] = field(default_factory=dict)
    """omp prompts accepted and not yet closed by prompt_result."""
    omp_results: bool = False
    """omp >= 18.3 (prompt_result, session_settled or messageId seen): accepted prompts await prompt_result."""
    omp_settle_due: int | None = None
    """Seq of a prompt_result with sessionSettled:false; session_settled not yet seen."""
    waiting: dict[Any, Waiting] = field(default_factory=dict)
    asked: dict[Any, str] = field(default_factory=dict)
    """Every extension_ui_request id the agent sent (bounded) -> its method: an answer to another id
    answers nothing."""
    stray_answers: list[tuple[int, Any]] = field(default_factory=list)
    """(seq, id) of extension_ui_responses to ids the agent never asked for (the last few)."""
    queued: list[Cmd] = field(default_factory=list)
    queue_update: tuple[int, list[Any], list[Any]] | None = None
    tools: dict[Any, list[Any]] = field(default_factory=dict)
    """Open tool executions: toolCallId -> [start seq, start t, tool name, last update seq]."""
    compaction: tuple[int, float, str] | None = None
    retry: tuple[int, float] | None = None
    handled: Cmd | None = None
    """The last run command answered ``handled``."""
    v2: bool = False
    frame_cap: int = K.OMP_FRAME_CAP
    negotiating: set[Any] = field(default_factory=set)
    last: dict[str, tuple[int, float]] = field(default_factory=dict)
    """Direction -> (seq, t) of its last frame."""
    eof: dict[str, tuple[int, float]] = field(default_factory=dict)
    exit: tuple[int, float, int] | None = None
    exit_signal: int | None = None
    """The signal that killed the agent, when the recording says so (``exit.signal``)."""
    signalled: tuple[int, str] | None = None
    """(seq, name) of the last signal the proxy forwarded to the agent (a recording's note)."""
    pitfalls: list[Item] = field(default_factory=list)
    last_cmd: Cmd | None = None
    """The command of the last client frame (None after an answer or a non-command)."""
    frames: int = 0
    t: float = 0.0
    acp: Any = None
    """An ACP session (JSON-RPC; :class:`rpcspy.protocol.acp_state.AcpState`) once its first message showed
    it: then it takes every frame, and :func:`rpcspy.diagnose.acp.acp_diagnosis` explains it."""

    @property
    def dialect(self) -> str:
        return self.detector.dialect

    @property
    def omp(self) -> bool:
        spec = spec_of(self.dialect)
        return spec is not None and spec.omp_family

    @property
    def settling(self) -> bool:
        """The agent emits agent_settled (by dialect, or one was seen)."""
        return self.settles or self.dialect in SETTLING_DIALECTS

    @property
    def busy(self) -> bool:
        return self.run is not None or self.ended is not None

    def unanswered(self) -> list[Cmd]:
        """Commands still waiting for their response, oldest first."""
        return [p.note for p in self.pairing.unanswered() if p.note is not None]
