"""`rpcspy run` (the default command): proxy an agent and record the session."""

from __future__ import annotations

import os
import sys

import click

from rpcspy.cli.gap_opt import gap_after_option
from rpcspy.cli.otel_opts import otel_options
from rpcspy.cli.record_opt import claim_recording, recording_options
from rpcspy.protocol.spec import DIALECTS

DEFAULT_DIR = "recordings"
DIALECT_CHOICES = ("auto", *DIALECTS)
"""Every dialect plus auto (:mod:`rpcspy.protocol.spec` imports nothing, so the proxy starts without the schemas)."""
AGENT_COMMAND_SETTINGS = {"allow_interspersed_args": False}
"""Click settings of every command that starts an agent (run, repl): options up to the agent's name are
rpcspy's, so an unknown one is refused with click's "did you mean" (exit 2, nothing started or recorded),
never handed to the agent; everything from the agent's name on (or after ``--``) is the agent's."""


@click.command(
    "run",
    context_settings=AGENT_COMMAND_SETTINGS,
    epilog="""\b
Examples:
  rpcspy -- pi --mode rpc
  rpcspy -o session.jsonl -- pi --mode rpc --no-session
  RPCSPY_DIR=/tmp/rec rpcspy -- omp --mode rpc
  rpcspy --gap-after 0 -- pi --mode rpc  # never slow the agent for the recording
  OTEL_EXPORTER_OTLP_ENDPOINT=http://collector:4318 rpcspy --otel -- pi --mode rpc
\b
Exit status: the agent's (128+N if signal N killed it); 127 if the agent
command is not found, 126 if it cannot be executed, 2 for a usage error or
a recording path that is refused (nothing is started then).""",
)
@recording_options()
@click.option("--dir", "directory", metavar="DIR", envvar="RPCSPY_DIR", show_envvar=True,
              default=DEFAULT_DIR, show_default=True,
              help="Directory for automatically named recordings (UTC time + agent name).")
@click.option("--no-record", is_flag=True, help="Relay only; write no recording.")
@click.option("--check/--no-check", default=True, show_default=True,
              help="Run the protocol checker live (in the observer process, off the forwarding path, at its own "
                   "pace behind the recording: if it falls too far behind it stops with a note, and "
                   "`rpcspy check FILE` covers the rest).")
@click.option("--dialect", type=click.Choice(DIALECT_CHOICES), default="auto", show_default=True,
              help="Protocol dialect for the live check; auto detects it from the traffic.")
@click.option("--report", metavar="stderr|FILE",
              help="Also print findings as they happen, to stderr or a file (default: only recorded, plus a "
                   "one-line summary at exit if there were errors).")
@click.option("--report-level", type=click.Choice(["error", "warning", "info"]), default="warning", show_default=True,
              help="Lowest severity --report prints.")
@click.option("--strict-fields", is_flag=True, help="Report unknown fields as warnings, not info.")
@click.option("--strict-unknown", is_flag=True,
              help="Report agent frame types the dialect does not know as errors (default: info, a newer agent?) "
                   "and unknown fields as warnings.")
@click.option("--unanswered-after", type=click.FloatRange(min=0.1), metavar="SECONDS",
              help="Report a command still unanswered after SECONDS, as soon as that happens (default: only "
                   "at the end of the session).")
@click.option("--ignore", "ignore", multiple=True, metavar="RULE", help="Never report this rule (repeatable).")
@click.option("--no-control", is_flag=True, help="Do not offer a control socket (rpcspy sessions/inject/watch).")
@click.option("--tmp-dir", "tmp_dir", metavar="DIR", envvar="RPCSPY_TMPDIR", hidden=True,
              help="Deprecated, does nothing (a warning says so): rpcspy keeps nothing in temporary files any more; "
                   "older command lines that pass it still run.")
@click.option("--legs", is_flag=True,
              help="Record an ACP adapter's back end too (pi-acp: the command in PI_ACP_PI_COMMAND, default pi): "
                   "each back-end process is run through `rpcspy run` into a sibling recording REC.back.PID.jsonl "
                   "on the same clock; `rpcspy legs REC` shows both side by side (docs/acp.md).")
@click.option("--leg-of", "leg_of", metavar="FRONT", hidden=True,
              help="(used by --legs) This is a back leg of the recording FRONT.")
@gap_after_option
@otel_options
@click.argument("agent", nargs=-1, required=True, type=click.UNPROCESSED, metavar="-- AGENT_CMD [ARGS...]")
def command(output: str | None, overwrite: bool, directory: str, no_record: bool, check: bool, dialect: str,
            report: str | None, report_level: str, strict_fields: bool, strict_unknown: bool,
            unanswered_after: float | None, ignore: tuple[str, ...], no_control: bool,
            tmp_dir: str | None, legs: bool, leg_of: str | None, gap_after: float, otel: bool, otel_content: bool,
            agent: tuple[str, ...]) -> None:
    """Proxy AGENT_CMD transparently and record both directions and its stderr.

    Your client spawns `rpcspy -- pi --mode rpc` instead of `pi --mode rpc` and
    notices nothing: stdin, stdout and stderr pass through byte for byte, in
    order, with no line-length limit. rpcspy's own messages go to stderr,
    prefixed `rpcspy:`; stdout belongs to the client.

    The recording is JSONL (format: docs/recording-format.md), written as frames
    arrive (`tail -f` works), readable with jq, created owner-only (0600).
    """
    from rpcspy.pump.forward.stdio import fill_closed_std_fds

    fill_closed_std_fds()  # first: a file opened below must not take the number of a closed stdin/stdout
    if tmp_dir is not None:
        click.echo(f"rpcspy: warning: {tmp_dir_warning(click.get_current_context())}", err=True)
    from rpcspy.cli.otel_opts import check_content, otel_observer, otel_settings
    from rpcspy.pump.forward.hub import Observer
    from rpcspy.pump.forward.session import ObserverFactory
    from rpcspy.pump.proxy import ProxyConfig, run_proxy
    from rpcspy.recording.naming import default_path

    argv = list(agent)
    if argv and argv[0] == "--":
        argv = argv[1:]
    if not argv:
        raise click.UsageError("no agent command given: rpcspy [OPTIONS] -- AGENT_CMD [ARGS...]")
    path = None if no_record else (output or default_path(directory, argv))
    observers: list[ObserverFactory] = []
    if check:  # the checker (and the schemas it loads) is imported by the observer process, after the fork
        def checker(_session: object) -> list[Observer]:
            from rpcspy.pump.observers.check_observer import CheckObserver, CheckOptions

            return [CheckObserver(CheckOptions(dialect=dialect, strict_fields=strict_fields,
                                               strict_unknown=strict_unknown, ignore=frozenset(ignore),
                                               report=report, min_severity=report_level,
                                               unanswered_after=unanswered_after))]

        observers.append(checker)
    check_content(otel, otel_content)
    if otel and (settings := otel_settings()) is not None:
        observers.append(otel_observer(settings, otel_content))
    env = None
    wrapper_dir = None
    if legs:
        if path is None:
            raise click.UsageError("--legs records the back end next to the recording: drop --no-record")
        path = os.path.abspath(path)
        wrapper_dir, env = _back_leg_env(path, check)
    config = ProxyConfig(argv=argv, record_path=path, observers=observers, observer_process=True,
                         control=not no_control, record_fd=claim_recording(path, overwrite),
                         gap_after=gap_after, env=env, leg="front" if legs else ("back" if leg_of else None),
                         front=leg_of)
    try:
        code = run_proxy(config)
    finally:
        if wrapper_dir is not None:
            import shutil

            shutil.rmtree(wrapper_dir, ignore_errors=True)
    if sys.stdout is not None:  # None when rpcspy was started with stdout closed
        sys.stdout.flush()
    os._exit(code)  # relay threads may still block in read(stdin); nothing is left to flush


LEG_ENV = "PI_ACP_PI_COMMAND"
"""The variable an adapter reads its back-end command from (pi-acp's), and its default."""
LEG_DEFAULT = "pi"


def _back_leg_env(front: str, check: bool) -> tuple[str, dict[str, str]]:
    """A directory holding a wrapper that runs the back end through ``rpcspy run --leg-of FRONT``, and the
    environment that points the adapter at it."""
    import shlex
    import tempfile

    back = shlex.quote(front.removesuffix(".jsonl")) + '.back.$$.jsonl'
    inner = os.environ.get(LEG_ENV) or LEG_DEFAULT
    directory = tempfile.mkdtemp(prefix="rpcspy-legs-")
    wrapper = os.path.join(directory, "back-leg")
    flags = "" if check else " --no-check"
    with open(wrapper, "w", encoding="utf-8") as f:  # exec keeps the shell's pid: $$ names the back leg's rpcspy
        f.write(f"#!/bin/sh\nexec {shlex.quote(sys.executable)} -m rpcspy run --leg-of {shlex.quote(front)}{flags} "
                f"-o {back} -- {shlex.quote(inner)} \"$@\"\n")
    os.chmod(wrapper, 0o700)
    return directory, {**os.environ, LEG_ENV: wrapper}


def tmp_dir_warning(ctx: click.Context) -> str:
    """What a user of the old ``--tmp-dir`` (or ``RPCSPY_TMPDIR``) is told: it is accepted, and does nothing."""
    from click.core import ParameterSource

    name = "RPCSPY_TMPDIR" if ctx.get_parameter_source("tmp_dir") == ParameterSource.ENVIRONMENT else "--tmp-dir"
    return (f"{name} no longer does anything: rpcspy keeps no tape, spool or other temporary file any more "
            "(bytes are copied straight from the agent to the client); drop it")

