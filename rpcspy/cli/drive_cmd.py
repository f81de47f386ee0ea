"""``rpcspy drive STEPS -o REC -- AGENT...``: a scripted client, recorded like a proxied session."""

from __future__ import annotations

import sys
from typing import Any

import click

from rpcspy.cli.gap_opt import gap_after_option
from rpcspy.cli.otel_opts import otel_options
from rpcspy.cli.record_opt import claim_recording, recording_options
from rpcspy.drive.script import DEFAULT_TIMEOUT


@click.command(
    "drive",
    epilog="""\b
Examples:
  printf '%s\\n' '{"id":"p1","type":"prompt","message":"Hello"}' > steps.jsonl
  rpcspy drive steps.jsonl -o hello.jsonl -- pi --mode rpc
  rpcspy drive - -o s.jsonl -- omp --mode rpc < steps.jsonl      the script from stdin
\b
A steer mid-stream, a dialog answered, a final wait:
  {"id":"p1","type":"prompt","message":"write a poem","rpcspy":{"wait":{"deltas":3}}}
  {"id":"s1","type":"steer","message":"shorter, please"}
  {"id":"x","type":"prompt","message":"/deploy","rpcspy":{"answer":{"confirm":true}}}
  {"rpcspy":{"wait":"settle","timeout":120}}
Exit status: 0 every step completed, 1 a step timed out or the agent exited first, 2 bad usage or script,
130 on Ctrl-C (the agent is stopped and its exit recorded).""",
)
@click.argument("steps", type=click.Path(dir_okay=False, allow_dash=True))
@recording_options(required=True, what="Record the session to FILE (the format of every rpcspy recording, mode "
                                       "`drive`): a new file, or with --overwrite a replacement for an existing "
                                       "one; a symlink, a FIFO or a device is refused (exit 2, nothing started).")
@click.option("--timeout", type=click.FloatRange(min=0, min_open=True), default=DEFAULT_TIMEOUT, show_default=True,
              help="Seconds each step may wait (a step's own `timeout` option wins).")
@click.option("--no-check", is_flag=True, help="Do not run the live checker (no findings in the recording).")
@click.option("--no-control", is_flag=True, help="Offer no control socket (no `rpcspy why PID`/`watch` on it).")
@click.option("-q", "--quiet", is_flag=True, help="Print nothing on success (failures still go to stderr).")
@gap_after_option
@otel_options
@click.argument("agent", nargs=-1, type=click.UNPROCESSED, metavar="-- AGENT...")
def command(steps: str, output: str, overwrite: bool, timeout: float, no_check: bool, no_control: bool, quiet: bool,
            gap_after: float, otel: bool, otel_content: bool, agent: tuple[str, ...]) -> None:
    """Send a script of client commands to an agent, each when the last is done, and record the session.

    STEPS is JSONL, one command per line exactly as a client sends it. By default
    each step waits for its response and, for `prompt`/`abort_and_prompt`, for the
    run to settle (agent_settled; agent_end on pi 0.73; prompt_result and
    session_settled on omp 18.3) before the next is sent; after the last step the
    agent settles, then its stdin is closed and rpcspy waits for it to exit. An
    optional "rpcspy" key on a line (removed before sending) sets the step's
    options: "wait" ("settle", "response", "none", {"deltas": N} to send the next
    step mid-stream, {"event": TYPE, "count": N}), "timeout" (seconds) and "answer"
    (how dialogs are answered from then on: {"confirm": true, "select": "first",
    "input": "text", "editor": "text"}; the default cancels them). A line with only
    "rpcspy" sends nothing. See docs/drive.md.
    """
    from rpcspy.drive.driver import Driver
    from rpcspy.drive.script import ScriptError, parse_script
    from rpcspy.pump.commands.drive import drive

    if not agent:
        raise click.UsageError("give the agent command after --, e.g. -- pi --mode rpc")
    try:
        with click.open_file(steps, "r", encoding="utf-8") as f:
            text = f.read()
    except OSError as exc:
        raise click.UsageError(f"cannot read {steps}: {exc.strerror}") from None
    try:
        script = parse_script(text)
    except ScriptError as exc:
        raise click.UsageError(f"{steps}: {exc}") from None
    driver = Driver(script, timeout=timeout)
    from rpcspy.cli.otel_opts import check_content, otel_observer, otel_settings

    check_content(otel, otel_content)
    observers = []
    if otel and (settings := otel_settings()) is not None:
        observers.append(otel_observer(settings, otel_content))
    record_fd = claim_recording(output, overwrite, strict=True)  # drive is for the recording: no file, no run

    def report(result: Any) -> None:
        if result.ok and quiet:
            return
        took = f" ({result.done_at - result.sent_at:.1f} s)" if result.ok and result.sent_at is not None else ""
        label = result.step.label() if result.step.lineno else "end of script: wait for the agent to settle"
        text = f"rpcspy: {label}: {result.status}{took}" + (f": {result.detail}" if result.detail else "")
        click.echo(text, err=True)

    from rpcspy.cli.exits import INTERRUPTED
    from rpcspy.pump.commands.drive import DriveInterrupted

    try:
        code = drive(driver, list(agent), output, check=not no_check, control=not no_control, on_step=report,
                     gap_after=gap_after, observers=observers, record_fd=record_fd)
    except DriveInterrupted as stop:
        n = sum(r.ok for r in driver.results)
        click.echo(f"rpcspy: interrupted: {n}/{len(driver.steps)} steps completed; the agent was stopped "
                   f"(exit status {stop.code}); recorded to {output}", err=True)
        sys.exit(INTERRUPTED)
    done = driver.completed
    if not quiet or not done:
        n = sum(r.ok for r in driver.results)
        click.echo(f"rpcspy: {n}/{len(driver.results)} steps completed; agent exit status {code}; "
                   f"recorded to {output}", err=True)
    sys.exit(0 if done else 1)
