"""`rpcspy demo`: the whole loop on a bundled recording, with no pi and no API key."""

from __future__ import annotations

import json
import os
import sys
import textwrap
from typing import Any

import click


def bundled_recording() -> str:
    """Path of the recording shipped in the package (a real pi 0.73.1 session)."""
    from importlib.resources import files

    return str(files("rpcspy") / "data" / "demo.jsonl")


def demo_dir() -> str:
    """Where demo recordings go by default: ``$XDG_CACHE_HOME/rpcspy/demo`` (``~/.cache/rpcspy/demo``)."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "rpcspy", "demo")


@click.command(
    "demo",
    epilog="""\b
What runs (three rpcspy processes, the middle one is the proxy):
  rpcspy replay --client DEMO  ->  rpcspy -o REC --  rpcspy replay DEMO
  (a scripted client)             (the proxy, recording)  (a fake agent)
\b
Examples:
  rpcspy demo                       record to ~/.cache/rpcspy/demo/, show the timeline
  rpcspy demo -o /tmp/demo.jsonl    record to a chosen file
  rpcspy demo --speed 0 --no-show   as fast as possible (durations then read 0 ms), no timeline""",
)
@click.option("-o", "--output", metavar="FILE", help="Where to write the new recording (a new file: an existing one is refused).")
@click.option("--dir", "directory", metavar="DIR", default=None, envvar="RPCSPY_DIR", show_envvar=True,
              help="Directory for the automatically named recording "
                   "[default: $XDG_CACHE_HOME/rpcspy/demo, i.e. ~/.cache/rpcspy/demo].")
@click.option("--speed", type=click.FloatRange(min=0), default=1.0, show_default=True,
              help="Pace of the fake agent: 1 as recorded (real durations), 0 as fast as possible.")
@click.option("--show/--no-show", default=True, show_default=True, help="Print the timeline of the new recording.")
def command(output: str | None, directory: str | None, speed: float, show: bool) -> None:
    """Run the proxy on a bundled fake agent: no pi, no API key, no network.

    A recording of a real pi session ships inside rpcspy. The demo replays it as
    a fake agent, puts the proxy in front of it exactly as `rpcspy -- pi --mode
    rpc` would sit in front of pi, and drives it with the recorded client
    commands. You get a fresh recording (outside your checkout: in your cache
    directory unless -o or --dir says otherwise), its check results explained,
    and its timeline.
    """
    from rpcspy.events import Finding
    from rpcspy.recording import RecordingError, open_recording
    from rpcspy.recording.format import FrameEntry
    from rpcspy.recording.naming import default_path

    demo = bundled_recording()
    if not os.path.exists(demo):
        raise click.ClickException(f"the bundled recording is missing ({demo}); reinstall rpcspy")
    if output is not None and os.path.lexists(output):  # the proxy would refuse it: say so before starting
        raise click.BadParameter(f"{output} exists: choose a new file", param_hint="-o")
    from rpcspy.pump.commands import demo as runner

    rec = output or default_path(directory or demo_dir(), ["demo"])
    _check_writable(rec, chosen=output is not None or directory is not None)
    click.echo(_intro(demo, rec), err=True)
    done = runner.run_chain(demo, rec, speed)
    try:
        recording = open_recording(rec)
        entries = list(recording.entries())
    except RecordingError as exc:
        sys.stderr.buffer.write(done.stderr)
        raise click.ClickException(f"the demo made no readable recording: {exc}") from None
    frames = [e for e in entries if isinstance(e, FrameEntry)]
    by_dir = {d: sum(1 for f in frames if f.dir == d) for d in ("c2a", "a2c", "err")}
    if show:
        runner.show(rec)
    click.echo("")
    click.echo(f"Recorded {len(frames)} frames ({by_dir['c2a']} client->agent, {by_dir['a2c']} agent->client, "
               f"{by_dir['err']} stderr) to {rec}")
    click.echo(_findings_explained([e for e in entries if isinstance(e, Finding)]))
    if done.returncode != 0:
        sys.stderr.buffer.write(done.stderr)
        raise click.ClickException(f"the scripted client exited with {done.returncode}")
    click.echo(_next_steps(rec))


def _check_writable(rec: str, *, chosen: bool) -> None:
    """Say why the recording cannot be written, before anything starts (an unwritable HOME, ...)."""
    parent = os.path.dirname(rec) or "."
    try:
        os.makedirs(parent, mode=0o700, exist_ok=True)
        if not os.access(parent, os.W_OK | os.X_OK):
            raise PermissionError(13, "Permission denied")
    except OSError as exc:
        hint = "" if chosen else " (the default is under $XDG_CACHE_HOME or ~/.cache)"
        raise click.ClickException(f"cannot write the demo recording in {parent}: {exc.strerror or exc}{hint}; "
                                   "give -o FILE or --dir DIR") from None


def _intro(demo: str, rec: str) -> str:
    """What is about to happen: the recorded client's commands, and where the recording goes."""
    from rpcspy.recording import open_recording
    from rpcspy.render.text import SEVERITY_ICONS

    marks = ", ".join(f"{icon} {severity}" for severity, icon in SEVERITY_ICONS.items())
    commands = []
    for frame in open_recording(demo).frames():
        if frame.dir == "c2a":
            commands.append(str(json.loads(frame.data).get("type")))
    return (f"rpcspy demo: a recorded pi session replayed by a fake agent, with the proxy in front of it.\n"
            f"The client sends {', '.join(commands)}; the proxy records to {rec}\n"
            f"What the checker finds is marked in the timeline ({marks}) and explained after it.")


def _findings_explained(findings: list[Any]) -> str:
    """The checker's verdict, each rule found said in words (from the rule catalogue), not just its id."""
    from rpcspy.checker.rules import RULES

    serious = sum(1 for f in findings if f.severity in ("error", "warning"))
    lines = [f"Checker: {len(findings)} finding(s), {serious} error/warning."]
    seen: set[str] = set()
    for f in findings:
        if f.rule in seen:
            continue
        seen.add(f.rule)
        rule = RULES.get(f.rule)
        where = f" (frame {f.frame})" if f.frame is not None else ""
        lines.append(f"  {f.severity} {f.rule}{where}: {rule.summary if rule else f.message}")
        if rule:
            lines.extend(textwrap.wrap(rule.explanation, width=96, initial_indent="    ", subsequent_indent="    "))
    if findings:
        lines.append("  (`rpcspy rules RULE` explains any rule; `rpcspy rules` lists them all)")
    return "\n".join(lines)


def _next_steps(rec: str) -> str:
    rows = [("show --frames", "every frame, one per line"), ("check", "the protocol findings, with fixes"),
            ("stats", "latencies, time to first token, tokens/s"), ("replay", "be this agent for your own client")]
    return "\n".join(["Next, try:", *(f"  rpcspy {cmd} {rec}    # {what}" for cmd, what in rows)])
