"""What counts as volatile in a frame: the detection rules :mod:`rpcspy.normalise.normaliser` applies.

Patterns (UUIDs, ISO times, temp paths, home directories, loopback ports, token-shaped secrets), the cheap hints
that say a pattern can match at all, the object keys whose values are times, durations, ids,
usage or secrets, and the shapes of stable placeholders. Pure: no I/O.
"""

from __future__ import annotations

import datetime as _dt
import re
from typing import Any

from rpcspy.protocol.vocabulary import AGENT_CANCEL_TYPES
from rpcspy.protocol.vocabulary import AGENT_REQUEST_TYPES as _REQUESTS
from rpcspy.protocol.vocabulary import ANSWER_TYPES as CLIENT_ANSWER_TYPES

UUID = r"(?<![0-9a-fA-F])[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}(?![0-9a-fA-F])"
ISO = r"(?<!\d)\d{4}-\d{2}-\d{2}T\d{2}[:-]\d{2}[:-]\d{2}(?:[.,-]\d{1,9})?(?:Z|[+-]\d{2}:?\d{2})?"
TMP = r"(?<![\w./-])(?:/private)?(?:/tmp|/var/tmp|/dev/shm|/var/folders/[\w.-]+/[\w.-]+/T)(?:/[^\s\"'<>|:;,()\[\]{}]+)?"
HOME = r"(?<![\w./-])(?:/home/|/Users/|[A-Za-z]:\\Users\\)([A-Za-z0-9._-]+)"
"""A home directory's user name (``/home/alice``, ``/Users/alice``, ``C:\\Users\\alice``): the author's, in a fixture."""
LOOPBACK = r"(?<=//)(?:127\.0\.0\.1|localhost|\[::1\]):\d{2,5}\b"
SECRETS = (
    r"\bsk-(?:ant-|proj-)?[A-Za-z0-9_-]{16,}",
    r"\bAIza[0-9A-Za-z_-]{35}",
    r"\bgh[pousr]_[A-Za-z0-9]{30,}",
    r"\bgithub_pat_[A-Za-z0-9_]{22,}",
    r"\bxox[abprs]-[A-Za-z0-9-]{10,}",
    r"\bAKIA[0-9A-Z]{16}\b",
    r"(?i:\bbearer)\s+[A-Za-z0-9._~+/=-]{16,}",
)
# One regex per kind, each run only when a cheap hint says it can match: a combined
# alternation tries every alternative at every position and costs ~1 MB/s on long texts.
SECRET_RX = re.compile("|".join(SECRETS))
SECRET_HINTS = ("sk-", "AIza", "ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_", "xoxa-", "xoxb-", "xoxp-",
                 "xoxr-", "xoxs-", "AKIA", "Bearer", "bearer", "BEARER")
"""Substrings one of which a secret match starts with (a regex alternation of them scans ~5x slower)."""
HEX4 = re.compile(r"[\da-fA-F]{4}")  # \d: any Unicode digit, as the ISO pattern's \d
UUID_RX = re.compile(UUID)
ISO_RX = re.compile(ISO)
TMP_RX = re.compile(TMP)
TMP_HINTS = ("/tmp", "/var/", "/dev/shm", "/private/")
HOME_RX = re.compile(HOME)
HOME_HINTS = ("/home/", "/Users/", "\\Users\\")
PORT_RX = re.compile(LOOPBACK)
PORT_HINTS = ("127.0.0.1:", "localhost:", "[::1]:")
INNER = re.compile(f"{UUID}|{ISO}")

TIME_KEYS = frozenset({
    "timestamp", "createdAt", "updatedAt", "startedAt", "completedAt", "endedAt", "finishedAt", "modifiedAt",
    "lastModified", "mtime", "ctime", "atime", "time", "ts", "date", "started_unix",
})
DURATION_KEYS = frozenset({
    "durationMs", "duration", "wallTimeMs", "elapsedMs", "elapsed", "latencyMs", "ttft", "ttftMs", "tookMs",
    "wall_time_seconds",  # pi 1.5.2: a bash tool result's structuredContent
})
ID_KEYS = frozenset({
    "sessionId", "responseId", "toolCallId", "messageId", "entryId", "leafId", "parentId", "chunkId", "targetId",
})
USAGE_KEYS = frozenset({"usage", "tokens", "contextUsage", "tokensPerSecond"})
SECRET_KEYS = frozenset({
    "apikey", "api_key", "x-api-key", "authorization", "password", "secret", "token", "accesstoken",
    "refreshtoken", "access_token", "refresh_token", "clientsecret", "client_secret",
})
AGENT_REQUEST_TYPES = _REQUESTS | AGENT_CANCEL_TYPES
ID_PARENT_TYPES = frozenset({"toolCall", "toolcall_start"}) | AGENT_REQUEST_TYPES | CLIENT_ANSWER_TYPES
"""Objects whose `id` is volatile: tool calls (pi >= 0.84 also puts the id on `toolcall_start`), dialogs."""

MS_RANGE = (946_684_800_000, 4_102_444_800_000)  # 2000..2100 in milliseconds
S_RANGE = (946_684_800, 4_102_444_800)
BASE = _dt.datetime(2000, 1, 1, tzinfo=_dt.UTC)
ID_PREFIX = re.compile(r"^[A-Za-z]+[-_]")


HINT_SPAN = 16
"""Longer than any hint: a hint in a string that extends a hintless one ends within this of the join."""


def hintless(s: str) -> bool:
    """No secret, temp path, home directory, loopback port, UUID or ISO time hint anywhere in ``s``: :meth:`Normaliser._text`
    (without ``redact`` patterns) returns it unchanged."""
    return not (any(hint in s for hint in SECRET_HINTS) or any(hint in s for hint in TMP_HINTS)
                or any(hint in s for hint in HOME_HINTS)
                or any(hint in s for hint in PORT_HINTS) or ("-" in s and dash_after_hex4(s)))


def dash_after_hex4(s: str) -> bool:
    """Whether a ``-`` follows four hex digits: a UUID or an ISO time can only start so."""
    i = s.find("-", 4)
    while i >= 0:
        if HEX4.fullmatch(s, i - 4, i):
            return True
        i = s.find("-", i + 1)
    return False


def is_id_parent(parent: dict[str, Any]) -> bool:
    typ = parent.get("type")
    return isinstance(typ, str) and typ in ID_PARENT_TYPES


def id_like(original: str, n: int) -> str:
    m = ID_PREFIX.match(original)
    return f"{m.group() if m else 'id-'}{n}"


def iso_like(original: str, n: int) -> str:
    """Placeholder time ``2000-01-01T00:00:00`` + n seconds, written in the original's layout."""
    digits = (BASE + _dt.timedelta(seconds=n)).strftime("%Y%m%d%H%M%S")
    it = iter(digits)
    return "".join(next(it, "0") if c.isdigit() else c for c in original)
