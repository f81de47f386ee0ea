"""Validation of decoded frames against a dialect's schemas.

Fast path: one ``msgspec.convert`` of the frame into its Struct type (strict: unknown
fields fail too). Only when that fails does :mod:`rpcspy.protocol.walk` walk the frame
to report every issue with its path. So a clean frame costs one C-level conversion.
"""

from typing import Any

import msgspec
from msgspec import UNSET

from rpcspy.protocol.dialects import DIALECTS, SPECS, Protocol, get_protocol
from rpcspy.protocol.issues import SchemaIssue, from_msgspec_error, json_type
from rpcspy.protocol.walk import walk

_convert = msgspec.convert
_ValidationError = msgspec.ValidationError


def _check(obj: Any, tp: Any, path: str = "$", name: str = "frame") -> list[SchemaIssue]:
    try:
        _convert(obj, tp)
        return []
    except _ValidationError as exc:
        issues = walk(obj, tp, path, name)
        return issues or [from_msgspec_error(str(exc), path)]


def _elsewhere(type_: str, direction: str, dialect: str) -> str:
    """" (known in pi-0.84, omp)" when other dialects know the type, else ""."""
    others = [d for d in DIALECTS if d != dialect and type_ in get_protocol(d).frames(direction)]
    return f" (known in {', '.join(others)})" if others else ""


def validate(obj: Any, direction: str, dialect: str) -> list[SchemaIssue]:
    """Validate one decoded frame object; ``[]`` when it is clean.

    Unknown fields are reported as ``kind="unknown_field"`` (never fatal); everything else
    is a hard issue. A response's ``data`` is checked against the type of its ``command``
    (paths under ``$.data``). ``direction`` is ``"c2a"`` (client -> agent) or ``"a2c"``.
    """
    proto = get_protocol(dialect)
    frames = proto.frames(direction)
    if not isinstance(obj, dict):
        return [SchemaIssue("invalid", "$", f"frame is a JSON {json_type(obj)}, not an object")]
    type_ = obj.get("type", UNSET)
    if type_ is UNSET:
        return [SchemaIssue("missing_field", "$.type", "frame has no 'type'")]
    if not isinstance(type_, str):
        return [SchemaIssue("wrong_type", "$.type", f"expected string for type, got {json_type(type_)}")]
    tp = frames.get(type_)
    if tp is None:
        what = "command type" if direction == "c2a" else "frame type"
        return [SchemaIssue("unknown_type", "$.type", f"unknown {what} {type_!r} in {dialect}"
                            f"{_elsewhere(type_, direction, dialect)}")]
    issues = _check(obj, tp)
    if type_ == "response" and direction == "a2c" and obj.get("success") is True:
        issues += _response_data(obj, proto)
    return issues


def _response_data(obj: dict, proto: Protocol) -> list[SchemaIssue]:
    command = obj.get("command", UNSET)
    if not isinstance(command, str):
        return []  # the envelope check already reported a missing or mistyped command
    if command not in proto.data:
        return [SchemaIssue("unknown_type", "$.command", f"success response to unknown command {command!r} "
                            f"in {proto.dialect}{_elsewhere(command, 'c2a', proto.dialect)}")]
    return [i.under("$.data") for i in validate_response_data(command, obj.get("data", UNSET), proto.dialect)]


def validate_response_data(command: str, data: object, dialect: str) -> list[SchemaIssue]:
    """Validate the ``data`` of a *successful* response to ``command``.

    Paths are rooted at the data (``$.steeringMode``); :func:`validate` moves them under
    ``$.data``. Pass ``msgspec.UNSET`` when the response had no ``data`` key.
    """
    proto = get_protocol(dialect)
    spec = proto.data.get(command)
    if spec is None:
        return [SchemaIssue("unknown_type", "$", f"no command {command!r} in {dialect}")]
    if data is UNSET:
        if spec.type is not None and spec.required:
            return [SchemaIssue("missing_field", "$", f"success response to {command!r} has no 'data'")]
        return []
    if spec.type is None:
        return [SchemaIssue("unknown_field", "$", f"{command!r} responses carry no 'data'")]
    return _check(data, spec.type, "$", "data")


def known_dialect(dialect: str) -> bool:
    return dialect in SPECS
