"""`rpcspy demo`: the whole loop on a bundled recording, with no pi and no API key."""

from __future__ import annotations

import os
import subprocess
import sys

import click


def bundled_recording() -> str:
    """Path of the recording shipped in the package (a real pi 0.73.1 session)."""
    from importlib.resources import files

    return str(files("rpcspy") / "data" / "demo.jsonl")


@click.command(
    "demo",
    epilog="""\b
What runs (three rpcspy processes, the middle one is the proxy):
  rpcspy replay --client DEMO  ->  rpcspy -o REC --  rpcspy replay DEMO
  (a scripted client)             (the proxy, recording)  (a fake agent)""",
)
@click.option("-o", "--output", metavar="FILE", help="Where to write the new recording (default: ./recordings/).")
@click.option("--dir", "directory", default="recordings", show_default=True, envvar="RPCSPY_DIR",
              help="Directory for the automatically named recording.")
@click.option("--speed", type=float, default=0.0, show_default=True,
              help="Pace of the fake agent: 1 real time, 0 as fast as possible.")
@click.option("--show/--no-show", default=True, show_default=True, help="Print the timeline of the new recording.")
def command(output: str | None, directory: str, speed: float, show: bool) -> None:
    """Run the proxy on a bundled fake agent: no pi, no API key, no network.

    A recording of a real pi session ships inside rpcspy. The demo replays it as
    a fake agent, puts the proxy in front of it exactly as `rpcspy -- pi --mode
    rpc` would sit in front of pi, and drives it with the recorded client
    commands. You get a fresh recording, its check results and its timeline.
    """
    from rpcspy.recording import RecordingError, open_recording
    from rpcspy.recording.format import FindingEntry, FrameEntry
    from rpcspy.recording.naming import default_path

    demo = bundled_recording()
    if not os.path.exists(demo):
        raise click.ClickException(f"the bundled recording is missing ({demo}); reinstall rpcspy")
    if output is not None and os.path.lexists(output):  # the proxy would refuse it: say so before starting
        raise click.BadParameter(f"{output} exists: choose a new file", param_hint="-o")
    rec = output or default_path(directory, ["demo"])
    me = [sys.executable, "-m", "rpcspy"]
    chain = [*me, "replay", "--client", demo, "--timeout", "30", "-o", os.devnull, "--",
             *me, "run", "-o", rec, "--", *me, "replay", "--speed", str(speed), demo]
    click.echo(f"rpcspy demo: proxying a fake agent (a replay of {os.path.basename(demo)}) ...", err=True)
    done = subprocess.run(chain, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                          timeout=300)
    try:
        recording = open_recording(rec)
        entries = list(recording.entries())
    except RecordingError as exc:
        sys.stderr.buffer.write(done.stderr)
        raise click.ClickException(f"the demo made no readable recording: {exc}") from None
    frames = [e for e in entries if isinstance(e, FrameEntry)]
    by_dir = {d: sum(1 for f in frames if f.dir == d) for d in ("c2a", "a2c", "err")}
    findings = [e for e in entries if isinstance(e, FindingEntry)]
    if show:
        subprocess.run([*me, "show", rec], check=False)
    click.echo("")
    click.echo(f"Recorded {len(frames)} frames ({by_dir['c2a']} client->agent, {by_dir['a2c']} agent->client, "
               f"{by_dir['err']} stderr) to {rec}")
    serious = [f for f in findings if f.severity in ("error", "warning")]
    click.echo(f"Checker: {len(findings)} finding(s), {len(serious)} error/warning.")
    if done.returncode != 0:
        sys.stderr.buffer.write(done.stderr)
        raise click.ClickException(f"the scripted client exited with {done.returncode}")
    click.echo(f"Next: rpcspy show {rec} | rpcspy check {rec} | rpcspy stats {rec} | rpcspy replay {rec}")
