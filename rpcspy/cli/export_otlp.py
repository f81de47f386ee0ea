"""``rpcspy export REC... --format otlp``: recordings as OpenTelemetry traces (docs/otel.md).

Each recording is read once and fed to the core's :class:`~rpcspy.otel.mapper.SpanMapper`; the
pump's :class:`~rpcspy.pump.observers.otel_export.SpanSender` sends the spans. The ids come from the
recording, so an export repeated (or one after the live ``--otel`` export) sends the same spans.
"""

from __future__ import annotations

import os

import click

from rpcspy.cli.exits import FAILED, OK
from rpcspy.cli.otel_opts import otel_settings

SEND_WAIT = 60.0
"""How long the last spans may take to go out before they count as not delivered."""


def export_otlp(paths: tuple[str, ...], *, endpoint: str | None, content: bool, check: bool) -> int:
    from rpcspy.cli.recfile import open_or_fail, report_problems
    from rpcspy.otel.mapper import SpanMapper

    settings = otel_settings(endpoint)
    if settings is None:
        return OK
    recs = [open_or_fail(p) for p in paths]  # every input readable before anything is sent
    from rpcspy.pump.observers.otel_export import SpanSender

    sender = SpanSender(settings, block=True)
    for path, rec in zip(paths, recs, strict=True):
        mapper = SpanMapper(rec.header.started_unix, content=content, parent=settings.traceparent)
        for event in rec.events(check=check):
            spans = mapper.feed(event)
            if spans:
                sender.put(spans)
        sender.put(mapper.finish())
        report_problems(rec)
        click.echo(f"rpcspy: {os.path.basename(path)}: {mapper.spans} span(s), trace {mapper.trace_id.hex()}",
                   err=True)
    sender.close(SEND_WAIT)
    level, text = sender.summary()
    click.echo(f"rpcspy: {text}", err=True)
    return OK if level == "info" else FAILED
