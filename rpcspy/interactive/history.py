"""The REPL's command history: ``$XDG_STATE_HOME/rpcspy/history``, owner-only."""

from __future__ import annotations

import os

from prompt_toolkit.history import FileHistory, History, InMemoryHistory


def history_path() -> str:
    """``$XDG_STATE_HOME/rpcspy/history`` (default ``~/.local/state/rpcspy/history``)."""
    base = os.environ.get("XDG_STATE_HOME") or os.path.join(os.path.expanduser("~"), ".local", "state")
    return os.path.join(base, "rpcspy", "history")


def open_history(path: str | None) -> History:
    if not path:
        return InMemoryHistory()
    try:
        os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
        if not os.path.exists(path):
            os.close(os.open(path, os.O_WRONLY | os.O_CREAT, 0o600))
        return FileHistory(path)
    except OSError:
        return InMemoryHistory()
