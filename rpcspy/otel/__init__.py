"""OpenTelemetry traces of a session, decided in the pure core (no I/O, no OpenTelemetry import).

:mod:`rpcspy.otel.mapper` turns a session's events into finished :class:`~rpcspy.otel.spans.SpanRecord`
values following the GenAI semantic conventions (:mod:`rpcspy.otel.semconv`), with ids derived
from the recording (:mod:`rpcspy.otel.ids`), content only on request and redacted first
(:mod:`rpcspy.otel.content`); :mod:`rpcspy.otel.config` reads the standard ``OTEL_*`` variables.
Sending the spans is the pump's (``rpcspy/pump/observers/otel_export.py``). docs/otel.md describes the model.
"""
