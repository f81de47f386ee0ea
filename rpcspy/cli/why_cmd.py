"""``rpcspy why REC|PID``: what is outstanding in a session and why (exit 1 when something is)."""

from __future__ import annotations

import sys

import click

from rpcspy.cli.exits import InputError
from rpcspy.diagnose.knowledge import CLIENT_TIMEOUT


@click.command(
    "why",
    epilog="""\b
Examples:
  rpcspy why rec.jsonl                      what was outstanding when the recording ended
  rpcspy why rec.jsonl --at 12.5            ... 12.5 s into the session
  rpcspy why rec.jsonl --frame 240          ... just after frame 240
  rpcspy why rec.jsonl --client-timeout 10  flag responses slower than your client's 10 s timeout
  rpcspy why rec.jsonl --format json | jq '.outstanding[].text'
  rpcspy why 12345                          ask the running proxy with pid 12345 (see rpcspy sessions)
Exit status: 0 nothing outstanding, 1 something is, 2 bad usage or unreadable input.""",
)
@click.argument("target")
@click.option("--at", "at", type=click.FloatRange(min=0), default=None, metavar="SECONDS",
              help="Diagnose the moment SECONDS into the session (recording time) instead of its end.")
@click.option("--frame", "frame", type=click.IntRange(min=0), default=None, metavar="N",
              help="Diagnose the moment just after entry N (the `seq` shown by `rpcspy show --frames`).")
@click.option("--client-timeout", type=click.FloatRange(min=0, min_open=True), default=CLIENT_TIMEOUT,
              show_default=True, metavar="S",
              help="The client's per-command timeout: slower responses are reported (pi's RpcClient: 30 s).")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True,
              help="One sentence per item, or one JSON object.")
def command(target: str, at: float | None, frame: int | None, client_timeout: float, fmt: str) -> None:
    """Why is the client stuck: what was outstanding, and why, one sentence per item.

    TARGET is a recording (or transcript), or the pid of a running proxy. Listed as
    outstanding: commands without a response; prompts accepted whose run never started
    or settled (reading pi's `disposition`: `handled` starts nothing, `queued` waits);
    runs without agent_end or agent_settled (omp: prompt_result, session_settled);
    dialogs and host calls the agent waits on; queued steers and follow-ups; a
    compaction or retry in progress. Then the client pitfalls the frames show
    (a response after the settle a client waits for, a response slower than the
    client timeout, JSON-RPC-shaped frames, omp frames over its cap without protocol
    v2, omp's success and later error for one id) and who spoke last.
    """
    import json
    import os

    from rpcspy.render.why import why_text

    if at is not None and frame is not None:
        raise click.UsageError("give --at or --frame, not both")
    if target.isdigit() and not os.path.exists(target):
        if at is not None or frame is not None:
            raise click.UsageError("--at and --frame read a recording; a live session is asked about now")
        diagnosis = _live(int(target), client_timeout)
    else:
        diagnosis = _recorded(target, at, frame, client_timeout)
    out = json.dumps(diagnosis.to_json(), indent=2) + "\n" if fmt == "json" else why_text(diagnosis)
    try:
        sys.stdout.write(out)
        sys.stdout.flush()
    except BrokenPipeError:
        from rpcspy.cli.recfile import quiet_broken_pipe

        quiet_broken_pipe()
    sys.exit(1 if diagnosis.stuck else 0)


def _recorded(path: str, at: float | None, frame: int | None, client_timeout: float):
    from rpcspy.cli.recfile import open_or_fail, report_problems
    from rpcspy.diagnose.explain import diagnose_entries, one_sided

    try:
        reading = open_or_fail(path)
    except click.ClickException as exc:
        raise InputError(exc.message) from None
    try:
        dialect, reason = reading.dialect()  # a first pass, as check, show, stats and export take it
        diagnosis = diagnose_entries(reading.entries(), client_timeout=client_timeout, at=at, frame=frame,
                                     dialect=None if dialect == "auto" else dialect, dialect_reason=reason)
        return one_sided(diagnosis, reading.absent_sides())
    finally:
        report_problems(reading)


def _live(pid: int, client_timeout: float):
    from rpcspy.diagnose.items import Diagnosis
    from rpcspy.pump.observers.control_client import ControlClient, ControlError, find_session

    try:
        target = find_session(str(pid))
        with ControlClient(target.socket) as client:
            reply = client.call("why", client_timeout=client_timeout)
    except (LookupError, ControlError, OSError, TimeoutError, ConnectionError) as exc:
        raise InputError(str(exc)) from None
    if not reply.get("ok"):
        raise InputError(f"the session cannot answer `why`: {reply.get('error')} (an older rpcspy?)")
    return Diagnosis.from_json(reply.get("why", {}))
