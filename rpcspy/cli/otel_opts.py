"""The live OpenTelemetry options of the commands that run an agent (run, drive, conform), and their checks.

``--otel`` exports the session's spans as it runs (rpcspy/pump/observers/otel_export.py: an observer, off the
forwarding path), configured by the standard ``OTEL_*`` variables and ``TRACEPARENT``
(rpcspy/otel/config.py); ``--otel-content`` adds prompts, replies and tool I/O, redacted first.
Without the ``rpcspy[otel]`` extra, ``--otel`` exits 2 with the install line, before anything starts.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

import click

OTEL_HELP = ("Export the session as OpenTelemetry traces while it runs (OTLP; configured by "
             "OTEL_EXPORTER_OTLP_ENDPOINT, ..._TRACES_ENDPOINT, ..._HEADERS, ..._PROTOCOL, OTEL_SERVICE_NAME, "
             "OTEL_RESOURCE_ATTRIBUTES, OTEL_SDK_DISABLED; TRACEPARENT makes the session a child of that span). "
             "Needs pip install 'rpcspy[otel]'. See docs/otel.md.")
CONTENT_HELP = ("With --otel: also export prompts, replies and tool arguments and results (redacted as "
                "fixtures are: keys, passwords, tokens). Default: no content.")


def otel_options(f: Callable[..., Any]) -> Callable[..., Any]:
    f = click.option("--otel-content", "otel_content", is_flag=True, help=CONTENT_HELP)(f)
    return click.option("--otel", "otel", is_flag=True, help=OTEL_HELP)(f)


def otel_settings(endpoint: str | None = None) -> Any:
    """The export settings from the environment, or None when OTEL_SDK_DISABLED says so (said on stderr).
    A bad variable, or the extra not installed: exit 2 with what to do."""
    from rpcspy.cli.exits import InputError
    from rpcspy.otel.config import ConfigError, settings_from_env

    try:
        settings = settings_from_env(os.environ, endpoint)
    except ConfigError as exc:
        raise InputError(str(exc)) from None
    if settings.disabled:
        click.echo("rpcspy: OTEL_SDK_DISABLED=true: no traces are exported", err=True)
        return None
    from rpcspy.pump.observers.otel_export import missing

    problem = missing(settings)
    if problem is not None:
        raise InputError(problem)
    return settings


def otel_observer(settings: Any, content: bool) -> Callable[[Any], list[Any]]:
    """An observer factory (rpcspy.pump.forward.session.ObserverFactory) for the live exporter."""

    def factory(session: Any) -> list[Any]:
        from rpcspy.pump.observers.otel_export import live_observer  # in the observer process, after the fork

        return [live_observer(settings, started=session.started, content=content)]

    return factory


def check_content(otel: bool, otel_content: bool) -> None:
    if otel_content and not otel:
        raise click.UsageError("--otel-content goes with --otel")


class _CaseExporter:
    """conform --otel: each case, once it is judged, as one trace (its agent's frames, findings, verdict)."""

    def __init__(self, settings: Any, content: bool) -> None:
        from rpcspy.pump.observers.otel_export import SpanSender

        self.settings, self.content = settings, content
        self.sender = SpanSender(settings)

    def case(self, result: Any, argv: list[str]) -> None:
        import time

        from rpcspy.otel.conform import case_spans

        self.sender.put(case_spans(result.case.id, result.verdict, result.transcript, list(argv),
                                   started=time.time() - result.seconds, content=self.content,
                                   parent=self.settings.traceparent))

    def close(self) -> None:
        from rpcspy.pump.observers.otel_export import EXIT_WAIT

        self.sender.close(EXIT_WAIT)
        level, text = self.sender.summary()
        if level != "info":
            click.echo(f"rpcspy: {text}", err=True)


def case_exporter(otel: bool, content: bool) -> _CaseExporter | None:
    check_content(otel, content)
    if not otel:
        return None
    settings = otel_settings()
    return None if settings is None else _CaseExporter(settings, content)
