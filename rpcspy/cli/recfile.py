"""The shell's side of the offline commands (show, stats, export, browse, check, why): open, print.

Reading is :mod:`rpcspy.offline`'s; here opening turns :class:`~rpcspy.recording.RecordingError` into a
one-line click error, the progress bar is drawn (a transient one on stderr when stderr is a terminal and
the output goes elsewhere), and consoles get colour only on a terminal.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator
from typing import IO, TYPE_CHECKING, Any

import click

if TYPE_CHECKING:
    from rpcspy.offline import Reading

PROGRESS_MIN_BYTES = 4 << 20
"""Smaller files are read without a progress bar (it would only flicker)."""


def open_or_fail(path: str, *, progress: bool = False) -> Reading:
    """Open a recording or transcript for reading (rpcspy.offline), or exit with its reason; with
    ``progress``, its main pass draws a progress bar on stderr (:func:`progress_bar`)."""
    from rpcspy.cli.exits import InputError
    from rpcspy.offline import RecordingError, open_reading

    try:
        return open_reading(path, progress_bar if progress else None)
    except RecordingError as exc:
        raise InputError(str(exc)) from None


def _isatty(stream: IO[Any]) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def make_console(file: IO[str] | None = None, *, color: str = "auto", width: int | None = None) -> Any:
    """A rich Console: colour on a terminal (or ``color="always"``), plain in a pipe.

    A non-empty ``$NO_COLOR`` (https://no-color.org) turns colour off unless ``color="always"``;
    bold and dim remain on a terminal. Width: ``width`` if given, else the terminal's, else
    ``$COLUMNS`` or 100.
    """
    from rich.console import Console

    file = file or sys.stdout
    tty = _isatty(file)
    force = {"always": True, "never": False}.get(color, tty)
    no_color = not force or (color != "always" and os.environ.get("NO_COLOR", "") != "")
    if width is None and not tty:
        try:
            width = int(os.environ.get("COLUMNS", "100"))
        except ValueError:
            width = 100
    console = Console(file=file, force_terminal=force, no_color=no_color, color_system="auto" if force else None,
                      width=width, height=None if width is None else 50, highlight=False, emoji=False,
                      soft_wrap=False, markup=False)  # recorded text is never markup (a "[bold]" stays literal)
    console.on_broken_pipe = quiet_broken_pipe  # type: ignore[method-assign]  # rich would exit 1
    return console


def color_option(f: Any) -> Any:
    return click.option("--color", type=click.Choice(["auto", "always", "never"]), default="auto",
                        show_default=True,
                        help="Colour: on a terminal only (auto; a non-empty NO_COLOR turns it off), always, "
                             "or never.")(f)


def want_progress(output: IO[Any] | None = None) -> bool:
    """Progress on stderr makes sense when stderr is a terminal and the output is not on it."""
    return _isatty(sys.stderr) and (output is None or not _isatty(output))


def progress_bar(entries: Iterator[Any], total: int) -> Iterator[Any]:
    """Entries, with a transient progress bar on stderr sized by the file (rpcspy.offline.Progress)."""
    from rich.console import Console
    from rich.progress import BarColumn, DownloadColumn, Progress, TextColumn, TimeRemainingColumn

    from rpcspy.offline import entry_size

    if total < PROGRESS_MIN_BYTES:
        yield from entries
        return
    columns = (TextColumn("reading"), BarColumn(), DownloadColumn(), TimeRemainingColumn())
    with Progress(*columns, console=Console(file=sys.stderr), transient=True) as bar:
        task = bar.add_task("read", total=total)
        done = 0
        for n, entry in enumerate(entries):
            done += entry_size(entry)
            if n % 2000 == 0:
                bar.update(task, completed=min(done, total))
            yield entry


def warn_unread(problem: str | None) -> None:
    """A warning from the core (a file it could not read again), on stderr."""
    if problem is not None:
        from rpcspy.inert import inert_line

        click.echo(inert_line(f"rpcspy: warning: {problem}"), err=True)


def report_problems(rec: Reading) -> None:
    """Unreadable lines the reader skipped, on stderr."""
    from rpcspy.inert import inert_line

    for problem in rec.problems[:20]:
        click.echo(f"rpcspy: warning: {inert_line(str(problem))}", err=True)
    if len(rec.problems) > 20:
        click.echo(f"rpcspy: warning: ... and {len(rec.problems) - 20} more unreadable lines", err=True)


def quiet_broken_pipe() -> None:
    """The reader went away (``| head``): stop quietly instead of a traceback."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except OSError:
        pass
    raise SystemExit(0)


@contextlib.contextmanager
def atomic_output(output: str, mode: str = "wb", *, make_dirs: bool = False, **open_kwargs: Any) -> Iterator[IO[Any]]:
    """Write ``output`` whole (rpcspy.pump.commands.outfile): a regular file through a temporary one renamed
    into place (owner-only), so a reader never sees half a file and a failure leaves no partial
    output but a clear error; a FIFO or a device in place. ``make_dirs`` creates missing parent
    directories first, as the proxy does for recordings."""
    from rpcspy.cli.exits import OutputError
    from rpcspy.pump.commands.outfile import output_fd

    try:
        with output_fd(output, make_dirs=make_dirs) as fd, os.fdopen(fd, mode, closefd=False, **open_kwargs) as f:
            yield f
    except OSError as exc:
        raise OutputError(f"cannot write {output}: {exc.strerror or exc}") from None
