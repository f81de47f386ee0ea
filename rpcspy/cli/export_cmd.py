"""``rpcspy export REC --format html -o FILE``: a page to attach to a bug report."""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Callable, Iterator
from typing import Any

import click

from rpcspy.cli.filter_opts import filter_options


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
    collapsible row (pretty-printed JSON when opened), assistant text and tool
    output visible, findings highlighted and listed at the top, and a text
    filter. The page holds each frame once, compactly, and draws rows as you
    scroll, so it stays about the recording's size and opens at once.
    """
    from rpcspy.cli.recfile import (
        atomic_output,
        detect_dialect,
        flagged_frames,
        open_or_fail,
        read_events,
        report_problems,
        want_progress,
    )
    from rpcspy.cli.show_cmd import header
    from rpcspy.render.acp_timeline import timeline_for
    from rpcspy.render.html import HtmlPage

    rec = open_or_fail(recording)
    if output is None:
        output = os.path.splitext(os.path.basename(recording))[0] + ".html"
    to_stdout = output == "-"
    flagged = flagged_frames(rec, frame_filter, check=check)
    timeline = timeline_for(detect_dialect(rec, refine=False)[0], coalesce=not frames,
                            select=frame_filter if frame_filter.active else None, flagged=flagged)
    keep = (lambda e: frame_filter.match_frame(e.to_frame(), flagged=flagged)) if frame_filter.active else None
    try:
        with contextlib.ExitStack() as stack:
            out = sys.stdout.buffer if to_stdout else stack.enter_context(atomic_output(output, "wb", make_dirs=True))
            page = HtmlPage(out.write, title=f"rpcspy: {os.path.basename(recording)}", meta=header(rec, frame_filter))
            progress = want_progress(sys.stdout if to_stdout else None)
            for event in read_events(_Tap(rec, page, keep), check=check, progress=progress):
                for item in timeline.feed(event):
                    page.item(item)
            for item in timeline.finish():
                page.item(item)
            page.finish()
            out.flush()
        if not to_stdout:
            click.echo(f"wrote {output}", err=True)
    except BrokenPipeError:
        from rpcspy.cli.recfile import quiet_broken_pipe

        quiet_broken_pipe()
    report_problems(rec)


class _Tap:
    """The recording, its frames added to the page as they are read (the timeline only needs their seqs)."""

    def __init__(self, rec: Any, page: Any, keep: Callable[[Any], bool] | None) -> None:
        self.rec, self.path, self.page, self.keep = rec, rec.path, page, keep

    def __getattr__(self, name: str) -> Any:  # kind, problems...: the recording's own
        return getattr(self.rec, name)

    def entries(self) -> Iterator[Any]:
        from rpcspy.recording.format import FrameEntry

        add, keep = self.page.frame, self.keep
        for entry in self.rec.entries():
            if type(entry) is FrameEntry and (keep is None or keep(entry)):
                add(entry)
            yield entry
