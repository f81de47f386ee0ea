"""What another process of ours is doing, as Linux's /proc tells it: running, stopped, or gone.

The proxy asks this of its observer process: backpressure cuts a gap only for observers that are
stopped or dead (never for slow ones), and at the end the proxy waits for them while they work.
"""

from __future__ import annotations

import os
import signal

RUNNING, STOPPED, GONE = "running", "stopped", "gone"


def _stat_fields(pid: int) -> list[str] | None:
    """The fields of /proc/PID/stat after the command name (state first); None if there is no such process."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            raw = f.read()
    except OSError:
        return None
    return raw[raw.rfind(b")") + 2:].decode("ascii", "replace").split()


def state(pid: int) -> str:
    """RUNNING (working or waiting for input), STOPPED (SIGSTOP, traced) or GONE (dead, a zombie).

    Without /proc (not Linux) a process that exists counts as running."""
    fields = _stat_fields(pid)
    if fields is None:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return GONE
        except PermissionError:
            pass
        return RUNNING if not os.path.isdir("/proc") else GONE
    code = fields[0] if fields else "X"
    if code in ("Z", "X", "x"):
        return GONE
    if code in ("T", "t"):
        return STOPPED
    return RUNNING


def cpu_ticks(pid: int) -> int:
    """User and system CPU time the process has used, in clock ticks (-1 if unknown): it grows while it works."""
    fields = _stat_fields(pid)
    if fields is None or len(fields) < 13:
        return -1
    return int(fields[11]) + int(fields[12])


def signal_name(signum: int) -> str:
    try:
        return signal.Signals(signum).name
    except ValueError:
        return f"signal {signum}"
