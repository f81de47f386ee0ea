"""Schema rules: the protocol package's validator, per dialect, and dialect auto-detection.

Until ``--dialect auto`` has decided, each frame is validated against every
dialect and only the issues all of them agree on are reported (worded "in any
dialect"), so early frames common to all dialects are checked without guessing.
The last :data:`DEFERRED_CAP` client frames checked that way are checked again
against the dialect once it is detected. ``rpcspy check`` avoids all this by
detecting the dialect first (:func:`detect_dialect`).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import msgspec

from rpcspy.checker.findings import Sink
from rpcspy.events import Frame
from rpcspy.framing import DECODE_ERRORS

AUTO = "auto"
UNDECIDED = "not detected: no agent frame told the dialects apart; checked what all of them agree on"
DEFERRED_CAP = 64
"""Client frames kept for a second check once the dialect is detected."""
REFINE_CAP = 5000
"""Agent frames watched after a refinable detection (pi-0.84 -> pi-0.99) before it is final."""
_KINDS = frozenset({"unknown_type", "missing_field", "wrong_type", "bad_enum", "unknown_field", "invalid"})


@dataclass(frozen=True, slots=True)
class Traits:
    """What the other checkers need to know about a dialect (derived from its :class:`~rpcspy.protocol.spec.Spec`)."""

    blank_lines_skipped: bool = False
    """Blank client lines get no answer, and `prompt` may get success then error with one id."""
    retry_in_run: bool = False
    """A retry's ``agent_start`` comes inside the failed run (omp's retry saga)."""
    settles: bool = False
    """Session commands close a running run before answering (the agent settles)."""
    jsonrpc: bool = False
    """JSON-RPC 2.0 (ACP): the ACP rules (:mod:`rpcspy.checker.acp`) take the frames, not pi's."""
    idle_queue_unknown: bool = False
    """Whether a ``steer``/``follow_up`` sent while idle waits for the next prompt is not known (omp's family)."""
    agent_types: frozenset[str] = frozenset()
    """Agent frame types the dialect knows (empty while undecided: then every type counts as known)."""

    def knows(self, agent_type: str) -> bool:
        return not self.agent_types or agent_type in self.agent_types


def traits_of(dialect: str) -> Traits:
    from rpcspy.protocol import get_protocol
    from rpcspy.protocol.spec import SPECS

    if SPECS[dialect].jsonrpc:
        return Traits(jsonrpc=True)
    proto = get_protocol(dialect)
    spec = proto.spec
    return Traits(blank_lines_skipped=spec.blank_lines_skipped, retry_in_run=spec.retry_in_run,
                  settles=spec.settles, idle_queue_unknown=spec.omp_family, agent_types=frozenset(proto.a2c))


def known_dialects() -> tuple[str, ...]:
    """The dialect names the protocol package defines."""
    from rpcspy.protocol.spec import DIALECTS

    return DIALECTS


class SchemaChecker:
    """Validates decoded objects and reports ``schema.*`` findings with their JSON path."""

    def __init__(self, sink: Sink, dialect: str = AUTO, reason: str | None = None) -> None:
        from rpcspy.protocol import DialectDetector, SchemaIssue, validate

        self.sink = sink
        self._validate = validate
        self.requested = dialect
        self.dialects = known_dialects()
        from rpcspy.protocol.spec import JSONL_DIALECTS

        self.jsonl = JSONL_DIALECTS
        """What an undecided session's pi-style frame is checked against (every dialect without JSON-RPC)."""
        if dialect != AUTO and dialect not in self.dialects:
            raise ValueError(f"unknown dialect {dialect!r} (expected auto or one of {', '.join(self.dialects)})")
        self._detector = DialectDetector() if dialect == AUTO else None
        self.dialect: str | None = None if dialect == AUTO else dialect
        self.reason = reason or ("chosen with --dialect" if dialect != AUTO else UNDECIDED)
        self.traits = traits_of(self.dialect) if self.dialect else Traits()
        self._issue = SchemaIssue
        self._deferred: deque[tuple[int, dict[str, Any], frozenset[tuple[str, str]]]] = deque(maxlen=DEFERRED_CAP)
        """(seq, object, (kind, path) already reported) of client frames checked while undecided."""
        self._refine_left = REFINE_CAP

    @property
    def refining(self) -> bool:
        """Detected, but a later agent frame may still refine the dialect (pi-0.84 -> pi-0.99)."""
        return self._detector is not None and self.dialect is not None and self._detector.refinable \
            and self._refine_left > 0

    def refine(self, seq: int, data: bytes) -> None:
        """While :attr:`refining`: look at one agent frame's bytes before it is validated."""
        self._refine_left -= 1
        if b'"disposition"' not in data and b'"agent_settled"' not in data and b'"success"' not in data:
            return
        try:
            obj = msgspec.json.decode(data)
        except DECODE_ERRORS:
            return
        found = self._detector.feed(obj, "a2c") if self._detector is not None else None
        if found and found != self.dialect:
            self.dialect = found
            self.reason = f"frame {seq}: {self._detector.reason}"  # type: ignore[union-attr]
            self.traits = traits_of(found)

    def report(self, t: float, seq: int, direction: str, issues: list[Any], note: str = "") -> None:
        for issue in issues:
            kind = issue.kind if issue.kind in _KINDS else "invalid"
            if kind == "unknown_type" and direction == "a2c":  # a newer agent, most likely: not an error
                self.sink.emit("schema.unknown_agent_type", t, seq, direction,
                               f"{issue.message}: a newer agent?" + note, path=issue.path or None)
                continue
            self.sink.emit(f"schema.{kind}", t, seq, direction, issue.message + note, path=issue.path or None)

    def feed(self, t: float, seq: int, direction: str, obj: dict[str, Any]) -> None:
        """Validate a decoded object (feeding the dialect detector while it is undecided)."""
        if self._detector is not None and (self.dialect is None or self.refining):
            found = self._detector.feed(obj, direction)
            if found:
                self._detected(t, seq, found)
        if self.dialect is not None:
            issues = self._validate(obj, direction, self.dialect)
        else:
            issues = self._common_issues(obj, direction)
            if direction == "c2a":
                self._deferred.append((seq, obj, frozenset((i.kind, i.path) for i in issues)))
        if issues:
            self.report(t, seq, direction, issues)

    def _detected(self, t: float, seq: int, dialect: str) -> None:
        """Frame ``seq`` decided the dialect: check the deferred client frames against it."""
        self.dialect = dialect
        self.reason = f"frame {seq}: {getattr(self._detector, 'reason', '') or 'detected from the traffic'}"
        self.traits = traits_of(dialect)
        note = f" (checked once frame {seq} showed the dialect {dialect})"
        for old, obj, reported in self._deferred:
            issues = [i for i in self._validate(obj, "c2a", dialect) if (i.kind, i.path) not in reported]
            if issues:
                self.report(t, old, "c2a", issues, note)
        self._deferred.clear()

    def _common_issues(self, obj: dict[str, Any], direction: str) -> list[Any]:
        """Issues every dialect reports (by kind and path), worded for any dialect."""
        if "jsonrpc" in obj and obj.get("method") == "initialize":  # the detector decided on it: ACP
            return []
        first: list[Any] | None = None
        common: set[tuple[str, str]] | None = None
        for name in self.jsonl:
            issues = self._validate(obj, direction, name)
            keys: set[tuple[str, str]] = {(i.kind, i.path) for i in issues}
            if first is None:
                first, common = issues, keys
            else:
                common &= keys  # type: ignore[operator]
            if not common:
                return []
        name = f" in {self.jsonl[0]}"
        return [self._issue(i.kind, i.path, i.message.replace(name, " in any dialect"))
                for i in first or [] if (i.kind, i.path) in (common or set())]


def detect_dialect(frames: Iterable[Frame], *, refine: bool = True) -> tuple[str, str] | None:
    """``(dialect, reason)`` from the first agent frame that tells the dialects apart, else None.

    A streaming pass for ``rpcspy check --dialect auto``: it stops at the deciding frame (with
    ``refine``, up to :data:`REFINE_CAP` agent frames later for a decision a later frame may refine).
    """
    from rpcspy.protocol import DialectDetector

    detector = DialectDetector()
    decode = msgspec.json.decode
    found: tuple[str, str] | None = None
    left = REFINE_CAP
    for frame in frames:
        if frame.dir != "a2c" and (frame.dir != "c2a" or found is not None or b'"initialize"' not in frame.data):
            continue
        try:
            obj = decode(frame.data)
        except DECODE_ERRORS:
            continue
        if detector.feed(obj, frame.dir):
            found = detector.dialect, f"frame {frame.seq}: {detector.reason}"
        if found is not None:
            left -= 1
            if not refine or not detector.refinable or left <= 0:
                return found
    return found
