"""Names of recording files: stdlib only, so the proxy can choose one before importing the rest."""

from __future__ import annotations

import datetime as _dt
import os
import re
from collections.abc import Sequence

_WRAPPERS = {"node", "nodejs", "bun", "npx", "bunx", "deno", "python", "python3", "env", "uv", "uvx"}


def agent_name(argv: Sequence[str]) -> str:
    """A short name for the agent, for file names: ``pi``, ``omp``, ``cli``..."""
    rest = list(argv)
    while rest:
        base = os.path.basename(rest.pop(0))
        if base in _WRAPPERS or base.startswith("-") or "=" in base:
            continue
        base = re.sub(r"\.(m?js|cjs|ts|py)$", "", base)
        return re.sub(r"[^A-Za-z0-9._-]+", "_", base)[:40] or "agent"
    return "agent"


def default_path(directory: str, argv: Sequence[str], now: _dt.datetime | None = None) -> str:
    """``DIR/20261122T085337.123456Z-pi.jsonl``: sortable, unique per microsecond."""
    now = now or _dt.datetime.now(_dt.timezone.utc)
    return os.path.join(directory, f"{now:%Y%m%dT%H%M%S.%f}Z-{agent_name(argv)}.jsonl")
