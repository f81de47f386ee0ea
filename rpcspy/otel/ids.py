"""Trace and span ids derived from the recording, and W3C ``traceparent`` values.

A session's key is made of what its recording's header and start entry say (the proxy's start
time, the agent's start time, pid and command line), written as the recording writes them, so
the live exporter and a later ``rpcspy export --format otlp`` of the recording derive the same
ids: re-exporting a recording sends the same spans again, which a backend stores once.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass

import msgspec

_TRACEPARENT = re.compile(r"^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$")


def session_key(started_unix: float, start_t: float, pid: int, argv: list[str]) -> bytes:
    """The bytes every id of one session is derived from (times as the recording writes them)."""
    return b"%.6f\0%.6f\0%d\0" % (started_unix, start_t, pid) + msgspec.json.encode(argv)


def _digest(*parts: bytes) -> bytes:
    return hashlib.sha256(b"\0".join(parts)).digest()


def _nonzero(raw: bytes) -> bytes:
    return raw if any(raw) else raw[:-1] + b"\x01"


def trace_id(key: bytes) -> bytes:
    """16 bytes: the session's trace (unless a ``TRACEPARENT`` gives one)."""
    return _nonzero(_digest(b"rpcspy.trace", key)[:16])


def span_id(key: bytes, kind: str, seq: int) -> bytes:
    """8 bytes: the span of ``kind`` opened by the entry numbered ``seq``."""
    return _nonzero(_digest(b"rpcspy.span", key, kind.encode(), b"%d" % seq)[:8])


@dataclass(frozen=True, slots=True)
class TraceParent:
    """A W3C trace context: the CI job's span a session becomes a child of."""

    trace_id: bytes
    span_id: bytes
    sampled: bool = True

    def header(self) -> str:
        return f"00-{self.trace_id.hex()}-{self.span_id.hex()}-{'01' if self.sampled else '00'}"


def parse_traceparent(value: str) -> TraceParent:
    """Parse a ``traceparent`` (https://www.w3.org/TR/trace-context/); ValueError says what is wrong."""
    m = _TRACEPARENT.match(value.strip().lower())
    if m is None:
        raise ValueError(f"not a W3C traceparent (00-<32 hex>-<16 hex>-<2 hex>): {value!r}")
    version, trace, span, flags, rest = m.groups()
    if version == "ff" or (version == "00" and rest):
        raise ValueError(f"traceparent version {version} is invalid here: {value!r}")
    if set(trace) == {"0"} or set(span) == {"0"}:
        raise ValueError(f"traceparent with an all-zero id: {value!r}")
    return TraceParent(bytes.fromhex(trace), bytes.fromhex(span), bool(int(flags, 16) & 1))
