"""``rpcspy show REC``: a recording as a readable timeline, or its exact frames."""

from __future__ import annotations

import sys
from typing import Any

import click

from rpcspy.cli.filter_opts import filter_options
from rpcspy.cli.recfile import color_option


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
    from rpcspy.cli.recfile import open_or_fail, quiet_broken_pipe, report_problems

    rec = open_or_fail(recording)
    try:
        if raw:
            _raw(rec, frame_filter, check)
        else:
            _timeline(rec, frame_filter, frames=frames, full=full, check=check, width=width, color=color)
        sys.stdout.flush()
    except BrokenPipeError:
        quiet_broken_pipe()
    report_problems(rec)


def _raw(rec: Any, frame_filter: Any, check: bool) -> None:
    """Write the selected frames back as the bytes that crossed the pipe."""
    from rpcspy.cli.recfile import flagged_frames, read_events
    from rpcspy.events import Frame

    flagged = flagged_frames(rec, frame_filter, check=check)
    out = sys.stdout.buffer
    buf: list[bytes] = []
    size = 0
    events = read_events(rec, progress=_progress(out)) if frame_filter.active else None
    frames = (e for e in events if isinstance(e, Frame)) if events is not None else rec.frames()
    for frame in frames:
        if frame_filter.active and not frame_filter.match_frame(frame, flagged=flagged):
            continue
        data = frame.raw()
        buf.append(data)
        size += len(data)
        if size >= 1 << 20:
            out.write(b"".join(buf))
            buf.clear()
            size = 0
    out.write(b"".join(buf))
    out.flush()


def _progress(output: Any) -> bool:
    from rpcspy.cli.recfile import want_progress

    return want_progress(output)


def _timeline(rec: Any, frame_filter: Any, *, frames: bool, full: bool, check: bool, width: int | None,
              color: str) -> None:
    from rpcspy.cli.recfile import detect_dialect, flagged_frames, make_console, read_events
    from rpcspy.render.acp_timeline import timeline_for
    from rpcspy.render.text import TextOptions, print_timeline

    console = make_console(color=color, width=width)
    opts = TextOptions(full=full)
    timeline = timeline_for(detect_dialect(rec, refine=False)[0],  # how the agent answers, as check tells it
                            coalesce=not frames, select=frame_filter if frame_filter.active else None,
                            flagged=flagged_frames(rec, frame_filter, check=check))
    console.print(header(rec, frame_filter), style="bold", highlight=False)
    counts = print_timeline(console, read_events(rec, check=check, progress=_progress(sys.stdout)), timeline, opts)
    console.print(counts.line(), style="dim", highlight=False)


def header(rec: Any, frame_filter: Any) -> str:
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
