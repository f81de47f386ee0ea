"""``rpcspy diff A B``: compare two recordings semantically (exit 1 when they differ)."""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator
from typing import Any

import click

from rpcspy.cli.recfile import color_option


@click.command(
    "diff",
    epilog="""\b
Examples:
  rpcspy diff old.jsonl new.jsonl                  what changed, readable
  rpcspy diff --format json a.jsonl b.jsonl | jq .directions.a2c.changed
  rpcspy diff --ignore partial --usage a.jsonl b.jsonl
  rpcspy replay --client rec.jsonl -o new.jsonl -- pi --mode rpc && rpcspy diff rec.jsonl new.jsonl
  rpcspy diff --compat old-agent.jsonl new-agent.jsonl      what the upgrade changes for clients
\b
Exit status: 0 same, 1 different, 2 usage or file error, 4 when the output
cannot be written. With --compat: 0 nothing breaking, 1 something breaking.""",
)
@click.argument("a", type=click.Path(dir_okay=False))
@click.argument("b", type=click.Path(dir_okay=False))
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@click.option("--stderr", "stderr", is_flag=True,
              help="Also compare the agents' stderr lines (off by default: runtime warnings vary by machine).")
@click.option("--dir", "dirs", multiple=True, type=click.Choice(["c2a", "a2c", "err"]),
              help="Directions to compare (default: c2a and a2c).")
@click.option("--ignore", multiple=True, metavar="KEY", help="Drop this object key wherever it appears (repeatable).")
@click.option("--usage", is_flag=True, help="Ignore token usage/cost numbers too.")
@click.option("--redact", multiple=True, metavar="REGEX", help="Treat matches as redacted on both sides.")
@click.option("--max", "max_items", type=click.IntRange(min=1), default=50, show_default=True,
              help="Differences shown in text format.")
@click.option("--width", type=click.IntRange(40, 10000), default=None, help="Line width (text format).")
@click.option("--compat", is_flag=True,
              help="A and B are the same client steps against two agent versions: classify each difference "
                   "for clients as breaking, warning, safe or timing, grouped by frame type (exit 1 on breaking; "
                   "timing never).")
@color_option
def command(a: str, b: str, fmt: str, stderr: bool, dirs: tuple[str, ...], ignore: tuple[str, ...], usage: bool,
            redact: tuple[str, ...], max_items: int, width: int | None, compat: bool, color: str) -> None:
    """Compare recordings A and B frame by frame, per direction.

    Frames are compared as JSON values after normalisation: timestamps, UUIDs
    and session ids, temp paths, loopback ports, durations, tool-call and
    response ids and secrets never count as differences (--usage: token
    counts neither). Both frame sequences are aligned, so an inserted or
    missing frame shows as such instead of shifting everything after it;
    frames of the same kind are compared field by field, by JSON path.

    --compat reads the agent's differences as a client would, judging each
    field across every frame of its type: breaking (a frame type gone, fewer
    frames of a type, a field every old frame had gone from every new one, a
    value of a new JSON kind, frames in an order the protocol fixes, a command
    now failing), warning (a new frame type or event, a new enum value, a field
    always sent now left out of some frames), safe (a new field, a differing
    value) or timing (what differs between two runs of one agent too: a field
    sent only sometimes, what streaming had filled into a message_start or
    message_update, the interleaving of parallel tool calls). Grouped by frame
    type with a count and one example each (docs/drive.md, "Upgrades";
    published notes: docs/compat/).
    """
    import re

    from rpcspy.cli.exits import freeze_at_exit
    from rpcspy.cli.recfile import make_console, open_or_fail
    from rpcspy.diff.differ import diff_recordings
    from rpcspy.normalise.normaliser import NormaliseOptions, Normaliser

    freeze_at_exit()  # the process ends with the command: no teardown of its modules

    for path in (a, b):
        open_or_fail(path)
    try:
        for p in redact:
            re.compile(p)
    except re.error as exc:
        raise click.BadParameter(f"bad --redact pattern: {exc}") from None
    secrets = False
    chosen = dirs or (("c2a", "a2c", "err") if stderr else ("c2a", "a2c"))
    from rpcspy.normalise.fixture import read_fixture_options

    for path in (a, b):  # a fixture's own settings apply, so a fixture compares equal to its source
        fx = read_fixture_options(path)
        if fx is not None:
            usage = usage or fx.usage
            redact = redact + fx.redact
            secrets = secrets or fx.secrets
            if fx.compact_partials:
                ignore = ignore + ("partial",)
    options = NormaliseOptions(usage=usage, redact=redact, ignore=ignore, secrets=secrets)
    norm = Normaliser(options, stable=False, known=_known_secrets((a, b), options) if secrets else ())
    with _progress(a, b):
        result = diff_recordings(a, b, norm, dirs=chosen)
    if compat:
        _compat(result, norm, fmt, width)
    if fmt == "json":
        import msgspec

        from rpcspy.inert import inert_json

        sys.stdout.buffer.write(inert_json(msgspec.json.encode(result.to_json()).decode()).encode() + b"\n")
        sys.stdout.flush()
    else:
        from rpcspy.render.diff import render_diff

        render_diff(result, make_console(color=color, width=width), max_items=max_items)
    sys.exit(0 if result.equal else 1)


@contextlib.contextmanager
def _progress(a: str, b: str) -> Iterator[None]:
    """A transient line on stderr while large recordings are compared (a terminal only, as the readers'
    progress bars): the comparison reads each file twice and may take a while."""
    from rpcspy.cli.recfile import PROGRESS_MIN_BYTES, want_progress

    try:
        size = os.path.getsize(a) + os.path.getsize(b)
    except OSError:
        size = 0
    if size < PROGRESS_MIN_BYTES or not want_progress(sys.stdout):
        yield
        return
    from rich.console import Console

    with Console(file=sys.stderr).status(f"comparing {size / (1 << 20):.0f} MiB of recordings…"):
        yield


def _known_secrets(paths: tuple[str, ...], options: Any) -> tuple[str, ...]:
    """The secret values a fixture redacted wherever they occur, found again in both recordings (a fixture
    does not store them), so a recording compares equal to its fixture."""
    from rpcspy.normalise.fixture import known_secrets
    from rpcspy.normalise.secrets import known_order
    from rpcspy.recording import open_recording

    found: set[str] = set()
    for path in paths:
        rec = open_recording(path)
        found.update(known_secrets(rec.header, rec.entries(), options, transcript=rec.kind != "rpcspy"))
    return known_order(found)


def _compat(result: Any, norm: Any, fmt: str, width: int | None) -> None:
    import json
    import shutil

    from rpcspy.diff.compat import compat, survey
    from rpcspy.inert import inert_json, inert_line
    from rpcspy.recording.reader import read_frames
    from rpcspy.render.compat import compat_lines

    report = compat(result, survey(read_frames(result.a), norm), survey(read_frames(result.b), norm))
    if fmt == "json":
        sys.stdout.write(inert_json(json.dumps(report.to_json(), ensure_ascii=False)) + "\n")
    else:
        cols = width or shutil.get_terminal_size((100, 24)).columns
        sys.stdout.write("\n".join(inert_line(ln) for ln in compat_lines(report, width=cols)) + "\n")
    sys.stdout.flush()
    sys.exit(1 if report.breaking else 0)
