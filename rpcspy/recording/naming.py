"""Which agent a command line runs, and names of recording files: stdlib only, so the proxy can choose
one before importing the rest.

The one home of "which agent is this": file names, fleet reports (``stats --group-by version``) and
OpenTelemetry's agent name all ask :func:`agent_name` (and :func:`agent_version`).
"""

from __future__ import annotations

import datetime as _dt
import os
import re
from collections.abc import Sequence

_WRAPPERS = {"node", "nodejs", "bun", "npx", "bunx", "deno", "python", "python3", "env", "uv", "uvx"}


_PACKAGES = (("/pi-acp/", "pi-acp"), ("@oh-my-pi/", "omp"), ("oh-my-pi", "omp"), ("pi-coding-agent", "pi"))
"""Package paths in a command line that name the agent better than its file (``cli.js``)."""
UNKNOWN = "unknown"
_VERSION = r"(\d+\.\d+\.\d+(?:-[0-9A-Za-z.]+)?)"
_VERSIONS = (
    re.compile(r"pi-coding-agent@" + _VERSION),
    re.compile(r"(?:^|/)(?:pi|omp|pi-coding-agent)-" + _VERSION + r"(?:/|$)"),
    re.compile(r"pi-coding-agent/" + _VERSION + r"(?:/|$)"),
)


def agent_name(argv: Sequence[str]) -> str:
    """A short name for the agent: ``pi`` or ``omp`` when the command line shows their package, else the
    program's own name past wrappers (``node``, ``bun``, ``env A=1``...): ``cli``, ``agent``."""
    for arg in argv:
        for marker, name in _PACKAGES:
            if marker in arg:
                return name
    rest = list(argv)
    while rest:
        base = os.path.basename(rest.pop(0))
        if base in _WRAPPERS or base.startswith("-") or "=" in base:
            continue
        base = re.sub(r"\.(m?js|cjs|ts|py)$", "", base)
        return re.sub(r"[^A-Za-z0-9._-]+", "_", base)[:40] or "agent"
    return "agent"


def agent_version(argv: Sequence[str]) -> str:
    """The release a command line names (an npm spec ``...pi-coding-agent@1.6.0``, a directory ``pi-1.6.0/``
    as ``scripts/install-agents`` lays them out), or :data:`UNKNOWN`: the wire does not say."""
    for arg in argv:
        for pattern in _VERSIONS:
            found = pattern.search(arg)
            if found:
                return found.group(1)
    return UNKNOWN


def identity(argv: Sequence[str]) -> str:
    """``"pi 1.6.0"``: the agent and its version, as fleet reports group them."""
    return f"{agent_name(argv)} {agent_version(argv)}"


def default_path(directory: str, argv: Sequence[str], now: _dt.datetime | None = None) -> str:
    """``DIR/20261122T085337.123456Z-pi.jsonl``: sortable, unique per microsecond."""
    now = now or _dt.datetime.now(_dt.timezone.utc)
    return os.path.join(directory, f"{now:%Y%m%dT%H%M%S.%f}Z-{agent_name(argv)}.jsonl")
