"""``rpcspy check`` of one recording: the checker over a :class:`~rpcspy.offline.Reading`, in one loop."""

from __future__ import annotations

from dataclasses import dataclass

from rpcspy.checker.engine import Checker
from rpcspy.checker.offline import RecordingCheck, ends_and_notes
from rpcspy.checker.recording import RecordingAudit
from rpcspy.checker.report import Result
from rpcspy.checker.sides import absent_note
from rpcspy.events import Exit, Note
from rpcspy.offline.reading import Reading


@dataclass(frozen=True)
class CheckOptions:
    """What ``check``'s options ask of the checker."""

    dialect: str = "auto"
    """A dialect's name, or ``auto``: the reading's own (its first pass)."""
    ignore: frozenset[str] = frozenset()
    strict_fields: bool = False
    strict_unknown: bool = False
    unanswered_after: float | None = None


def check_reading(reading: Reading, options: CheckOptions) -> Result:
    """The findings of a fresh checker run over the recording, then those about the file itself
    (``recording.*``), numbered from 1. Raises ``OSError`` when the file cannot be read."""
    dialect, reason = options.dialect, None
    if dialect == "auto":
        dialect, reason = reading.dialect()
    absent = reading.absent_sides()
    checker = Checker(dialect=dialect, strict_fields=options.strict_fields, ignore=options.ignore,
                      unanswered_after=options.unanswered_after, dialect_reason=reason,
                      strict_unknown=options.strict_unknown, absent=absent)
    audit = RecordingAudit(reading.kind, ignore=options.ignore)
    run = RecordingCheck(checker, audit)  # the frames: checked there, in one loop
    findings = run.findings
    exit_code: int | None = None
    for event in ends_and_notes(run.others(reading.check_blocks(checker.frame_json))):
        audit.feed(event)
        if isinstance(event, Exit):
            exit_code = event.code
        elif isinstance(event, Note) and event.dropped_bytes:
            findings += checker.gap(event.t, event.seq, event.dir, event.dropped_bytes, event.text)
        elif isinstance(event, Note) and event.text.startswith("exit code: "):
            exit_code = _transcript_exit(event.text)
    findings += checker.finish(run.last_t, exit_code=exit_code)
    findings += audit.finish(reading.problems)  # recording.*: the lines skipped are findings, not just warnings
    for n, finding in enumerate(findings, start=1):
        finding.seq = n
    notes = [absent_note(absent)] if absent else []
    return Result(reading.path, checker.dialect, checker.dialect_reason, audit.frames, findings, notes=notes,
                  native=reading.kind == "rpcspy")


def _transcript_exit(text: str) -> int | None:
    """A shared transcript's ``exit code: N`` note."""
    try:
        return int(text.split(":", 1)[1].split()[0])
    except (IndexError, ValueError):
        return None
