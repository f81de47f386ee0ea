"""The standard OpenTelemetry environment variables, read into one value (pure: the caller passes the environment).

https://opentelemetry.io/docs/specs/otel/protocol/exporter/ and .../configuration/sdk-environment-variables/:
the traces endpoint, protocol, headers and timeout (the ``_TRACES_`` variable over the general one),
``OTEL_SERVICE_NAME`` and ``OTEL_RESOURCE_ATTRIBUTES`` (the resource), ``OTEL_SDK_DISABLED`` (export
nothing), and ``TRACEPARENT`` (the CI job's span a session becomes a child of).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from urllib.parse import unquote, urlsplit

from rpcspy.otel.ids import TraceParent, parse_traceparent

PROTOCOLS = ("http/protobuf", "grpc")
DEFAULT_HTTP = "http://localhost:4318"
DEFAULT_GRPC = "http://localhost:4317"
TRACES_PATH = "/v1/traces"
DEFAULT_TIMEOUT = 10.0
SERVICE = "rpcspy"


class ConfigError(ValueError):
    """A variable or option that cannot be used (said in the message)."""


@dataclass(frozen=True)
class ExportSettings:
    endpoint: str
    """The URL spans are sent to (for http/protobuf, the traces path included)."""
    protocol: str = "http/protobuf"
    headers: dict[str, str] = field(default_factory=dict)
    timeout: float = DEFAULT_TIMEOUT
    """Seconds one export request may take."""
    resource: dict[str, str] = field(default_factory=dict)
    disabled: bool = False
    traceparent: TraceParent | None = None


def _pairs(text: str, name: str) -> dict[str, str]:
    """``key=value,key2=value2`` with percent-encoded values (the W3C baggage form the spec uses)."""
    out: dict[str, str] = {}
    for item in text.split(","):
        if not item.strip():
            continue
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise ConfigError(f"{name}: expected key=value pairs separated by commas, got {item.strip()!r}")
        out[unquote(key.strip())] = unquote(value.strip())
    return out


def _get(env: Mapping[str, str], *names: str) -> tuple[str, str] | None:
    for name in names:
        value = env.get(name, "").strip()
        if value:
            return name, value
    return None


def _url(value: str, name: str) -> str:
    parts = urlsplit(value)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ConfigError(f"{name}: not an http(s) URL: {value!r}")
    return value


def settings_from_env(env: Mapping[str, str], endpoint: str | None = None) -> ExportSettings:
    """The export settings ``env`` gives (``endpoint``: a ``--endpoint`` option, which wins)."""
    got = _get(env, "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_EXPORTER_OTLP_PROTOCOL")
    protocol = got[1] if got else "http/protobuf"
    if protocol not in PROTOCOLS:
        raise ConfigError(f"{got[0] if got else 'protocol'}={protocol!r}: rpcspy exports http/protobuf or grpc "
                          "(the OpenTelemetry Python exporter has no http/json)")
    grpc = protocol == "grpc"
    if endpoint is not None:
        url = _url(endpoint, "--endpoint")
        if not grpc and not urlsplit(url).path.rstrip("/").endswith(TRACES_PATH):
            url = url.rstrip("/") + TRACES_PATH
    elif got := _get(env, "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"):
        url = _url(got[1], got[0])
    elif got := _get(env, "OTEL_EXPORTER_OTLP_ENDPOINT"):
        url = _url(got[1], got[0])
        url = url if grpc else url.rstrip("/") + TRACES_PATH
    else:
        url = DEFAULT_GRPC if grpc else DEFAULT_HTTP + TRACES_PATH
    headers: dict[str, str] = {}
    for name in ("OTEL_EXPORTER_OTLP_HEADERS", "OTEL_EXPORTER_OTLP_TRACES_HEADERS"):
        headers.update(_pairs(env.get(name, ""), name))
    timeout = DEFAULT_TIMEOUT
    if got := _get(env, "OTEL_EXPORTER_OTLP_TRACES_TIMEOUT", "OTEL_EXPORTER_OTLP_TIMEOUT"):
        try:
            timeout = float(got[1]) / 1000.0
        except ValueError:
            raise ConfigError(f"{got[0]}: not a number of milliseconds: {got[1]!r}") from None
        if not timeout > 0:
            raise ConfigError(f"{got[0]}: must be above 0 ms: {got[1]!r}")
    resource = _pairs(env.get("OTEL_RESOURCE_ATTRIBUTES", ""), "OTEL_RESOURCE_ATTRIBUTES")
    service = env.get("OTEL_SERVICE_NAME", "").strip()
    if service:
        resource["service.name"] = service
    resource.setdefault("service.name", SERVICE)
    parent = None
    if got := _get(env, "TRACEPARENT"):
        try:
            parent = parse_traceparent(got[1])
        except ValueError as exc:
            raise ConfigError(f"TRACEPARENT: {exc}") from None
    return ExportSettings(endpoint=url, protocol=protocol, headers=headers, timeout=timeout, resource=resource,
                          disabled=env.get("OTEL_SDK_DISABLED", "").strip().lower() == "true", traceparent=parent)
