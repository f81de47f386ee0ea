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
  rpcspy stats rec.jsonl --time 10..        only the second part of a session
  rpcspy stats recordings/*.jsonl           one report over many sessions
  rpcspy stats ci/*.jsonl --group-by version --format json > fleet.jsonl
      (then in DuckDB: SELECT * FROM 'fleet.jsonl' WHERE metric = 'command')""",
)
@click.argument("recordings", nargs=-1, required=True, metavar="REC...", type=click.Path(dir_okay=False))
@click.option("--format", "fmt", type=click.Choice(["table", "json"]), default="table", show_default=True,
              help="Rich tables, or JSON: one object for one recording, one row per line for many.")
@click.option("--check", is_flag=True, help="Count findings from a fresh checker run instead of the recorded ones.")
@click.option("--group-by", type=click.Choice(["none", "version", "agent", "dialect"]), default=None,
              help="Many recordings: one report per agent version (read from the command line), agent or "
                   "dialect [default: none, one report over all].")
@click.option("-j", "--jobs", type=click.IntRange(min=1), default=None, metavar="N",
              help="Many recordings: read N at a time, each in its own process [default: every core].")
@color_option
@filter_options
def command(recordings: tuple[str, ...], fmt: str, check: bool, group_by: str | None, jobs: int | None, color: str,
            frame_filter: Any) -> None:
    """Numbers about a recorded session, or about many at once.

    One recording:

    \b
    - per command: count, errors, no reply, response latency p50/p95/max;
    - per run (agent_start..agent_end): time to first token, output tokens
      (usage.output), characters streamed, tokens/s and chars/s;
    - frames and bytes by type in each direction, and how much of the
      message_update bytes are snapshots (pi 0.73's partial and message);
    - stderr lines, findings by rule, the exit status.
    Filters select the frames that are counted.

    Several recordings (or --group-by): one report over all of them, or one
    per group: recordings, agents and versions seen, dialects, exits; per
    command the count, errors, commands with no reply and response latency
    p50/p95/p99/max; time to first token and settle time (agent_start to
    agent_end) p50/p95/p99/max; findings by rule with how many recordings
    had them. Quantiles are within 1 % (a mergeable sketch), memory stays flat
    however many recordings are read, and every core reads (-j). A
    recording that cannot be read is listed and counted, not fatal (exit 2
    at the end). --format json writes one flat row per metric, per line.
    """
    if len(recordings) > 1 or group_by is not None:
        if frame_filter.active:
            raise click.UsageError("the frame filters apply to one recording; give one REC, or drop the filters")
        _fleet(recordings, fmt, check, group_by or "none", jobs, color)
        return
    _one(recordings[0], fmt, check, color, frame_filter)


def _fleet(recordings: tuple[str, ...], fmt: str, check: bool, group_by: Any, jobs: int | None, color: str) -> None:
    """Many recordings merged by group (rpcspy.fleet), read on every core (rpcspy.pump.commands.pool)."""
    import functools
    import json

    from rpcspy.cli.exits import USAGE
    from rpcspy.cli.recfile import make_console, quiet_broken_pipe, want_progress
    from rpcspy.fleet.aggregate import Fleet
    from rpcspy.fleet.read import summarise_file
    from rpcspy.pump.commands.pool import default_jobs, imap

    fleet = Fleet(group_by)
    progress = want_progress()
    total = len(recordings)
    for n, summary in enumerate(imap(functools.partial(summarise_file, check=check), recordings,
                                     jobs or default_jobs()), start=1):
        fleet.add(summary)
        if summary.error is not None:
            click.echo(f"rpcspy: error: {summary.path}: {summary.error}", err=True)
        if progress:
            click.echo(f"\rrpcspy: read {n:,} of {total:,} recordings", err=True, nl=n == total)
    rows = fleet.rows()
    try:
        if fmt == "json":
            for row in rows:
                sys.stdout.write(json.dumps(row) + "\n")
        else:
            from rpcspy.render.fleet_view import fleet_renderables

            console = make_console(color=color)
            for part in fleet_renderables(rows, fleet.unreadable):
                console.print(part)
        sys.stdout.flush()
    except BrokenPipeError:
        quiet_broken_pipe()
    if fleet.unreadable:
        sys.exit(USAGE)


def _one(recording: str, fmt: str, check: bool, color: str, frame_filter: Any) -> None:
    """One recording, as it always was."""
    import json

    from rpcspy.cli.recfile import make_console, open_or_fail, quiet_broken_pipe, report_problems, want_progress
    from rpcspy.offline import selected
    from rpcspy.stats import Stats

    reading = open_or_fail(recording, progress=want_progress())
    flagged = reading.flagged(frame_filter, check=check)
    stats = Stats(dialect=reading.dialect(refine=False)[0])  # how the agent answers, as check tells it
    for event in selected(reading.events(check=check), frame_filter, flagged):
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
    report_problems(reading)
