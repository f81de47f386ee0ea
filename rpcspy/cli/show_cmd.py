"""``rpcspy show REC``: a recording as a readable timeline, or its exact frames."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import click

from rpcspy.cli.filter_opts import filter_options
from rpcspy.cli.recfile import color_option

if TYPE_CHECKING:
    from rpcspy.filters import FrameFilter
    from rpcspy.offline import Reading


@click.command(
    "show",
    epilog="""\b
Examples:
  rpcspy show rec.jsonl                        the timeline, deltas coalesced
  rpcspy show rec.jsonl --frames --seq 40..60  every frame in a seq range
  rpcspy show rec.jsonl --type 'tool_*' --type prompt
  rpcspy show rec.jsonl --with-findings        only what the checker flagged
  rpcspy show --raw --dir a2c rec.jsonl > out  the agent's stdout, byte for byte""",
)
@click.argument("recording", type=click.Path(dir_okay=False))
@click.option("--frames", is_flag=True, help="One line per frame: no coalescing of deltas and stderr lines.")
@click.option("--raw", is_flag=True, help="Print the selected frames' exact bytes (JSONL), nothing else.")
@click.option("--full", is_flag=True, help="Do not clip long tool output and stderr.")
@click.option("--check", is_flag=True,
              help="Run the checker and show its findings (instead of the findings in the recording).")
@click.option("--width", type=click.IntRange(40, 10000), default=None,
              help="Line width (default: the terminal's; 100 in a pipe).")
@color_option
@filter_options
def command(recording: str, frames: bool, raw: bool, full: bool, check: bool, width: int | None, color: str,
            frame_filter: Any) -> None:
    """Show a recording (or a pi transcript) as a timeline.

    Time offsets, direction arrows (→ client to agent, ← agent to client,
    ! stderr), commands with their responses and latency, streamed deltas
    coalesced into the text they built, tool executions, dialogs, stderr, the
    process exit, and findings under the frame they are about. Colour on a
    terminal, plain text in a pipe.
    """
    from rpcspy.cli.recfile import open_or_fail, quiet_broken_pipe, report_problems, want_progress

    reading = open_or_fail(recording, progress=want_progress(sys.stdout))
    try:
        if raw:
            _raw(reading, frame_filter, check)
        else:
            _timeline(reading, frame_filter, frames=frames, full=full, check=check, width=width, color=color)
        sys.stdout.flush()
    except BrokenPipeError:
        quiet_broken_pipe()
    report_problems(reading)


def _raw(reading: Reading, frame_filter: FrameFilter, check: bool) -> None:
    """Write the selected frames back as the bytes that crossed the pipe."""
    from rpcspy.events import Frame
    from rpcspy.offline import selected

    out = sys.stdout.buffer
    buf: list[bytes] = []
    size = 0
    if frame_filter.active:
        flagged = reading.flagged(frame_filter, check=check)
        frames: Iterator[Any] = (e for e in selected(reading.events(), frame_filter, flagged) if isinstance(e, Frame))
    else:
        frames = reading.frames()
    for frame in frames:
        data = frame.raw()
        buf.append(data)
        size += len(data)
        if size >= 1 << 20:
            out.write(b"".join(buf))
            buf.clear()
            size = 0
    out.write(b"".join(buf))
    out.flush()


def _timeline(reading: Reading, frame_filter: FrameFilter, *, frames: bool, full: bool, check: bool,
              width: int | None, color: str) -> None:
    from rpcspy.cli.recfile import make_console
    from rpcspy.render.acp_timeline import timeline_for
    from rpcspy.render.text import TextOptions, print_timeline

    console = make_console(color=color, width=width)
    opts = TextOptions(full=full)
    timeline = timeline_for(reading.dialect(refine=False)[0],  # how the agent answers, as check tells it
                            coalesce=not frames, select=frame_filter if frame_filter.active else None,
                            flagged=reading.flagged(frame_filter, check=check))
    console.print(header(reading, frame_filter), style="bold", highlight=False)
    counts = print_timeline(console, reading.events(check=check), timeline, opts)
    console.print(counts.line(), style="dim", highlight=False)


def header(rec: Reading, frame_filter: FrameFilter) -> str:
    """One line about the recording: what made it, when, for which agent."""
    import os

    from rpcspy.inert import inert_line

    h = rec.header
    if rec.kind != "rpcspy":
        text = f"{os.path.basename(rec.path)} ({rec.kind})"
    else:
        argv = " ".join(h.argv) or "?"
        text = f"{os.path.basename(rec.path)}: {h.mode} by rpcspy {h.rpcspy}, {h.started or '?'}: {argv}"
        if h.source:
            text += f" (from {h.source})"
    if frame_filter.active:
        text += f"  [{frame_filter.describe()}]"
    return inert_line(text)
