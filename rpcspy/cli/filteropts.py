"""The shared filter options (``--dir``, ``--type``, ``--time``, ``--seq``, ``--grep``, ``--with-findings``).

Apart from :mod:`rpcspy.filters` so a command's ``--help`` loads only click: the filter
itself is built when the command runs.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import click


def filter_options(f: Callable[..., Any]) -> Callable[..., Any]:
    """Decorator for a click command: add the shared filter options.

    The command gets one ``frame_filter: FrameFilter`` keyword argument instead of
    the six option values.
    """
    options = [
        click.option("--dir", "f_dir", multiple=True, metavar="DIR",
                     help="Only this direction: c2a (alias client, stdin), a2c (agent, stdout), err (stderr). "
                          "Repeat or separate with commas."),
        click.option("--type", "f_type", multiple=True, metavar="GLOB",
                     help="Only frames of this type: an event or command type (agent_start, prompt), a response's "
                          "command, a message_update's event (text_delta), a UI method (select), stderr, invalid; "
                          "other entries: start, exit, eof, note. In check, a finding passes when the frame it "
                          "is about does, or by its rule id, group or severity (schema.*, error). "
                          "Globs (tool_*), repeat or use commas."),
        click.option("--time", "f_time", metavar="FROM..TO",
                     help="Only entries in this time range, seconds since the start: 1.5..3, ..10, 2.."),
        click.option("--seq", "f_seq", metavar="FROM..TO", help="Only entries in this seq range (10..40), or one seq."),
        click.option("--grep", "f_grep", metavar="REGEX",
                     help="Only frames whose text matches (case-insensitive unless the pattern has capitals)."),
        click.option("--with-findings", "f_findings", is_flag=True, help="Only frames that have findings."),
    ]

    @functools.wraps(f)
    def wrapper(*args: Any, f_dir: tuple[str, ...], f_type: tuple[str, ...], f_time: str | None,
                f_seq: str | None, f_grep: str | None, f_findings: bool, **kwargs: Any) -> Any:
        from rpcspy.filters import build_filter

        try:
            kwargs["frame_filter"] = build_filter(dirs=f_dir, types=f_type, time=f_time, seq=f_seq,
                                                  grep=f_grep, only_findings=f_findings)
        except ValueError as exc:
            raise click.UsageError(str(exc)) from None
        return f(*args, **kwargs)

    for option in reversed(options):
        wrapper = option(wrapper)
    return wrapper
