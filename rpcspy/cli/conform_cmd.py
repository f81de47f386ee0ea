"""``rpcspy conform -- AGENT...``: the conformance battery against a real agent."""

from __future__ import annotations

import sys

import click

from rpcspy.cli.otel_opts import otel_options
from rpcspy.protocol.spec import ACP_V1


@click.command(
    "conform",
    epilog="""\b
Examples:
  rpcspy conform -- pi --mode rpc                   every case, text report
  rpcspy conform --no-model -- omp --mode rpc       only the cases that need no model reply
  rpcspy conform --case 'framing.*' --case id.every -- pi --mode rpc
  rpcspy conform --format junit -- pi --mode rpc > conform.xml
  rpcspy conform --list                             the cases, with the rule each checks
  rpcspy conform --agent pi-1.5.2='node ~/pi152/cli.js --mode rpc' \\
                 --agent pi-1.6.0='node ~/pi160/cli.js --mode rpc' --agent 'omp --mode rpc'
                                                    a matrix: one table, one column per agent
  rpcspy conform --write-baseline conform.json -- pi --mode rpc    accept today's outcomes
  rpcspy conform --baseline conform.json -- pi --mode rpc          fail only on new failures
  rpcspy conform --otel -- pi --mode rpc            each case as a trace (OTEL_* variables)
  rpcspy conform -- omp acp                         the ACP cases (the command names ACP)
  PI_ACP_PI_COMMAND=pi rpcspy conform -- pi-acp     pi behind the pi-acp adapter
  rpcspy conform --dialect acp-v1 -- my-agent       force the ACP cases
\b
Exit status: 0 when no case failed (deviations are reported, not failures;
with --baseline: no failure the baseline does not accept), 1 when a case
failed, 2 for usage errors or an unreadable baseline, 130 on Ctrl-C (the
cases that finished are reported).""",
)
@click.argument("agent", nargs=-1, type=click.UNPROCESSED)
@click.option("--case", "patterns", multiple=True, metavar="GLOB", help="Run only matching case ids (repeatable).")
@click.option("--no-model", is_flag=True, help="Skip the cases that need a model reply (prompts, runs, shutdown).")
@click.option("--format", "fmt", type=click.Choice(["text", "json", "junit"]), default="text", show_default=True)
@click.option("-j", "--jobs", type=click.IntRange(1, 16), default=2, show_default=True,
              help="Cases run at the same time (each is its own agent process).")
@click.option("--agent-args/--no-agent-args", default=True, show_default=True,
              help="Append --no-session --provider fake --model fake-model to the agent command (pi's battery; "
                   "an ACP agent's command is run as given).")
@click.option("--agent", "matrix", multiple=True, metavar="[LABEL=]COMMAND",
              help="An agent of a matrix (repeatable; instead of the command after --): its command line, "
                   "split like a shell, optionally named LABEL (default: the agent and version it names).")
@click.option("--baseline", type=click.Path(dir_okay=False), metavar="FILE",
              help="Outcomes a team accepted, per agent and case: only a failure it does not accept fails; "
                   "accepted deviations or failures that now pass are listed as stale.")
@click.option("--write-baseline", type=click.Path(dir_okay=False), metavar="FILE",
              help="Write every outcome that is not `passed` as the baseline FILE (replaced whole).")
@click.option("--dialect", type=click.Choice(["auto", "pi", ACP_V1]), default="auto", show_default=True,
              help="Which battery: pi's RPC cases (pi, omp --mode rpc) or the ACP cases (acp-v1). auto: acp-v1 when "
                   "the command names ACP (an argument `acp`, `pi-acp`, `*-acp/*`), pi when it has --mode; "
                   "otherwise the agent is started once and sent an ACP initialize: a JSON-RPC answer means acp-v1.")
@click.option("--list", "list_", is_flag=True, help="List the cases (both batteries) and exit.")
@otel_options
def command(agent: tuple[str, ...], patterns: tuple[str, ...], no_model: bool, fmt: str, jobs: int,
            agent_args: bool, matrix: tuple[str, ...], baseline: str | None, write_baseline: str | None,
            dialect: str, list_: bool, otel: bool, otel_content: bool) -> None:
    """Run a battery of protocol cases against an agent and report each one.

    Each case starts a fresh agent with a temporary HOME whose provider
    ``fake`` points at rpcspy's scripted model server on 127.0.0.1 (see
    ``rpcspy model-server``): no API key, no network. Every case is reported as
    passed (as documented), deviation (works, but not as documented; the rule in
    docs/rules.md that explains it is named) or failed (no answer, a hang, a
    crash). Cases: framing, id correlation, ordering, run lifecycle, errors,
    dialogs (through a small extension written into the temporary HOME),
    shutdown. docs/conformance.md has the report card of the known agents.

    An agent speaking ACP (``omp acp``, ``pi-acp``; see --dialect) gets the ACP
    cases instead: initialize and capabilities, session/new, a prompt turn,
    string and number ids, JSON-RPC errors (-32601, -32602, -32700), a
    permission allowed and denied, session/cancel mid-turn, EOF. They share one
    agent process, in order, as an editor would (a new one if it dies); the
    agent's command gets no arguments added, and pi behind pi-acp finds the
    fake model as its default (PI_ACP_* variables are passed on).
    """
    from rpcspy.conform.cases import DIALECTS, battery, select

    if list_:
        for name in DIALECTS:
            click.echo(f"# {name}")
            for c in battery(name):
                model = " (model)" if c.needs_model else ""
                click.echo(f"{c.id:30} {c.title}{model}  [{c.rule or c.doc}]")
        return
    if agent and matrix:
        raise click.UsageError("give the agent after -- or with --agent, not both")
    if not agent and not matrix:
        raise click.UsageError("give the agent command after --, e.g. rpcspy conform -- pi --mode rpc "
                               "(or several with --agent)")
    agents = [(" ".join(agent), list(agent))] if agent else [_agent_spec(spec) for spec in matrix]
    if len({label for label, _ in agents}) < len(agents):
        raise click.UsageError("two --agent have the same label; name them LABEL=COMMAND")
    from rpcspy.pump.commands.conform_acp import dialect_of

    spoken = {label: dialect if dialect != "auto" else dialect_of(argv) for label, argv in agents}
    chosen = {label: select(patterns, model=not no_model, dialect=spoken[label]) for label, _ in agents}
    if not any(chosen.values()):
        which = " or ".join(sorted(set(spoken.values())))
        raise click.UsageError(f"no {which} case matches {' '.join(patterns)!r} (see rpcspy conform --list)")
    accepted = _read_baseline(baseline) if baseline else None
    from rpcspy.cli.otel_opts import case_exporter

    export = case_exporter(otel, otel_content)
    current: list[str] = []
    from rpcspy.cli.textfile import write_whole
    from rpcspy.conform import matrix as conform_matrix
    from rpcspy.conform.report import FORMATS, Row
    from rpcspy.pump.commands.conform_acp import run_acp_battery
    from rpcspy.pump.commands.conform_runner import run_battery

    def progress(result) -> None:
        if fmt == "text" and sys.stderr.isatty():
            click.echo(f"  ... {result.case.id}: {result.verdict.status}", err=True)
        if export is not None:
            export.case(result, current)

    from rpcspy.cli.exits import INTERRUPTED
    from rpcspy.pump.commands.conform_runner import BatteryInterrupted

    results: dict[str, list[Row]] = {}
    cut: BatteryInterrupted | None = None
    for label, argv in agents:
        if len(agents) > 1 and sys.stderr.isatty():
            click.echo(f"rpcspy conform: {label}", err=True)
        current[:] = argv
        try:
            if spoken[label] == ACP_V1:
                done = run_acp_battery(chosen[label], argv, on_result=progress)
            else:
                done = run_battery(chosen[label], argv, jobs=jobs, agent_args=agent_args, on_result=progress)
        except BatteryInterrupted as stop:  # Ctrl-C: the finished cases are reported, exit 130
            done, cut = stop.results, stop
        results[label] = [Row(r.case, r.verdict, r.seconds, tuple(r.transcript.rules())) for r in done]
        if cut is not None:
            break
    if export is not None:
        export.close()
    if len(agents) == 1 and not matrix:
        sys.stdout.write(FORMATS[fmt](results[agents[0][0]], agents[0][0]))
    else:
        sys.stdout.write(conform_matrix.FORMATS[fmt](results))
    if cut is not None:  # no baseline is written or judged from a partial battery
        sys.stdout.flush()
        finished = sum(len(rows) for rows in results.values())
        click.echo(f"rpcspy conform: interrupted: {finished} of {sum(map(len, chosen.values()))} cases finished and "
                   "reported", err=True)
        sys.exit(INTERRUPTED)
    if write_baseline is not None:
        write_whole(write_baseline, conform_matrix.dump_baseline(results))
    if accepted is not None:
        verdict = conform_matrix.against_baseline(results, accepted)
        for label, row in verdict.new:
            click.echo(f"rpcspy: new failure: {label} {row.case.id}: {row.verdict.detail}", err=True)
        for label, case, status in verdict.stale:
            click.echo(f"rpcspy: stale (now better than the accepted {status}): {label} {case}", err=True)
        sys.exit(1 if verdict.new else 0)
    sys.exit(1 if any(r.verdict.status == "failed" for rows in results.values() for r in rows) else 0)


def _agent_spec(spec: str) -> tuple[str, list[str]]:
    """``LABEL=COMMAND`` or ``COMMAND`` -> (label, argv)."""
    import re
    import shlex

    from rpcspy.recording.naming import UNKNOWN, agent_version, identity

    named = re.match(r"^([\w.@+-]+)=(.+)$", spec, re.S)
    text = named.group(2) if named else spec
    try:
        argv = shlex.split(text)
    except ValueError as exc:
        raise click.BadParameter(f"{spec!r}: {exc}", param_hint="--agent") from None
    if not argv:
        raise click.BadParameter(f"{spec!r} has no command", param_hint="--agent")
    if named:
        return named.group(1), argv
    return (identity(argv) if agent_version(argv) != UNKNOWN else " ".join(argv)), argv


def _read_baseline(path: str) -> dict[tuple[str, str], str]:
    from rpcspy.cli.textfile import read_option_file
    from rpcspy.conform.matrix import ConformBaselineError, load_baseline

    return read_option_file(path, load_baseline, (ConformBaselineError,), "--baseline")
