"""The standard OTEL_* variables and TRACEPARENT (rpcspy/otel/config.py, rpcspy/otel/ids.py)."""

from __future__ import annotations

import pytest

from rpcspy.otel.config import ConfigError, settings_from_env
from rpcspy.otel.ids import parse_traceparent


def test_defaults() -> None:
    s = settings_from_env({})
    assert s.endpoint == "http://localhost:4318/v1/traces" and s.protocol == "http/protobuf"
    assert s.resource == {"service.name": "rpcspy"} and not s.disabled and s.traceparent is None
    assert s.timeout == 10.0


def test_endpoints_follow_the_spec() -> None:
    assert settings_from_env({"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318/"}).endpoint == "http://c:4318/v1/traces"
    both = {"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "https://t/x"}
    assert settings_from_env(both).endpoint == "https://t/x"  # the signal's own is used as it is
    assert settings_from_env(both, "http://o:1").endpoint == "http://o:1/v1/traces"  # --endpoint wins
    assert settings_from_env({}, "http://o:1/v1/traces").endpoint == "http://o:1/v1/traces"
    grpc = settings_from_env({"OTEL_EXPORTER_OTLP_PROTOCOL": "grpc", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4317"})
    assert (grpc.protocol, grpc.endpoint) == ("grpc", "http://c:4317")


def test_headers_resource_service_timeout_disabled() -> None:
    s = settings_from_env({
        "OTEL_EXPORTER_OTLP_HEADERS": "api-key=a%20b,x=1", "OTEL_EXPORTER_OTLP_TRACES_HEADERS": "x=2",
        "OTEL_RESOURCE_ATTRIBUTES": "service.name=ci,deployment.environment=prod", "OTEL_SERVICE_NAME": "agents",
        "OTEL_EXPORTER_OTLP_TRACES_TIMEOUT": "2500", "OTEL_SDK_DISABLED": "TRUE"})
    assert s.headers == {"api-key": "a b", "x": "2"}
    assert s.resource == {"service.name": "agents", "deployment.environment": "prod"}
    assert s.timeout == 2.5 and s.disabled


@pytest.mark.parametrize("env, said", [
    ({"OTEL_EXPORTER_OTLP_PROTOCOL": "http/json"}, "http/json"),
    ({"OTEL_EXPORTER_OTLP_ENDPOINT": "localhost:4318"}, "not an http(s) URL"),
    ({"OTEL_EXPORTER_OTLP_HEADERS": "novalue"}, "key=value"),
    ({"OTEL_EXPORTER_OTLP_TIMEOUT": "soon"}, "milliseconds"),
    ({"TRACEPARENT": "00-abc"}, "TRACEPARENT"),
])
def test_bad_values_are_refused_with_a_reason(env: dict[str, str], said: str) -> None:
    with pytest.raises(ConfigError, match=said.replace("(", r"\(").replace(")", r"\)")):
        settings_from_env(env)


def test_traceparent() -> None:
    p = parse_traceparent("00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01")
    assert p.trace_id.hex() == "0af7651916cd43dd8448eb211c80319c" and p.sampled
    assert p.header() == "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
    for bad in ("00-00000000000000000000000000000000-b7ad6b7169203331-01",
                "ff-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
                "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01-extra"):
        with pytest.raises(ValueError):
            parse_traceparent(bad)
