"""Which agent, and which version, a recording's command line ran (pure, a best guess from ``argv``).

The wire does not say which version of pi or omp answered, so the command line is read:
an npm spec (``@earendil-works/pi-coding-agent@1.6.0``), a directory named after the
release (``.../pi-1.6.0/...``, as ``scripts/install-agents`` lays them out, or
``pi-coding-agent-1.6.0``) or a package directory with its version in the path. The agent is
``omp`` when the command line names oh-my-pi or an ``omp`` program, ``pi`` when it names
pi's package or a ``pi`` program, else the program's own name. No version found: ``unknown``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

UNKNOWN = "unknown"
_VERSION = r"(\d+\.\d+\.\d+(?:-[0-9A-Za-z.]+)?)"
_PATTERNS = (
    re.compile(r"pi-coding-agent@" + _VERSION),
    re.compile(r"(?:^|/)(?:pi|omp|pi-coding-agent)-" + _VERSION + r"(?:/|$)"),
    re.compile(r"pi-coding-agent/" + _VERSION + r"(?:/|$)"),
)


def agent_name(argv: Sequence[str]) -> str:
    """``pi``, ``omp``, or the program's base name (``unknown`` for an empty command line)."""
    joined = " ".join(argv)
    if "oh-my-pi" in joined or re.search(r"(?:^|/)omp(?:-\d[^/ ]*)?(?:/| |$)", joined):
        return "omp"
    if "pi-coding-agent" in joined or re.search(r"(?:^|/)pi(?:-\d[^/ ]*)?(?:/| |$)", joined):
        return "pi"
    if not argv:
        return UNKNOWN
    return argv[0].rsplit("/", 1)[-1] or UNKNOWN


def agent_version(argv: Sequence[str]) -> str:
    """The release the command line names, or :data:`UNKNOWN`."""
    for arg in argv:
        for pattern in _PATTERNS:
            found = pattern.search(arg)
            if found:
                return found.group(1)
    return UNKNOWN


def identity(argv: Sequence[str]) -> str:
    """``"pi 1.6.0"``: the agent and its version, as reports group them."""
    return f"{agent_name(argv)} {agent_version(argv)}"
