"""The filter model shared by ``show``, ``check``, ``stats`` and ``export``.

A :class:`FrameFilter` selects frames by direction, type, time range, seq range,
free text, and "has findings"; it also answers for the other entries (process
start and exit, notes, findings). ``--where EXPR`` adds a JMESPath expression
(:mod:`rpcspy.where`). The click options live in :mod:`rpcspy.cli.filter_opts`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Container, Iterable
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from typing import TYPE_CHECKING, Any

from rpcspy.events import Eof, Event, Exit, Finding, Frame, Note, SpawnFailed, Start

DIR_ALIASES: dict[str, str] = {
    "c2a": "c2a", "client": "c2a", "in": "c2a", "stdin": "c2a",
    "a2c": "a2c", "agent": "a2c", "out": "a2c", "stdout": "a2c",
    "err": "err", "stderr": "err",
}
_UNSET: Any = object()

if TYPE_CHECKING:
    from rpcspy.where import Where
_EVENT_KINDS: dict[type, str] = {Start: "start", SpawnFailed: "spawn_failed", Eof: "eof", Exit: "exit", Note: "note"}
_TEXT_FIELD: dict[type, str] = {Note: "text", SpawnFailed: "error"}


@dataclass(frozen=True, slots=True)
class FrameFilter:
    """Which entries to keep; the default keeps everything."""

    dirs: frozenset[str] = frozenset()
    """Directions to keep (``c2a``, ``a2c``, ``err``); empty keeps all."""
    types: tuple[str, ...] = ()
    """Glob patterns matched against :func:`rpcspy.frameinfo.type_keys`."""
    time: tuple[float | None, float | None] = (None, None)
    """Inclusive range of ``t`` (seconds since the recording started)."""
    seqs: tuple[int | None, int | None] = (None, None)
    """Inclusive range of ``seq``."""
    grep: str | None = None
    """A regular expression searched in the frame's text; case-insensitive unless it has capitals."""
    only_findings: bool = False
    """Keep only frames a finding is about."""
    where: Where | None = None
    """A JMESPath expression the entry must satisfy (:mod:`rpcspy.where`)."""
    _re: re.Pattern[str] | None = field(default=None, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.grep is not None:
            flags = 0 if any(c.isupper() for c in self.grep) else re.IGNORECASE
            object.__setattr__(self, "_re", re.compile(self.grep, flags))

    @property
    def active(self) -> bool:
        """True when the filter can drop anything."""
        return bool(self.dirs or self.types or self.grep is not None or self.only_findings
                    or self.where is not None or self.time != (None, None) or self.seqs != (None, None))

    def _in_ranges(self, seq: int, t: float) -> bool:
        lo, hi = self.seqs
        if (lo is not None and seq < lo) or (hi is not None and seq > hi):
            return False
        t0, t1 = self.time
        return not ((t0 is not None and t < t0) or (t1 is not None and t > t1))

    def _types_match(self, keys: Iterable[str]) -> bool:
        return any(fnmatchcase(k, p) for k in keys for p in self.types)

    def match_frame(self, frame: Frame, obj: Any = _UNSET, flagged: Container[int] | None = None) -> bool:
        """Does the frame pass? ``obj`` is its decoded JSON when the caller has it.

        ``only_findings`` is applied only when ``flagged`` (the seqs findings are
        about) is given; the timeline applies it per item instead.
        """
        if self.dirs and frame.dir not in self.dirs:
            return False
        if not self._in_ranges(frame.seq, frame.t):
            return False
        if self.types and not self._types_match(_type_keys()(frame, None if obj is _UNSET else obj)):
            return False
        if self._re is not None and not self._re.search(frame.data.decode("utf-8", "replace")):
            return False
        if self.where is not None and not self.where.match_frame(frame):
            return False
        return not (self.only_findings and flagged is not None and frame.seq not in flagged)

    def match_event(self, event: Event) -> bool:
        """For process start/exit, EOF, notes: ranges, direction, ``--type exit``, text."""
        if self.only_findings:
            return False
        direction = getattr(event, "dir", None)
        if self.dirs and direction is not None and direction not in self.dirs:
            return False
        if not self._in_ranges(event.seq, event.t):
            return False
        kind = _EVENT_KINDS.get(type(event), "unknown")
        if self.types and not self._types_match((kind,)):
            return False
        if self._re is not None:
            text = _TEXT_FIELD.get(type(event))
            if text is None or not self._re.search(getattr(event, text)):
                return False
        return self.where is None or self.where.match_event(event)

    def match_finding(self, finding: Finding, frame_keys: Iterable[str] = (), frame_where: bool = False) -> bool:
        """For a finding on its own: its frame's seq, its rule, group or severity, its message.

        ``frame_keys`` are the :func:`type_keys` of the frame it is about, when the
        caller knows them (``check``): ``--type prompt`` then keeps a prompt's findings.
        ``frame_where`` says that frame passes ``--where``; else the finding itself must.
        """
        if self.dirs and finding.dir is not None and finding.dir not in self.dirs:
            return False
        if not self._in_ranges(finding.frame if finding.frame is not None else finding.seq, finding.t):
            return False
        if self.types and not self._types_match((finding.rule, finding.group, finding.severity, "finding",
                                                 *frame_keys)):
            return False
        if self._re is not None and not self._re.search(f"{finding.rule} {finding.message}"):
            return False
        return self.where is None or frame_where or self.where.match_event(finding)

    def describe(self) -> str:
        """The filter as the options that made it, for headers: ``--dir a2c --type prompt``."""
        parts = [f"--dir {','.join(sorted(self.dirs))}"] if self.dirs else []
        parts += [f"--type {','.join(self.types)}"] if self.types else []
        if self.time != (None, None):
            parts.append(f"--time {_fmt(self.time[0])}..{_fmt(self.time[1])}")
        if self.seqs != (None, None):
            parts.append(f"--seq {_fmt(self.seqs[0])}..{_fmt(self.seqs[1])}")
        if self.grep is not None:
            parts.append(f"--grep {self.grep!r}")
        if self.only_findings:
            parts.append("--with-findings")
        if self.where is not None:
            parts.append(f"--where {self.where.text!r}")
        return " ".join(parts)


def _fmt(v: float | int | None) -> str:
    return "" if v is None else f"{v:g}" if isinstance(v, float) else str(v)


def parse_range(text: str, kind: Callable[[str], Any], *, single_is_point: bool) -> tuple[Any, Any]:
    """``A..B``, ``A..``, ``..B`` or ``A`` (a point, or ``A..`` unless ``single_is_point``)."""
    text = text.strip()
    if ".." in text:
        lo, hi = text.split("..", 1)
        a = _number(lo, kind) if lo.strip() else None
        b = _number(hi, kind) if hi.strip() else None
        if a is not None and b is not None and b < a:
            raise ValueError(f"empty range {text!r}: {b} < {a}")
        return a, b
    v = _number(text, kind)
    return (v, v) if single_is_point else (v, None)


def _number(text: str, kind: Callable[[str], Any]) -> Any:
    """``text`` as ``kind`` (int or float), or a ValueError in words (never Python's own message)."""
    what = "a whole number" if kind is int else "a number"
    try:
        value = kind(text.strip())
    except ValueError:
        raise ValueError(f"{text.strip()!r} is not {what}") from None
    if value != value or value in (float("inf"), float("-inf")):  # nan, inf
        raise ValueError(f"{text.strip()!r} is not {what}")
    return value


def _split(values: Iterable[str]) -> list[str]:
    return [p.strip() for v in values for p in v.split(",") if p.strip()]


def build_filter(*, dirs: Iterable[str] = (), types: Iterable[str] = (), time: str | None = None,
                 seq: str | None = None, grep: str | None = None, only_findings: bool = False,
                 where: str | None = None) -> FrameFilter:
    """A filter from option values; raises ``ValueError`` with a readable message
    (:class:`rpcspy.where.WhereError`, with the position, for a bad ``where``)."""
    resolved = set()
    for d in _split(dirs):
        if d.lower() not in DIR_ALIASES:
            raise ValueError(f"unknown direction {d!r}; use c2a (client), a2c (agent) or err (stderr)")
        resolved.add(DIR_ALIASES[d.lower()])
    try:
        t = parse_range(time, float, single_is_point=False) if time else (None, None)
    except ValueError as exc:
        raise ValueError(f"bad --time {time!r}: {exc}; use FROM..TO in seconds, e.g. 1.5..3 or ..10") from None
    try:
        s = parse_range(seq, int, single_is_point=True) if seq else (None, None)
    except ValueError as exc:
        raise ValueError(f"bad --seq {seq!r}: {exc}; use FROM..TO, e.g. 10..40, or one seq") from None
    compiled = None
    if where is not None:
        from rpcspy.where import compile_where

        compiled = compile_where(where)
    try:
        return FrameFilter(frozenset(resolved), tuple(_split(types)), t, s, grep, only_findings, compiled)
    except re.error as exc:
        raise ValueError(f"bad --grep {grep!r}: {exc}") from None


def frame_keys(frames: Iterable[Frame], seqs: Collection[int],
               where: Where | None = None) -> dict[int, tuple[str, ...]]:
    """The :func:`type_keys` of the frames with these seqs (for :meth:`FrameFilter.match_finding`);
    with ``where``, only of the frames that pass it."""
    keys: dict[int, tuple[str, ...]] = {}
    seen = 0
    for frame in frames:
        if frame.seq in seqs:
            seen += 1
            if where is None or where.match_frame(frame):
                keys[frame.seq] = _type_keys()(frame)
            if seen == len(seqs):
                break
    return keys


def flagged_seqs(events: Iterable[Event]) -> set[int]:
    """The seqs of the frames that findings are about (a first pass for ``--with-findings``)."""
    return {e.frame for e in events if isinstance(e, Finding) and e.frame is not None}


def _type_keys() -> Callable[..., tuple[str, ...]]:
    """:func:`rpcspy.frameinfo.type_keys`, imported on first use (it loads msgspec; --help must not)."""
    from rpcspy.frameinfo import type_keys

    return type_keys
