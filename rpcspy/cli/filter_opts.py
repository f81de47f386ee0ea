"""The shared filter options of ``show``, ``check``, ``stats``, ``export`` and ``browse``.

:func:`filter_options` adds them to a click command, which then receives one
``frame_filter`` (:class:`rpcspy.filters.FrameFilter`) argument; a bad value is
a usage error (exit 2).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import click


def filter_options(f: Callable[..., Any]) -> Callable[..., Any]:
    """Decorator for a click command: add the shared filter options.

    The command gets one ``frame_filter: FrameFilter`` keyword argument instead of
    the seven option values.
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
        click.option("--where", "f_where", metavar="EXPR",
                     help="Only entries for which this JMESPath expression is true, evaluated on the frame's JSON "
                          "plus _dir, _seq, _t, _kind and _text (non-JSON lines): \"type == 'prompt'\", "
                          "\"_dir == 'a2c' && contains(message.role || '', 'assistant')\", \"_seq > `100`\" "
                          "(numbers in backticks). See the README's Filter expressions."),
    ]

    @functools.wraps(f)
    def wrapper(*args: Any, f_dir: tuple[str, ...], f_type: tuple[str, ...], f_time: str | None,
                f_seq: str | None, f_grep: str | None, f_findings: bool, f_where: str | None,
                **kwargs: Any) -> Any:
        try:
            from rpcspy.filters import build_filter  # on use: it loads the events (msgspec), --help does not

            kwargs["frame_filter"] = build_filter(dirs=f_dir, types=f_type, time=f_time, seq=f_seq,
                                                  grep=f_grep, only_findings=f_findings, where=f_where)
        except ValueError as exc:
            raise click.UsageError(str(exc)) from None
        return f(*args, **kwargs)

    for option in reversed(options):
        wrapper = option(wrapper)
    return wrapper
