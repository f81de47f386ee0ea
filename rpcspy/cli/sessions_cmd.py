"""``rpcspy sessions``: the live proxies of this user, with their frame counts."""

from __future__ import annotations

import json
import os
import time
from typing import Any

import click

from rpcspy.cli.recfile import color_option


@click.command(
    "sessions",
    epilog="""\b
Examples:
  rpcspy sessions                 table of live sessions
  rpcspy sessions --json | jq .   the same as JSON
  rpcspy watch 12345              follow session 12345
  rpcspy inject 12345             inject commands into it""",
)
@click.option("--json", "as_json", is_flag=True, help="Print a JSON array (metadata and live info of each session).")
@click.option("--no-clean", is_flag=True, help="Keep the files of sessions whose process is gone.")
@color_option
def command(as_json: bool, no_clean: bool, color: str) -> None:
    """List running rpcspy proxies (each offers a control socket).

    PID is the proxy's (use it with `rpcspy watch` and `rpcspy inject`);
    C→A and A→C count the client's and the agent's frames so far, INJ the
    frames injected in both directions. Registrations left by proxies that no
    longer run are removed.
    """
    from rpcspy.pump.observers.control_client import ControlError, list_sessions

    try:
        sessions = list_sessions(clean=not no_clean)
    except ControlError as exc:
        raise click.ClickException(str(exc)) from None
    if as_json:
        out = [{**s.meta, "state": s.state,
                "info": {k: v for k, v in s.info.items() if k not in ("op", "ref", "ok")} if s.info else None}
               for s in sessions]
        from rpcspy.inert import inert_json

        click.echo(inert_json(json.dumps(out, indent=2, ensure_ascii=False)))
        return
    live = [s for s in sessions if s.state != "stale"]
    stale = len(sessions) - len(live)
    from rich.table import Table

    from rpcspy.cli.recfile import make_console

    console = make_console(color=color)
    if not live:
        console.print("no live rpcspy sessions" + (f" ({stale} stale registration(s) removed)" if stale and not no_clean
                                                   else ""), style="dim")
        return
    table = Table(box=None, header_style="bold", pad_edge=False)
    for name, justify in (("PID", "right"), ("AGENT", "left"), ("STARTED", "left"), ("RECORDING", "left"),
                          ("C→A", "right"), ("A→C", "right"), ("INJ", "right"), ("STATE", "left")):
        table.add_column(name, justify=justify, no_wrap=name != "RECORDING",  # type: ignore[arg-type]
                         max_width=32 if name == "AGENT" else None, overflow="ellipsis")
    for s in live:
        table.add_row(*_row(s))
    console.print(table)
    if stale and not no_clean:
        console.print(f"({stale} stale registration(s) removed)", style="dim")


def _row(s: Any) -> list[str]:
    info = s.info or {}
    frames = info.get("frames") or {}
    injected = info.get("injected") or {}
    started = s.meta.get("started_unix")
    when = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(started)) if isinstance(started, (int, float)) else "?"
    rec = s.meta.get("record_path")
    rec = os.path.relpath(rec) if isinstance(rec, str) and not os.path.relpath(rec).startswith("../..") else rec
    state = s.state
    if info.get("exit_code") is not None:
        state = f"exited {info['exit_code']}"
    elif info.get("input_closed"):
        state = "input closed"
    count = (lambda d: str(frames.get(d, "?"))) if s.info else (lambda d: "?")
    inj = str(sum(injected.values())) if s.info else "?"
    return [str(s.pid), short_argv(s.argv), when, rec or "-", count("c2a"), count("a2c"), inj, state]


def short_argv(argv: list[str]) -> str:
    """The agent's short name and its arguments: ``pi --mode rpc`` for ``/usr/bin/node /x/pi/cli.js --mode rpc``."""
    from rpcspy.recording.naming import agent_name

    if not argv:
        return "?"
    name = agent_name(argv)
    rest = argv[1:]
    for i, arg in enumerate(argv):
        if os.path.basename(arg).startswith(name):
            rest = argv[i + 1:]
            break
    from rpcspy.inert import inert_line

    return inert_line(" ".join([name, *rest]))


