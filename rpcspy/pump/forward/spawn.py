"""Starting the agent: a child in its own process group that dies with rpcspy."""

from __future__ import annotations

import ctypes
import errno
import os
import signal
import subprocess
from collections.abc import Sequence

_PR_SET_PDEATHSIG = 1


class SpawnError(Exception):
    """The agent could not be started; ``code`` is the shell-style exit status."""

    def __init__(self, message: str, code: int) -> None:
        super().__init__(message)
        self.code = code


def _die_with_parent() -> None:  # runs in the child between fork and exec
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)
    except Exception:
        pass


def spawn_agent(argv: Sequence[str], env: dict[str, str] | None = None) -> subprocess.Popen[bytes]:
    """Start ``argv`` with all three stdio streams piped.

    The child gets its own process group, so a terminal's Ctrl-C reaches it once
    (forwarded by rpcspy to the whole group) rather than twice. On Linux it receives
    SIGTERM if rpcspy itself is killed, and the observer process, which outlives a
    killed proxy, then ends the rest of the group (the agent's own children).
    """
    if not argv:
        raise SpawnError("no agent command given (usage: rpcspy [OPTIONS] -- AGENT_CMD [ARGS...])", 2)
    try:
        return subprocess.Popen(
            list(argv),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            bufsize=0,
            env=env,
            process_group=0,
            preexec_fn=_die_with_parent if os.uname().sysname == "Linux" else None,
        )
    except FileNotFoundError:
        raise SpawnError(f"cannot start agent {argv[0]!r}: command not found", 127) from None
    except PermissionError:
        raise SpawnError(f"cannot start agent {argv[0]!r}: permission denied (not executable?)", 126) from None
    except OSError as exc:
        reason = exc.strerror or errno.errorcode.get(exc.errno or 0, str(exc))
        code = 127 if exc.errno == errno.ENOENT else 126
        raise SpawnError(f"cannot start agent {argv[0]!r}: {reason}", code) from None


def signal_group(pid: int, signum: int) -> None:
    """Send ``signum`` to the agent's process group (its pid: it leads its own group), its
    children included; to the agent alone if the group is gone or refused."""
    try:
        os.killpg(pid, signum)
    except (ProcessLookupError, PermissionError):
        try:
            os.kill(pid, signum)
        except ProcessLookupError:
            pass


def end_process_group(pgid: int, grace: float = 2.0) -> bool:
    """SIGTERM the process group ``pgid``, SIGKILL what is left after ``grace`` seconds;
    False if there was no such group."""
    import time

    try:
        os.killpg(pgid, signal.SIGTERM)
    except (ProcessLookupError, PermissionError):
        return False
    deadline = time.monotonic() + grace
    while time.monotonic() < deadline:
        try:
            os.killpg(pgid, 0)
        except (ProcessLookupError, PermissionError):
            return True
        time.sleep(0.02)
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    return True


F_SETPIPE_SZ = 1031
PIPE_SIZE = 1 << 20


def enlarge_pipes(proc: subprocess.Popen[bytes], size: int = PIPE_SIZE) -> None:
    """Ask for 1 MiB pipe buffers to the agent: fewer wake-ups per megabyte relayed.

    Linux only; refused sizes (over /proc/sys/fs/pipe-max-size) are ignored.
    """
    for f in (proc.stdin, proc.stdout, proc.stderr):
        if f is not None:
            grow_pipe(f.fileno(), size)


def grow_pipe(fd: int, size: int = PIPE_SIZE) -> None:
    """Best effort: ask for a ``size`` buffer on the pipe ``fd`` (ignored where refused or not a pipe)."""
    try:
        import fcntl

        fcntl.fcntl(fd, F_SETPIPE_SZ, size)
    except (OSError, ImportError, ValueError):
        pass


def exit_status(returncode: int) -> tuple[int, int | None]:
    """Shell-style status and signal number from a Popen returncode."""
    if returncode < 0:
        return 128 - returncode, -returncode
    return returncode, None
