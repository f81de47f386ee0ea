"""``rpcspy inject [SESSION]``: talk to the agent of a live proxied session without disturbing its client."""

from __future__ import annotations

import json
import os
import sys
from typing import Any

import click

from rpcspy.cli.run_cmd import DIALECT_CHOICES


@click.command(
    "inject",
    epilog="""\b
Examples:
  rpcspy inject                                   the REPL, attached to the only live session
  rpcspy inject 12345 --once get_state            one command, its response on stdout
  rpcspy inject --once '{"type":"steer","message":"stop and summarise"}'
  rpcspy inject --once '{"jsonrpc":"2.0","id":1,"method":"session/list","params":{}}'   (ACP)
\b
Exit status with --once: 0 when the agent answered with success (or the
frame needs no answer), 1 when it answered with a failure, did not answer in
time, or the command could not be injected; 2 for a usage error.""",
)
@click.argument("session", required=False, metavar="[SESSION]")
@click.option("--once", "once", metavar="COMMAND",
              help="Inject one command (JSON or the REPL's short syntax), print its response, exit.")
@click.option("--timeout", type=click.FloatRange(min=0), default=30.0, show_default=True,
              help="--once: seconds to wait for the response.")
@click.option("--dialect", type=click.Choice(DIALECT_CHOICES), default="auto", show_default=True,
              help="Dialect for completion and validation (auto: detected from the session).")
@click.option("--backlog", type=click.IntRange(min=0), default=200, show_default=True,
              help="REPL: show this many recent events of the session first.")
@click.option("--no-history", is_flag=True, help="REPL: keep no command history.")
def command(session: str | None, once: str | None, timeout: float, dialect: str, backlog: int,
            no_history: bool) -> None:
    """Inject commands into a live session (SESSION: its pid, see `rpcspy sessions`).

    Commands reach the agent between the client's frames, never inside one,
    with ids of their own (rpcspy-inject-N); their responses come back here
    and never reach the client, which sees only the events they cause. The
    recording marks injected frames. An ACP (JSON-RPC 2.0) session takes JSON-RPC
    messages: a request gets the id rpcspy-inject-N, which no client uses, and its
    response comes back here with your id; a notification (session/cancel) or a
    response to the agent's own request goes as it is. Without --once, the REPL of `rpcspy repl`
    opens on the session, showing its live stream; Ctrl-D detaches.
    """
    from rpcspy.pump.observers.control_client import ControlError, find_session

    try:
        target = find_session(session)
    except (LookupError, ControlError) as exc:
        raise click.ClickException(str(exc)) from None
    if once is not None:
        sys.exit(_once(target, once, timeout, dialect))
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        raise click.UsageError("the inject REPL needs a terminal; use --once COMMAND in scripts")
    from rpcspy.interactive.app import ReplApp
    from rpcspy.interactive.backends import RemoteBackend
    from rpcspy.interactive.history import history_path

    label = f"session {target.pid}: {' '.join(target.argv)}" if target.pid else target.socket
    app = ReplApp(RemoteBackend(target.socket, backlog=backlog, label=label), dialect=dialect,
                  history=None if no_history else history_path())
    code = app.run()
    sys.stdout.flush()
    os._exit(code)


def _command(text: str, dialect: str) -> dict[str, Any]:
    from rpcspy.interactive.schema import CommandSchema
    from rpcspy.interactive.syntax import parse

    schema = CommandSchema(None if dialect == "auto" else dialect)
    parsed = parse(text, schema)
    if parsed.kind != "command" or parsed.obj is None:
        reason = parsed.error or "only a JSON object or a command can be injected"
        raise click.UsageError(f"--once: {reason}")
    problems = schema.problems(parsed.obj)
    if problems and not parsed.force:
        raise click.UsageError(f"--once: {'; '.join(problems)} (prefix with ! to send it anyway)")
    return parsed.obj


def _once(target: Any, text: str, timeout: float, dialect: str) -> int:
    from rpcspy.inert import inert_json, inert_line
    from rpcspy.pump.observers.control_client import ControlClient

    command = _command(text, dialect)
    ack: dict[str, Any] = {}
    try:
        with ControlClient(target.socket) as client:
            ack = client.inject(command)
            if not ack.get("ok"):
                click.echo(f"rpcspy inject: not injected: {inert_line(str(ack.get('error')))}", err=True)
                return 1
            if not ack.get("expects_response"):
                return 0
            msg = client.wait_response(ack["ref"], timeout)
    except TimeoutError:  # before OSError, of which it is a subclass
        click.echo(f"rpcspy inject: no response within {timeout:g} s (injected as {ack.get('inject_id')})", err=True)
        return 1
    except (OSError, ConnectionError) as exc:
        click.echo(f"rpcspy inject: {exc}", err=True)
        return 1
    if "response" not in msg:
        click.echo(inert_line(f"rpcspy inject: {msg.get('error', 'no response')}"), err=True)
        return 1
    response = msg["response"]
    click.echo(inert_json(json.dumps(response, ensure_ascii=False, separators=(",", ":"))))
    failed = isinstance(response, dict) and (response.get("success") is False or "error" in response)  # JSON-RPC
    return 1 if failed else 0
