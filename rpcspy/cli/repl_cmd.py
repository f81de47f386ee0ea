"""``rpcspy repl -- AGENT...``: drive an agent by hand, recorded like any proxied session."""

from __future__ import annotations

import os
import sys

import click

from rpcspy.cli.gap_opt import gap_after_option
from rpcspy.cli.record_opt import claim_recording, recording_options
from rpcspy.cli.run_cmd import AGENT_COMMAND_SETTINGS, DEFAULT_DIR, DIALECT_CHOICES


@click.command(
    "repl",
    context_settings=AGENT_COMMAND_SETTINGS,
    epilog="""\b
Examples:
  rpcspy repl -- pi --mode rpc
  rpcspy repl -o by-hand.jsonl -- omp --mode rpc
  rpcspy repl -- rpcspy replay --match type rec.jsonl    poke a recording
\b
At the prompt:
  prompt Hello there        set_thinking_level high       bash ls -la
  set_model anthropic claude-sonnet-4                     {"type": "get_state"}
  !prompt                   (! sends what validation refuses)   /help
Ctrl-C aborts what runs (or leaves when idle); Ctrl-D closes the agent's stdin.
\b
Options before the agent's name (or --) are rpcspy's: a misspelt one is a
usage error (exit 2, nothing started or recorded), never passed to the agent.""",
)
@recording_options()
@click.option("--dir", "directory", metavar="DIR", envvar="RPCSPY_DIR", show_envvar=True, default=DEFAULT_DIR,
              show_default=True, help="Directory for automatically named recordings.")
@click.option("--no-record", is_flag=True, help="Write no recording.")
@click.option("--dialect", type=click.Choice(DIALECT_CHOICES), default="auto", show_default=True,
              help="Protocol dialect for completion, validation and the live check (auto: detected).")
@click.option("--check/--no-check", default=True, show_default=True, help="Run the protocol checker live.")
@click.option("--no-control", is_flag=True, help="Offer no control socket (rpcspy watch/inject) for this session.")
@click.option("--history", "history", metavar="FILE",
              help="Command history file (default: $XDG_STATE_HOME/rpcspy/history).")
@click.option("--no-history", is_flag=True, help="Keep no command history.")
@gap_after_option
@click.argument("agent", nargs=-1, required=True, type=click.UNPROCESSED, metavar="-- AGENT_CMD [ARGS...]")
def command(output: str | None, overwrite: bool, directory: str, no_record: bool, dialect: str, check: bool, no_control: bool,
            history: str | None, no_history: bool, gap_after: float, agent: tuple[str, ...]) -> None:
    """Be the client of AGENT_CMD at an interactive prompt.

    Commands are typed in a short syntax (or as JSON), completed from the
    protocol's schemas, validated before they are sent, and numbered for you.
    The agent's stream is shown live above the prompt: assistant text as it
    streams, thinking dimmed, tool calls and output, responses with their
    latency, queue and compaction state, findings of the live checker.
    Extension dialogs are answered in place. The session is recorded exactly
    as `rpcspy -- AGENT_CMD` records it.
    """
    argv = list(agent)
    if argv and argv[0] == "--":
        argv = argv[1:]
    if not argv:
        raise click.UsageError("no agent command given: rpcspy repl [OPTIONS] -- AGENT_CMD [ARGS...]")
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        raise click.UsageError("rpcspy repl needs a terminal; to drive an agent from a script, use `rpcspy drive "
                               "STEPS.jsonl -o REC -- AGENT_CMD` (it waits for each command's response and run; "
                               "piping lines into `rpcspy -- AGENT_CMD` ends the session at their EOF, mid-run)")
    from rpcspy.interactive.app import ReplApp
    from rpcspy.interactive.backends import LocalBackend
    from rpcspy.interactive.history import history_path
    from rpcspy.recording.naming import default_path

    path = None if no_record else (output or default_path(directory, argv))
    backend = LocalBackend(argv, path, check=check, dialect=dialect, control=not no_control, gap_after=gap_after,
                           record_fd=claim_recording(path, overwrite))
    app = ReplApp(backend, dialect=dialect, history=None if no_history else (history or history_path()))
    code = app.run()
    sys.stdout.flush()
    os._exit(code)  # the proxy's relay threads may still block on the terminal; nothing is left to flush
