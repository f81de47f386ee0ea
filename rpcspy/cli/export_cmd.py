"""``rpcspy export REC --format html -o FILE``: a page to attach to a bug report; ``--format otlp``: traces."""

from __future__ import annotations

import contextlib
import os
import sys
from typing import Any

import click

from rpcspy.cli.filter_opts import filter_options
from rpcspy.cli.record_opt import overwrite_option, refuse_existing_output


@click.command(
    "export",
    epilog="""\b
Examples:
  rpcspy export rec.jsonl -o bug.html                 the whole session
  rpcspy export rec.jsonl --with-findings -o f.html   only what the checker flagged
  rpcspy export rec.jsonl -o - | gzip > rec.html.gz   to stdout
  rpcspy export recordings/*.jsonl --format otlp      OpenTelemetry traces to
                                                      $OTEL_EXPORTER_OTLP_ENDPOINT
  rpcspy export rec.jsonl --format otlp --endpoint http://localhost:6006
\b
--format otlp sends each recording as one trace (docs/otel.md), with ids
derived from the recording: exporting it again sends the same spans. It
reads the OTEL_* variables and TRACEPARENT, needs pip install 'rpcspy[otel]',
and exits 1 when spans were not all delivered.""",
)
@click.argument("recordings", nargs=-1, required=True, type=click.Path(dir_okay=False), metavar="RECORDING...")
@click.option("--format", "fmt", type=click.Choice(["html", "otlp"]), default="html", show_default=True,
              help="html: one page (one recording); otlp: OpenTelemetry traces over OTLP (any number).")
@click.option("--endpoint", metavar="URL", default=None,
              help="otlp: where to send (http://host:4318; /v1/traces is added); default from "
                   "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT or OTEL_EXPORTER_OTLP_ENDPOINT, else http://localhost:4318.")
@click.option("--content", is_flag=True,
              help="otlp: also export prompts, replies and tool I/O (redacted as fixtures are). Default: none.")
@click.option("-o", "--output", metavar="FILE", default=None,
              help="Where to write ('-' for stdout). Default: the recording's name with .html, in the "
                   "current directory. An existing file is kept unless --overwrite.")
@overwrite_option
@click.option("--frames", is_flag=True, help="One row per frame: no coalescing of deltas and stderr lines.")
@click.option("--check", is_flag=True, help="Run the checker instead of using the recorded findings.")
@filter_options
def command(recordings: tuple[str, ...], fmt: str, endpoint: str | None, content: bool, output: str | None,
            overwrite: bool, frames: bool, check: bool, frame_filter: Any) -> None:
    """Export a recording as one self-contained HTML page, or recordings as OpenTelemetry traces.

    Inline CSS and JavaScript, no network: the timeline with each frame in a
    collapsible row (pretty-printed JSON when opened), assistant text and tool
    output visible, findings highlighted and listed at the top, and a text
    filter. The page holds each frame once, compactly, and draws rows as you
    scroll, so it stays about the recording's size and opens at once.
    """
    if fmt == "otlp":
        if output is not None or frames or frame_filter.active:
            raise click.UsageError("--format otlp exports whole sessions: -o, --frames and the filters do not apply")
        from rpcspy.cli.export_otlp import export_otlp

        sys.exit(export_otlp(recordings, endpoint=endpoint, content=content, check=check))
    if endpoint is not None or content:
        raise click.UsageError("--endpoint and --content are for --format otlp")
    if len(recordings) != 1:
        raise click.UsageError("--format html exports one recording (give one, or use --format otlp)")
    recording = recordings[0]
    from rpcspy.cli.recfile import atomic_output, open_or_fail, report_problems, want_progress
    from rpcspy.cli.show_cmd import header
    from rpcspy.render.acp_timeline import timeline_for
    from rpcspy.render.html import HtmlPage

    if output is None:
        output = os.path.splitext(os.path.basename(recording))[0] + ".html"
    to_stdout = output == "-"
    reading = open_or_fail(recording, progress=want_progress(sys.stdout if to_stdout else None))
    if not to_stdout:
        refuse_existing_output(output, overwrite)
    flagged = reading.flagged(frame_filter, check=check)
    timeline = timeline_for(reading.dialect(refine=False)[0], coalesce=not frames,
                            select=frame_filter if frame_filter.active else None, flagged=flagged)
    try:
        with contextlib.ExitStack() as stack:
            out = sys.stdout.buffer if to_stdout else stack.enter_context(atomic_output(output, "wb", make_dirs=True))
            page = HtmlPage(out.write, title=f"rpcspy: {os.path.basename(recording)}", meta=header(reading, frame_filter))
            add = page.frame if not frame_filter.active else _keeping(page, frame_filter, flagged)
            for event in reading.events(check=check, on_frame=add):
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
    report_problems(reading)


def _keeping(page: Any, frame_filter: Any, flagged: set[int] | None) -> Any:
    """Adds to the page the frames the filter keeps (the timeline only needs their seqs)."""
    def add(entry: Any) -> None:
        if frame_filter.match_frame(entry.to_frame(), flagged=flagged):
            page.frame(entry)
    return add
