"""Shared plumbing of the recording commands (show, stats, export): open, stream, print.

Opening turns :class:`~rpcspy.recording.RecordingError` into a one-line click
error; streaming shows a transient progress bar on stderr when stderr is a
terminal and the output goes elsewhere; consoles get colour only on a terminal.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator
from typing import IO, Any

import click

from rpcspy.events import Event

PROGRESS_MIN_BYTES = 4 << 20
"""Smaller files are read without a progress bar (it would only flicker)."""


def open_or_fail(path: str) -> Any:
    """Open a recording or transcript, or exit with its reason."""
    from rpcspy.cli.exits import InputError
    from rpcspy.recording import RecordingError, open_recording

    try:
        return open_recording(path)
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


def read_events(rec: Any, *, check: bool = False, progress: bool = False) -> Iterator[Event]:
    """The recording's entries as events; with ``check``, findings from a fresh checker run. The
    findings about the file itself (recording.*: cut short, damaged, empty, no exit) come last."""
    from rpcspy.checker.offline import CheckerUnavailable, with_checker
    from rpcspy.recording.entries import events

    stream: Iterator[Event] = _audited(rec, events(_with_progress(rec) if progress else rec.entries()))
    if check:
        try:
            stream = with_checker(stream)
            first = next(stream, None)
        except CheckerUnavailable as exc:
            raise click.ClickException(str(exc)) from None
        if first is not None:
            return _chain(first, stream)
    return stream


def detect_dialect(rec: Any, *, refine: bool = True) -> tuple[str, str | None]:
    """The session's dialect and why, from a first pass up to the agent frame that decides it (as
    ``check --dialect auto`` does); ``("auto", None)`` when no frame decides. Without ``refine``,
    a pi >= 0.84 decision is not refined (to pi-0.99) by later frames: enough to pair responses."""
    from rpcspy.checker.offline import recording_dialect

    return recording_dialect(rec, refine=refine)


def flagged_frames(rec: Any, frame_filter: Any, *, check: bool = False) -> set[int] | None:
    """For ``--with-findings``, the seqs of the frames findings are about (a first pass); else None."""
    if not frame_filter.only_findings:
        return None
    from rpcspy.filters import flagged_seqs

    return flagged_seqs(read_events(rec, check=check))


def findings_passing(frame_filter: Any, findings: list[Any], path: str) -> list[Any]:
    """The findings ``check`` reports under the filter: ``--type`` also matches the type or
    command of the frame a finding is about, and ``--where`` passes a finding whose frame
    passes it (then the recording is read a second time)."""
    if not frame_filter.active:
        return findings
    from rpcspy.filters import frame_keys
    from rpcspy.recording import RecordingError, open_recording

    keys: dict[int, tuple[str, ...]] = {}
    about = {f.frame for f in findings if f.frame is not None}
    if (frame_filter.types or frame_filter.where is not None) and about:
        try:
            keys = frame_keys(open_recording(path).frames(), about, frame_filter.where)
        except (OSError, RecordingError) as exc:
            from rpcspy.inert import inert_line

            click.echo(inert_line(f"rpcspy: warning: {path}: cannot read frame types: {exc}"), err=True)
    return [f for f in findings if frame_filter.match_finding(f, keys.get(f.frame, ()), f.frame in keys)]


def _audited(rec: Any, stream: Iterator[Event]) -> Iterator[Event]:
    from rpcspy.checker.recording import audited

    return audited(rec.kind, rec.problems, stream)


def _chain(first: Event, rest: Iterator[Event]) -> Iterator[Event]:
    yield first
    yield from rest


def want_progress(output: IO[Any] | None = None) -> bool:
    """Progress on stderr makes sense when stderr is a terminal and the output is not on it."""
    return _isatty(sys.stderr) and (output is None or not _isatty(output))


def _with_progress(rec: Any) -> Iterator[Any]:
    """Entries, with a transient progress bar on stderr sized by the file."""
    from rich.console import Console
    from rich.progress import BarColumn, DownloadColumn, Progress, TextColumn, TimeRemainingColumn

    from rpcspy.recording.format import FrameEntry

    total = os.path.getsize(rec.path)
    if total < PROGRESS_MIN_BYTES:
        yield from rec.entries()
        return
    columns = (TextColumn("reading"), BarColumn(), DownloadColumn(), TimeRemainingColumn())
    with Progress(*columns, console=Console(file=sys.stderr), transient=True) as bar:
        task = bar.add_task("read", total=total)
        done = 0
        for n, entry in enumerate(rec.entries()):
            if isinstance(entry, FrameEntry):
                done += len(entry.json) + len(entry.text or "") + len(entry.b64 or "") + 60
            else:
                done += 120
            if n % 2000 == 0:
                bar.update(task, completed=min(done, total))
            yield entry


def report_problems(rec: Any) -> None:
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


def directions(rec: Any) -> set[str]:
    """The directions a transcript's frames go in (a first pass that stops once both are seen); an rpcspy
    recording holds both by construction."""
    if rec.kind == "rpcspy":
        return {"c2a", "a2c"}
    seen: set[str] = set()
    for frame in rec.frames():
        seen.add(frame.dir)
        if {"c2a", "a2c"} <= seen:
            break
    return seen
