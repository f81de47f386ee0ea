"""``rpcspy conform -- AGENT...``: the conformance battery against a real agent."""

from __future__ import annotations

import sys

import click


@click.command(
    "conform",
    epilog="""\b
Examples:
  rpcspy conform -- pi --mode rpc                   every case, text report
  rpcspy conform --no-model -- omp --mode rpc       only the cases that need no model reply
  rpcspy conform --case 'framing.*' --case id.every -- pi --mode rpc
  rpcspy conform --format junit -- pi --mode rpc > conform.xml
  rpcspy conform --list                             the cases, with the rule each checks
\b
Exit status: 0 when no case failed (deviations are reported, not failures),
1 when a case failed, 2 for usage errors, 130 on Ctrl-C (the cases that
finished are reported).""",
)
@click.argument("agent", nargs=-1, type=click.UNPROCESSED)
@click.option("--case", "patterns", multiple=True, metavar="GLOB", help="Run only matching case ids (repeatable).")
@click.option("--no-model", is_flag=True, help="Skip the cases that need a model reply (prompts, runs, shutdown).")
@click.option("--format", "fmt", type=click.Choice(["text", "json", "junit"]), default="text", show_default=True)
@click.option("-j", "--jobs", type=click.IntRange(1, 16), default=2, show_default=True,
              help="Cases run at the same time (each is its own agent process).")
@click.option("--agent-args/--no-agent-args", default=True, show_default=True,
              help="Append --no-session --provider fake --model fake-model to the agent command.")
@click.option("--list", "list_", is_flag=True, help="List the cases and exit.")
def command(agent: tuple[str, ...], patterns: tuple[str, ...], no_model: bool, fmt: str, jobs: int,
            agent_args: bool, list_: bool) -> None:
    """Run a battery of protocol cases against an agent and report each one.

    Each case starts a fresh agent with a temporary HOME whose provider
    ``fake`` points at rpcspy's scripted model server on 127.0.0.1 (see
    ``rpcspy model-server``): no API key, no network. Every case is reported as
    passed (as documented), deviation (works, but not as documented; the rule in
    docs/rules.md that explains it is named) or failed (no answer, a hang, a
    crash). Cases: framing, id correlation, ordering, run lifecycle, errors,
    dialogs (through a small extension written into the temporary HOME),
    shutdown. docs/conformance.md has the report card of the known agents.
    """
    from rpcspy.conform.cases import CASES, select

    if list_:
        for c in CASES:
            model = " (model)" if c.needs_model else ""
            click.echo(f"{c.id:30} {c.title}{model}  [{c.rule or c.doc}]")
        return
    if not agent:
        raise click.UsageError("give the agent command after --, e.g. rpcspy conform -- pi --mode rpc")
    cases = select(patterns, model=not no_model)
    if not cases:
        raise click.UsageError(f"no case matches {' '.join(patterns)!r} (see rpcspy conform --list)")
    from rpcspy.conform.report import FORMATS, Row
    from rpcspy.pump.conform_runner import run_battery

    def progress(result) -> None:
        if fmt == "text" and sys.stderr.isatty():
            click.echo(f"  ... {result.case.id}: {result.verdict.status}", err=True)

    from rpcspy.cli.exits import INTERRUPTED
    from rpcspy.pump.conform_runner import BatteryInterrupted

    cut: BatteryInterrupted | None = None
    try:
        results = run_battery(cases, list(agent), jobs=jobs, agent_args=agent_args, on_result=progress)
    except BatteryInterrupted as stop:  # Ctrl-C: the finished cases are reported, exit 130
        results, cut = stop.results, stop
    rows = [Row(r.case, r.verdict, r.seconds, tuple(r.transcript.rules())) for r in results]
    sys.stdout.write(FORMATS[fmt](rows, " ".join(agent)))
    sys.stdout.flush()
    if cut is not None:
        click.echo(f"rpcspy conform: interrupted: {len(rows)} of {cut.total} cases finished and reported",
                   err=True)
        sys.exit(INTERRUPTED)
    sys.exit(1 if any(r.verdict.status == "failed" for r in rows) else 0)
