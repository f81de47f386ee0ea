"""``rpcspy legs REC``: an adapter's two legs (``rpcspy run --legs``) side by side."""

from __future__ import annotations

import click

from rpcspy.cli.exits import InputError


@click.command(
    "legs",
    epilog="""\b
Examples:
  rpcspy run --legs -o s.jsonl -- pi-acp         record pi-acp and the pi it runs
  rpcspy legs s.jsonl                            both legs, one clock, causes noted
  rpcspy legs --all s.back.4242.jsonl            from a back leg; no run collapsed
\b
Exit status: 0; 2 when REC is no recording of `rpcspy run --legs`.""",
)
@click.argument("recording", type=click.Path(dir_okay=False, exists=True))
@click.option("--all", "show_all", is_flag=True, help="One line per frame (runs of one kind are collapsed otherwise).")
def command(recording: str, show_all: bool) -> None:
    """Show both legs of an ACP adapter recorded with `rpcspy run --legs`.

    The ACP session (client <-> adapter) on the left, the pi RPC session(s) the
    adapter ran (adapter <-> pi) on the right, on one clock. Each pi command
    says which ACP request it was sent for, each ACP agent frame which pi frame
    it followed, with the delay; then which ACP request caused which pi
    commands, and what the adapter answered itself, ran unasked or never
    answered. REC is the front recording or any of its back legs.
    """
    from rpcspy.recording.legs import load, render
    from rpcspy.recording.reader import RecordingError

    try:
        legs = load(recording)
    except RecordingError as exc:
        raise InputError(str(exc)) from None
    click.echo(render(legs, collapse=not show_all), nl=False)
