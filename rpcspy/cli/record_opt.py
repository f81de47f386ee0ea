"""The options and the claim every command that writes a recording shares (run, repl, drive, replay).

One rule (``rpcspy.recording.claim``): ``-o FILE`` makes a new regular file; an existing one is
replaced only with ``--overwrite``; a symlink, a FIFO, a device, or a file another rpcspy records to
is refused with exit 2 before anything starts.
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
