"""`rpcspy check REC...`: run the protocol checker over recordings (or pi transcripts)."""

from __future__ import annotations

import sys
from typing import Any

import click

from rpcspy.cli.exits import FINDINGS as EXIT_FINDINGS
from rpcspy.cli.exits import OK as EXIT_OK
from rpcspy.cli.exits import USAGE as EXIT_UNREADABLE
from rpcspy.cli.filter_opts import filter_options
from rpcspy.protocol.spec import DIALECTS


def _dialects() -> list[str]:
    from rpcspy.checker.schema import known_dialects

    return ["auto", *known_dialects()]


@click.command(
    "check",
    epilog="""\b
Examples:
  rpcspy check recordings/*.jsonl
  rpcspy check --fail-on warning --format junit s.jsonl > report.xml
  rpcspy check --ignore framing.crlf --dialect pi-0.73 s.jsonl
  rpcspy check --strict-unknown --fail-on error s.jsonl   # a new agent event fails CI
  rpcspy check --write-baseline .rpcspy-baseline.json ci/*.jsonl   # accept today's findings
  rpcspy check --baseline .rpcspy-baseline.json ci/*.jsonl         # fail only on new ones
  rpcspy check --format sarif ci/*.jsonl > rpcspy.sarif             # for code-scanning UIs
\b
Exit status: 0 clean, 1 when a finding reaches --fail-on (with --baseline:
a new one), 2 for an unreadable recording or baseline or a usage error, 4
when the output cannot be written.""",
)
@click.argument("recordings", nargs=-1, required=True, metavar="REC...")
@click.option("--fail-on", type=click.Choice(["error", "warning", "info"]), default="error", show_default=True,
              help="Exit 1 when a finding of this severity or worse is reported.")
@click.option("--format", "fmt", type=click.Choice(["text", "json", "junit", "sarif"]), default="text",
              show_default=True,
              help="text for people, json (one finding per line) for tools, junit for CI, sarif (2.1.0) for "
                   "code-scanning UIs.")
@click.option("--dialect", default="auto", show_default=True, metavar="DIALECT",
              help=f"Protocol dialect: auto (detect from the traffic), {', '.join(DIALECTS)}.")
@click.option("--ignore", "ignore", multiple=True, metavar="RULE", help="Do not report RULE (repeatable).")
@click.option("--strict-fields", is_flag=True, help="Report unknown fields as warnings instead of info.")
@click.option("--strict-unknown", is_flag=True,
              help="Report agent frame types the dialect does not know as errors (default: info, a newer agent?) "
                   "and unknown fields as warnings.")
@click.option("--unanswered-after", type=click.FloatRange(min=0, min_open=True), metavar="SECONDS",
              help="Also report commands still unanswered SECONDS after they were sent. ACP: requests both ways "
                   "(the client's, and the agent's session/request_permission, fs/*, terminal/* the client owes "
                   "an answer to); a session/prompt once its session has been silent SECONDS (a turn that "
                   "streams is not late) and the agent is not waiting on the client.")
@click.option("--baseline", type=click.Path(dir_okay=False), metavar="FILE",
              help="Findings a team accepted (by rule and location): report and fail only on new ones; list the "
                   "stale entries (fixed) on stderr.")
@click.option("--write-baseline", type=click.Path(dir_okay=False), metavar="FILE",
              help="Write every finding reported as the baseline FILE (replaced whole) and exit 0.")
@filter_options
def command(recordings: tuple[str, ...], fail_on: str, fmt: str, dialect: str, ignore: tuple[str, ...],
            strict_fields: bool, strict_unknown: bool, unanswered_after: float | None, baseline: str | None,
            write_baseline: str | None, frame_filter: Any) -> None:
    """Check recordings for protocol violations: who broke the protocol, where.

    Each recording is checked on its own, frame by frame, with the rules that
    `rpcspy rules` lists. Findings recorded live are ignored: the check runs
    afresh. The dialect chosen, and why, is printed on stderr.

    The filter options choose which findings are reported (the checker still
    reads every frame): --dir and --seq/--time select by the frame a finding is
    about, --type the type or command of that frame (prompt) or a rule id,
    group or severity (schema.*, error), and --grep the rule and message.

    In CI, --baseline FILE accepts the findings a team has agreed to live with
    (written by --write-baseline): a finding is matched by recording path,
    rule, direction, JSON path and message (numbers blanked), never by frame
    number, so re-recording the same session keeps it accepted. New findings
    are reported and fail; baseline entries nothing matched are stale (fixed)
    and listed, so the baseline shrinks.
    """
    from rpcspy.checker import report
    from rpcspy.checker.rules import RULES, SEVERITY_RANK
    from rpcspy.cli.exits import freeze_at_exit
    from rpcspy.cli.recfile import warn_unread
    from rpcspy.offline import findings_passing

    freeze_at_exit()  # the process ends with the command: no teardown of its schemas and modules

    if dialect not in _dialects():
        raise click.BadParameter(f"{dialect!r} is not one of {', '.join(_dialects())}", param_hint="--dialect")
    unknown = [r for r in ignore if r not in RULES]
    if unknown:
        raise click.BadParameter(f"no rule {', '.join(unknown)} (`rpcspy rules` lists them)", param_hint="--ignore")
    accepted = _read_baseline(baseline) if baseline else None
    whole = fmt in ("junit", "sarif") or accepted is not None or write_baseline is not None
    results = []
    unreadable = False
    for path in recordings:
        result = _check_one(path, dialect, frozenset(ignore), strict_fields, unanswered_after, strict_unknown)
        if result is None:
            unreadable = True
            continue
        if frame_filter.active:
            result.findings, problem = findings_passing(frame_filter, result.findings, path)
            warn_unread(problem)
        results.append(result)
        if fmt == "json":  # one finding a line on stdout: the notes go where the dialect line goes
            for note in result.notes:
                click.echo(f"rpcspy: {path}: {note}", err=True)
        if not whole:
            report.write(fmt, result, sys.stdout)
    if write_baseline is not None:
        _write_baseline(write_baseline, results)
        sys.exit(EXIT_UNREADABLE if unreadable else EXIT_OK)
    if accepted is not None:
        _apply_baseline(results, accepted)
    if fmt == "junit":
        report.write_junit(results, SEVERITY_RANK[fail_on], sys.stdout)
    elif fmt == "sarif":
        _write_sarif(results)
    elif whole:
        for result in results:
            report.write(fmt, result, sys.stdout)
    if fmt == "text" and len(results) > 1:
        report.write_total(results, sys.stdout)
    sys.stdout.flush()
    if unreadable:
        sys.exit(EXIT_UNREADABLE)
    threshold = SEVERITY_RANK[fail_on]
    if any(SEVERITY_RANK[f.severity] >= threshold for r in results for f in r.findings):
        sys.exit(EXIT_FINDINGS)


def _check_one(path: str, dialect: str, ignore: frozenset[str], strict: bool, after: float | None,
               strict_unknown: bool = False) -> Any:
    """One recording's Result (rpcspy.offline.check), the dialect said on stderr; None when it cannot be read."""
    from rpcspy.cli.recfile import progress_bar
    from rpcspy.inert import inert_line
    from rpcspy.offline import RecordingError, open_reading
    from rpcspy.offline.check import CheckOptions, check_reading

    try:
        reading = open_reading(path, progress_bar if _stderr_is_tty() else None)
        result = check_reading(reading, CheckOptions(dialect, ignore, strict, strict_unknown, after))
    except RecordingError as exc:
        click.echo(f"rpcspy: error: {exc}", err=True)
        return None
    except OSError as exc:
        click.echo(f"rpcspy: error: {path}: cannot read: {exc.strerror or exc}", err=True)
        return None
    click.echo(inert_line(f"rpcspy: {path}: dialect {result.dialect} ({result.reason})"), err=True)
    return result


def _stderr_is_tty() -> bool:
    try:
        return sys.stderr.isatty()
    except (AttributeError, ValueError):
        return False


def _read_baseline(path: str) -> Any:
    from rpcspy.checker.baseline import BaselineError, load
    from rpcspy.cli.textfile import read_option_file

    return read_option_file(path, load, (BaselineError,), "--baseline")


def _apply_baseline(results: list[Any], accepted: Any) -> None:
    """Keep only the findings the baseline does not accept; say what it accepted and what is stale."""
    from rpcspy.checker.baseline import compare
    from rpcspy.render.summarize import clean

    comparison = compare({r.path: r.findings for r in results}, accepted)
    for r in results:
        r.findings = comparison.new.get(r.path, [])
    new = sum(len(fs) for fs in comparison.new.values())
    stale = sum(e["count"] for e in comparison.stale)
    click.echo(f"rpcspy: baseline: {comparison.accepted} accepted, {new} new, {stale} stale", err=True)
    for e in comparison.stale:
        click.echo(clean(f"rpcspy: stale (fixed, remove it from the baseline): {e['file']} {e['rule']}: "
                         f"{e['message']} (x{e['count']})"), err=True)


def _write_baseline(path: str, results: list[Any]) -> None:
    from rpcspy.checker.baseline import dump
    from rpcspy.cli.textfile import write_whole

    write_whole(path, dump({r.path: r.findings for r in results}))
    n = sum(len(r.findings) for r in results)
    click.echo(f"rpcspy: baseline {path}: {n} finding(s) of {len(results)} recording(s) accepted", err=True)


def _write_sarif(results: list[Any]) -> None:
    import json

    from rpcspy import __version__
    from rpcspy.checker.sarif import sarif
    from rpcspy.offline import seq_lines

    lines = {}
    for r in results:
        seqs = {f.frame for f in r.findings if f.frame is not None}
        try:
            lines[r.path] = seq_lines(r.path, seqs, native=r.native)
        except OSError:
            lines[r.path] = {}
    sys.stdout.write(json.dumps(sarif(results, lines, __version__), indent=1, ensure_ascii=False) + "\n")
