"""``rpcspy browse REC``: a full-screen browser for a recording (it may still be growing)."""

from __future__ import annotations

import os
import sys
from typing import Any

import click

from rpcspy.browse.keys import KEYS
from rpcspy.cli.filter_opts import filter_options

_KEYS_HELP = "\n".join(f"  {k:<16} {d}" for k, d in KEYS)


@click.command(
    "browse",
    epilog=f"""\b
Keys:
{_KEYS_HELP}

\b
Examples:
  rpcspy browse session.jsonl                        the whole session
  rpcspy browse --follow recordings/latest.jsonl     stay at the end while the proxy records
  rpcspy browse s.jsonl --where "_dir != 'err'"      start without stderr (f changes the filter inside)""",
)
@click.argument("recording", type=click.Path(dir_okay=False))
@click.option("--follow", is_flag=True, help="Start at the end and stay there as the recording grows (F toggles).")
@filter_options
def command(recording: str, follow: bool, frame_filter: Any) -> None:
    """Browse a recording full-screen: the timeline with rows folded and unfolded,
    search, a live --where filter, jumps between findings, and each frame's JSON.

    Frames are read from the file when they are shown, so big recordings stay
    light; new lines show as the recording grows. Needs a terminal.
    """
    from rpcspy.browse.app import browse
    from rpcspy.cli.recfile import open_or_fail
    from rpcspy.offline import RecordingError

    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        raise click.UsageError("browse needs a terminal; use `rpcspy show` in pipes and scripts")
    reading = open_or_fail(recording)
    flagged = reading.flagged(frame_filter)
    try:
        status = browse(recording, select=frame_filter if frame_filter.active else None, flagged=flagged,
                        follow=follow, dialect=reading.dialect(refine=False)[0],
                        name=os.path.basename(recording)
                        + (f"  [{frame_filter.describe()}]" if frame_filter.active else ""))
    except RecordingError as exc:
        raise click.ClickException(str(exc)) from None
    sys.exit(status)
