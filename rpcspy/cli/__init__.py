"""The click shell: a group whose default command is the proxy.

``rpcspy [OPTIONS] -- AGENT...`` is routed to ``rpcspy run``. Subcommands are
imported lazily from :data:`COMMANDS` so ``rpcspy --help`` stays instant.
"""

from __future__ import annotations

import importlib

import click

from rpcspy import __version__

COMMANDS: dict[str, tuple[str, str]] = {
    # name: (module, one-line help shown by `rpcspy --help` without importing the module)
    "run": ("rpcspy.cli.run_cmd", "Proxy an agent and record the session (the default command)."),
    "demo": ("rpcspy.cli.demo_cmd", "Run the proxy on a bundled fake agent: no pi, no API key."),
    "show": ("rpcspy.cli.show_cmd", "Show a recording as a readable timeline (or its exact frames with --raw)."),
    "stats": ("rpcspy.cli.stats_cmd", "Latency, time to first token, tokens/s, bytes, findings: one recording or many."),
    "export": ("rpcspy.cli.export_cmd", "Export a recording as one self-contained HTML page."),
    "browse": ("rpcspy.cli.browse_cmd", "Browse a recording full-screen: fold, search, filter, findings, frame JSON."),
    "check": ("rpcspy.cli.check_cmd", "Check recordings for protocol violations (exit 1 when --fail-on is met)."),
    "rules": ("rpcspy.cli.rules_cmd", "List the checker's rules, or explain one: rpcspy rules ID."),
    "replay": ("rpcspy.cli.replay_cmd", "Be the recorded agent for a live client (or, with --client, the client)."),
    "fixture": ("rpcspy.cli.fixture_cmd", "Turn a recording into a stable regression fixture (volatile values normalised)."),
    "diff": ("rpcspy.cli.diff_cmd", "Compare two recordings semantically, frame by frame (exit 1 on a difference)."),
    "schema": ("rpcspy.cli.schema_cmd", "Print the JSON Schema of the protocol (per dialect) for client authors."),
    "repl": ("rpcspy.cli.repl_cmd", "Drive an agent by hand at an interactive prompt (recorded like a proxied session)."),
    "sessions": ("rpcspy.cli.sessions_cmd", "List the live proxied sessions (pid, agent, start, recording, frame counts)."),
    "watch": ("rpcspy.cli.watch_cmd", "Follow a live session (or a growing recording) with the live timeline."),
    "inject": ("rpcspy.cli.inject_cmd", "Inject commands into a live session; its client never sees their answers."),
    "drive": ("rpcspy.cli.drive_cmd", "Send a JSONL script of commands to an agent, step by step, and record the session."),
    "why": ("rpcspy.cli.why_cmd", "Why is the client stuck: what is outstanding in a session, and why (exit 1 if any)."),
    "legs": ("rpcspy.cli.legs_cmd", "Both legs of an ACP adapter (run --legs) side by side: which request caused what."),
    "conform": ("rpcspy.cli.conform_cmd", "Run the conformance battery against a real agent: passed / deviation / failed per case."),
    "model-server": ("rpcspy.cli.modelserver_cmd", "Serve a scripted OpenAI-compatible model on loopback: agents run offline."),
}


class DefaultGroup(click.Group):
    """A group that treats anything not naming a subcommand as arguments of ``run``."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(COMMANDS)

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        spec = COMMANDS.get(name)
        if spec is None:
            return None
        module = importlib.import_module(spec[0])
        return module.command

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        rows = [(name, help_) for name, (_, help_) in COMMANDS.items()]
        with formatter.section("Commands"):
            formatter.write_dl(rows)

    def invoke(self, ctx: click.Context) -> object:
        from rpcspy.cli.exits import guard_output, interrupted  # exit statuses and output errors: one place

        with interrupted(), guard_output():
            return super().invoke(ctx)

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if args and args[0] not in COMMANDS and args[0] not in ("--help", "-h", "--version"):
            if not ctx.resilient_parsing:  # shell completion parses half-typed lines
                _refuse_typo(ctx, args[0], asks_help=any(a in ("--help", "-h") for a in args[1:]))
            args = ["run", *args]
        return super().parse_args(ctx, args)


HINTS: dict[str, str] = {
    # words people type for what is an option or a flag of another command: name: what they meant
    "version": "rpcspy --version",
    "help": "rpcspy --help",
    "compat": "rpcspy diff --compat OLD NEW",
    "record": "rpcspy -o FILE -- AGENT...",
    "proxy": "rpcspy -- AGENT...",
    "list": "rpcspy sessions",
    "lint": "rpcspy check",
    "verify": "rpcspy check",
    "follow": "rpcspy watch",
    "html": "rpcspy export",
}
"""First words that are no command but whose meaning is known (not found on PATH: then it is an agent)."""


def _refuse_typo(ctx: click.Context, word: str, *, asks_help: bool = False) -> None:
    """A first word (no ``--`` before it) that misspells a command is a usage error, not an agent to start.

    A word found on PATH is an agent (``rpcspy sh -c ...`` runs sh); options go to ``run``, which refuses
    the ones it does not know. A word that is no command, not on PATH, and followed by ``--help`` is
    a command the user looked for, never an agent to start.
    """
    if word.startswith("-"):
        if word in ("-V", "-v", "-version"):
            raise click.UsageError(f"no such option: {word}; did you mean --version?", ctx)
        return
    import difflib
    import shutil

    if "/" in word or shutil.which(word) is not None:
        return
    proxy = f"To proxy an agent called {word!r}, put it after --: rpcspy -- {word} ..."
    if word.lower() in HINTS:
        raise click.UsageError(f"no such command: {word!r}; did you mean `{HINTS[word.lower()]}`?\n{proxy}", ctx)
    close = difflib.get_close_matches(word, COMMANDS, n=1, cutoff=0.6)
    if close:
        raise click.UsageError(f"no such command: {word!r}; did you mean {close[0]!r}?\n{proxy}", ctx)
    if asks_help:
        raise click.UsageError(f"no such command: {word!r} (`rpcspy --help` lists them)\n{proxy}", ctx)


@click.group(
    cls=DefaultGroup,
    context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100},
    epilog="""\b
Examples:
  rpcspy -- pi --mode rpc                 proxy pi, record to ./recordings/
  rpcspy -o s.jsonl -- omp --mode rpc     record to a chosen file
  rpcspy demo                             try it with no agent installed
Run `rpcspy COMMAND --help` for each command.""",
)
@click.version_option(__version__, "--version", prog_name="rpcspy")
def main() -> None:
    """Record/replay debugging proxy for the JSONL RPC of coding agents (pi --mode rpc, omp).

    \b
    Put rpcspy in front of the agent your client spawns:
      rpcspy [OPTIONS] -- AGENT_CMD [ARGS...]
    Every byte passes through unchanged; both directions and the agent's stderr
    land in a timestamped, versioned JSONL recording.
    """
