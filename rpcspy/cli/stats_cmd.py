"""``rpcspy stats REC``: latency, time to first token, throughput, bytes, findings."""

from __future__ import annotations

import sys
from typing import Any

import click

from rpcspy.cli.filter_opts import filter_options
from rpcspy.cli.recfile import color_option


@click.command(
    "stats",
    epilog="""\b
Examples:
  rpcspy stats rec.jsonl                    tables
  rpcspy stats rec.jsonl --format json | jq .commands.prompt
  rpcspy stats rec.jsonl --time 10..        only the second part of a session""",
)
@click.argument("recording", type=click.Path(dir_okay=False))
@click.option("--format", "fmt", type=click.Choice(["table", "json"]), default="table", show_default=True,
              help="Rich tables, or one JSON object.")
@click.option("--check", is_flag=True, help="Count findings from a fresh checker run instead of the recorded ones.")
@color_option
@filter_options
def command(recording: str, fmt: str, check: bool, color: str, frame_filter: Any) -> None:
    """Numbers about a recorded session.

    \b
    - per command: count, errors, no reply, response latency p50/p95/max;
    - per run (agent_start..agent_end): time to first token, output tokens
      (usage.output), characters streamed, tokens/s and chars/s;
    - frames and bytes by type in each direction, and how much of the
      message_update bytes are snapshots (pi 0.73's partial and message);
    - stderr lines, findings by rule, the exit status.
    Filters select the frames that are counted.
    """
    import json

    from rpcspy.cli.recfile import (
        detect_dialect,
        flagged_frames,
        make_console,
        open_or_fail,
        quiet_broken_pipe,
        read_events,
        report_problems,
        want_progress,
    )
    from rpcspy.events import Finding, Frame
    from rpcspy.stats import Stats

    rec = open_or_fail(recording)
    flagged = flagged_frames(rec, frame_filter, check=check)
    stats = Stats(dialect=detect_dialect(rec, refine=False)[0])  # how the agent answers, as check tells it
    active = frame_filter.active
    counted: set[int] = set()
    for event in read_events(rec, check=check, progress=want_progress()):
        if active:
            if isinstance(event, Frame):
                if not frame_filter.match_frame(event, flagged=flagged):
                    continue
                counted.add(event.seq)
            elif isinstance(event, Finding):
                if event.frame is not None and event.frame not in counted:
                    continue
                if event.frame is None and not frame_filter.match_finding(event):
                    continue
            elif not frame_filter.match_event(event) and not frame_filter.only_findings:
                continue
        stats.feed(event)
    report = stats.report()
    try:
        if fmt == "json":
            sys.stdout.write(json.dumps(report, indent=2) + "\n")
        else:
            from rpcspy.render.stats_view import stats_renderables

            console = make_console(color=color)
            for part in stats_renderables(report):
                console.print(part)
        sys.stdout.flush()
    except BrokenPipeError:
        quiet_broken_pipe()
    report_problems(rec)
