"""The options and the claim every command that writes a file shares: ``--overwrite`` everywhere.

Recordings (run, repl, drive, replay; ``rpcspy.recording.claim``): ``-o FILE`` makes a new regular
file; an existing one is replaced only with ``--overwrite``; a symlink, a FIFO, a device, or a file
another rpcspy records to is refused with exit 2 before anything starts.

Whole outputs (export, fixture, schema; ``rpcspy.pump.commands.outfile``): an existing regular file, named
with ``-o`` or chosen by rpcspy (export's default name), is replaced only with ``--overwrite``
(fixture's older ``--force`` means the same); a FIFO or a device is written in place.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import click

OUTPUT_HELP = ("Write the recording to FILE: a new file, or with --overwrite a replacement for an existing "
               "one. A symlink, a FIFO or a device is refused, as is a FILE another rpcspy records to (exit 2, "
               "nothing started).")
OVERWRITE_HELP = ("Let -o FILE replace an existing file (a new owner-only file takes its name; another hard "
                  "link to the old one keeps its content).")


def recording_options(*names: str, dest: str = "output", what: str = OUTPUT_HELP,
                      required: bool = False) -> Callable[[Any], Any]:
    """``-o/--output FILE`` (or ``names``) and ``--overwrite``, the same on every recording command."""
    names = names or ("-o", "--output")

    def decorate(f: Any) -> Any:
        f = click.option("--overwrite", is_flag=True, help=OVERWRITE_HELP)(f)
        return click.option(*names, dest, metavar="FILE", required=required, help=what)(f)

    return decorate


def claim_recording(path: str | None, overwrite: bool, *, strict: bool = False) -> int | None:
    """Open and lock the recording before anything starts; a refusal exits 2 with nothing written.

    Another error (a read-only directory) is left to the writer, which says so once and goes on
    without a recording (None), unless ``strict``: then it is a usage error too."""
    if path is None:
        return None
    from rpcspy.cli.exits import InputError
    from rpcspy.recording.claim import RecordingRefused, open_recording_file

    try:
        return open_recording_file(path, overwrite=overwrite, warn=lambda m: click.echo(f"rpcspy: warning: {m}",
                                                                                        err=True))
    except RecordingRefused as exc:
        raise InputError(str(exc)) from None
    except OSError as exc:
        if strict:
            raise InputError(f"cannot record to {path}: {exc.strerror or exc}") from None
        return None


def overwrite_option(f: Any) -> Any:
    """``--overwrite`` (alias ``--force``) of the commands that write a whole output file."""
    return click.option("--overwrite", "--force", "overwrite", is_flag=True,
                        help="Replace OUTPUT if it is an existing file (without it: exit 2, the file kept).")(f)


def refuse_existing_output(path: str, overwrite: bool) -> None:
    """An existing regular file at ``path`` (a symlink to one, too) is kept unless ``overwrite``: exit 2."""
    import os

    from rpcspy.pump.commands.outfile import is_special

    if not overwrite and os.path.exists(path) and not is_special(path):
        raise click.BadParameter(f"{path} exists (--overwrite replaces it)", param_hint="-o")
