"""Exit statuses of every command, in one table, and the one place that handles output errors.

The commands exit with these constants; ``docs/exit-codes.md`` is generated from
:data:`TABLE` (``scripts/gen_docs.py``), so the documentation cannot drift from
the code. :func:`guard_output` wraps every command (``rpcspy.cli.DefaultGroup``):
a write error on stdout (``> /dev/full``, a full disk) becomes one line on
stderr and :data:`OUTPUT`, never a traceback nor the status that means findings.
"""

from __future__ import annotations

import atexit
import contextlib
import errno
import gc
import io
import os
import sys
from collections.abc import Iterator

import click

OK = 0
FINDINGS = 1
"""check: a finding reached --fail-on; diff and replay --client --diff: a difference."""
FAILED = 1
"""The live commands (sessions, watch, inject): no such session, or the command failed."""
USAGE = 2
"""A usage error (click's own status), or an input that cannot be read."""
STRICT = 3
"""replay --strict: the first divergence."""
OUTPUT = 4
"""The output (stdout, -o FILE, --report FILE) could not be written."""
INTERRUPTED = 130
"""Every command stopped by Ctrl-C (SIGINT), as a shell reports it (128 + 2); what it had done is kept."""

_AGENT = "the agent's exit status (128+N when killed by signal N)"
_REFUSED = ("usage error, or -o FILE refused (a symlink, a FIFO or a device, an existing file without --overwrite, "
            "a file another rpcspy records to, a directory through another user's symlink): nothing is started")
_COMMON = ((USAGE, "usage error, or an input that cannot be read"),
           (OUTPUT, "the output could not be written (stdout, -o FILE)"))

TABLE: dict[str, tuple[tuple[int | str, str], ...]] = {
    "run": (("agent", _AGENT), (126, "the agent cannot be executed"), (127, "the agent is not found"),
            (USAGE, _REFUSED)),
    "demo": ((OK, "the demo ran"), (1, "the demo failed (missing files, the scripted client failed)"),
             (USAGE, "usage error")),
    "show": ((OK, "shown"), *_COMMON),
    "stats": ((OK, "shown"), *_COMMON),
    "export": ((OK, "written (otlp: every span delivered)"),
               (FAILED, "--format otlp: spans were not all delivered (the endpoint unreachable, refusing, slow)"),
               *_COMMON),
    "browse": ((OK, "quit"), (USAGE, "usage error, no terminal, or a recording that cannot be read")),
    "check": ((OK, "no finding reached --fail-on"), (FINDINGS, "a finding reached --fail-on"), *_COMMON),
    "rules": ((OK, "listed"), (USAGE, "usage error, or no such rule"),
              (OUTPUT, "the output could not be written")),
    "replay": (("agent", "the recorded agent's status (fake agent); the live agent's (--client)"),
               (FINDINGS, "--client --diff: the new session differs"),
               (USAGE, "usage error, a recording that cannot be read, or -o FILE refused (as for run)"),
               (STRICT, "--strict: the first divergence")),
    "fixture": ((OK, "written"), *_COMMON),
    "diff": ((OK, "the recordings are the same"), (FINDINGS, "the recordings differ"), *_COMMON),
    "schema": ((OK, "written"), (USAGE, "usage error"), (OUTPUT, "the output could not be written")),
    "repl": (("agent", _AGENT), (USAGE, "usage error, or -o FILE refused (as for run)")),
    "sessions": ((OK, "listed"), (FAILED, "the session directory cannot be read"), (USAGE, "usage error"),
                 (OUTPUT, "the output could not be written")),
    "watch": ((OK, "the session ended or the recording was read"), (FAILED, "no such session, or it refused"),
              (USAGE, "usage error"), (INTERRUPTED, "Ctrl-C: stopped watching (what was shown stays)")),
    "inject": ((OK, "injected (and, with --once, answered with success)"),
               (FAILED, "no such session, not injected, no response, or a failure response"),
               (USAGE, "usage error"), (OUTPUT, "the output could not be written")),
    "drive": ((OK, "every step completed"), (FAILED, "a step timed out, or the agent exited first"),
              (USAGE, "usage error, a script that cannot be read, or -o FILE refused (as for run)"),
              (INTERRUPTED, "Ctrl-C: the agent was stopped and its exit recorded")),
    "why": ((OK, "nothing is outstanding"), (FINDINGS, "something is outstanding"), *_COMMON),
    "legs": ((OK, "shown"), *_COMMON),
    "conform": ((OK, "no case failed (deviations are reported, not failures)"), (FAILED, "a case failed"),
                *_COMMON, (INTERRUPTED, "Ctrl-C: the cases that finished are reported")),
    "model-server": ((OK, "stopped (SIGINT, SIGTERM), or --print-only printed"), (USAGE, "usage error")),
}
"""Per command: (status, meaning); "agent" stands for a status passed through from the agent."""

_OUTPUT_ERRNOS = frozenset({errno.ENOSPC, errno.EFBIG, errno.EDQUOT, errno.EBADF})
"""Write errors that mean the output is unusable (EIO is left out: a failing read says the same)."""


class InputError(click.ClickException):
    """An input that cannot be read (a missing file, not a recording): one line, :data:`USAGE`."""

    exit_code = USAGE


class OutputError(click.ClickException):
    """An output that cannot be written: one line, :data:`OUTPUT`."""

    exit_code = OUTPUT


@contextlib.contextmanager
def interrupted() -> Iterator[None]:
    """Ctrl-C ends any command with one line and :data:`INTERRUPTED`, never click's ``Aborted!`` and 1 (which
    means findings, or a failed step). Commands with partial results (conform's finished cases, drive's
    recording) keep them and raise :class:`click.exceptions.Exit` themselves."""
    try:
        yield
    except KeyboardInterrupt:
        try:
            sys.stdout.flush()
        except (OSError, ValueError):
            pass
        click.echo("rpcspy: interrupted", err=True)
        raise click.exceptions.Exit(INTERRUPTED) from None


@contextlib.contextmanager
def guard_output() -> Iterator[None]:
    """Run a command; stdout is flushed at its end, and a write error on it becomes
    :class:`OutputError` (a vanished reader, ``| head``, ends quietly with status 0). A closed
    stdout (``>&-``) fails the same way, once something is written to it."""
    if sys.stdout is None:
        sys.stdout = _ClosedStdout()
    try:
        try:
            yield
        finally:
            sys.stdout.flush()
    except BrokenPipeError:
        _detach_stdout()
        sys.exit(OK)
    except OSError as exc:
        if exc.errno not in _OUTPUT_ERRNOS or exc.filename is not None:
            raise
        _detach_stdout()
        raise OutputError(f"cannot write output: {exc.strerror or exc}") from None


def freeze_at_exit() -> None:
    """At the interpreter's exit, freeze what is alive (``gc.freeze``) before its last collections.

    Those would walk and free every module, class, function and schema built in the process,
    cycle by cycle (about 10 ms after `check`); frozen, they are left to the OS with the rest of
    the process's memory. What a frozen cycle holds gets no finalizer at exit, so only commands
    whose outputs are closed explicitly call this (``check``, ``diff``, ``fixture``). At exit only: a test runner that
    invokes the command in its own process is not affected until it ends itself.
    """
    atexit.unregister(gc.freeze)  # once, however many times the command runs in a process
    atexit.register(gc.freeze)


class _ClosedBuffer(io.RawIOBase):
    def writable(self) -> bool:
        return True

    def write(self, data: object) -> int:
        raise OSError(errno.EBADF, "standard output is closed")


class _ClosedStdout(io.TextIOBase):
    """Stands for a stdout that was closed before rpcspy started: every write is EBADF."""

    buffer = _ClosedBuffer()

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        raise OSError(errno.EBADF, "standard output is closed")


def _detach_stdout() -> None:
    """Point fd 1 at /dev/null so the interpreter's last flush has nowhere to fail."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):  # no real fd 1 (a test runner's capture)
        pass
