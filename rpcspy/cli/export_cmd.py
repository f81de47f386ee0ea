"""``rpcspy export REC --format html -o FILE``: a page to attach to a bug report."""

from __future__ import annotations

import os
import sys
from typing import Any

import click

from rpcspy.cli.filteropts import filter_options


@click.command(
    "export",
    epilog="""\b
Examples:
  rpcspy export rec.jsonl -o bug.html                 the whole session
  rpcspy export rec.jsonl --with-findings -o f.html   only what the checker flagged
  rpcspy export rec.jsonl -o - | gzip > rec.html.gz   to stdout""",
)
@click.argument("recording", type=click.Path(dir_okay=False))
@click.option("--format", "fmt", type=click.Choice(["html"]), default="html", show_default=True,
              help="Output format.")
@click.option("-o", "--output", metavar="FILE", default=None,
              help="Where to write ('-' for stdout). Default: the recording's name with .html, in the "
                   "current directory.")
@click.option("--frames", is_flag=True, help="One row per frame: no coalescing of deltas and stderr lines.")
@click.option("--check", is_flag=True, help="Run the checker instead of using the recorded findings.")
@filter_options
def command(recording: str, fmt: str, output: str | None, frames: bool, check: bool, frame_filter: Any) -> None:
    """Export a recording as one self-contained HTML page.

    Inline CSS and JavaScript, no network: the timeline with each frame in a
    collapsible row (pretty-printed JSON), assistant text and tool output
    visible, findings highlighted and listed at the top, and a text filter.
    """
    from rpcspy.cli.recfile import (
        atomic_output,
        flagged_frames,
        open_or_fail,
        read_events,
        report_problems,
        want_progress,
    )
    from rpcspy.cli.show_cmd import header
    from rpcspy.render.html import html_page
    from rpcspy.render.timeline import Timeline

    rec = open_or_fail(recording)
    if output is None:
        output = os.path.splitext(os.path.basename(recording))[0] + ".html"
    to_stdout = output == "-"
    timeline = Timeline(coalesce=not frames, keep_frames=True, select=frame_filter if frame_filter.active else None,
                        flagged=flagged_frames(rec, frame_filter, check=check))

    def items() -> Any:
        for event in read_events(rec, check=check, progress=want_progress(sys.stdout if to_stdout else None)):
            yield from timeline.feed(event)
        yield from timeline.finish()

    title = f"rpcspy: {os.path.basename(recording)}"
    page = html_page(items(), title=title, meta=header(rec, frame_filter))
    try:
        if to_stdout:
            for piece in page:
                sys.stdout.write(piece)
            sys.stdout.flush()
        else:
            with atomic_output(output, "w", make_dirs=True, encoding="utf-8", errors="surrogateescape") as f:
                for piece in page:
                    f.write(piece)
            click.echo(f"wrote {output}", err=True)
    except BrokenPipeError:
        from rpcspy.cli.recfile import quiet_broken_pipe

        quiet_broken_pipe()
    report_problems(rec)
