"""Validation of decoded frames against a dialect's schemas.

Fast path: one ``msgspec.convert`` of the frame into its Struct type (strict: unknown
fields fail too). Only when that fails does :mod:`rpcspy.protocol.walk` walk the frame
to report every issue with its path (imported then), so a clean frame costs one C-level conversion.
Types that are not Struct classes (unions, ``list[...]``) are wrapped in a one-field
Struct, because msgspec caches conversion plans on Struct classes only.
"""

import typing
from typing import Any, Callable, Union

import msgspec
from msgspec import UNSET

from rpcspy.framing import DECODE_ERRORS
from rpcspy.plans import json_decoder, prepare
from rpcspy.protocol.dialects import Protocol, get_protocol
from rpcspy.protocol.issues import SchemaIssue, from_msgspec_error, json_type
from rpcspy.protocol.responses import DataSpec, Response
from rpcspy.protocol.spec import JSONL_DIALECTS, SPECS

_convert = msgspec.convert
_ValidationError = msgspec.ValidationError
_Struct = msgspec.Struct
_wrappers: dict[Any, type] = {}


def _wrapper(tp: Any) -> type:
    """A Struct with one field ``v: tp`` (cached)."""
    w = _wrappers.get(tp)
    if w is None:
        w = _wrappers[tp] = msgspec.defstruct("Wrapped", [("v", tp)])
    return w


def _is_struct(tp: Any) -> bool:
    return isinstance(tp, type) and issubclass(tp, _Struct)


def _checker(tp: Any) -> Callable[[Any, str, str], list[SchemaIssue]]:
    """A function validating a decoded value against ``tp`` (fast path, then the walker)."""
    if tp is Any:
        return lambda value, path, name: []
    prepare(tp if _is_struct(tp) else _wrapper(tp))  # before any thread converts to it
    if _is_struct(tp):

        def check(value: Any, path: str, name: str) -> list[SchemaIssue]:
            try:
                _convert(value, tp)
                return []
            except _ValidationError as exc:
                return _walk(value, tp, path, name, str(exc))
            except RecursionError:
                return [_too_deep(path)]
    else:
        wrap = _wrapper(tp)

        def check(value: Any, path: str, name: str) -> list[SchemaIssue]:
            try:
                _convert({"v": value}, wrap)
                return []
            except _ValidationError as exc:
                return _walk(value, tp, path, name, str(exc).replace("$.v", "$", 1))
            except RecursionError:
                return [_too_deep(path)]
    return check


type_checker = _checker
"""``type_checker(tp)(value, path, name)``: the issues of a decoded value against ``tp`` (fast path, then the walker)."""


def _walk(value: Any, tp: Any, path: str, name: str, error: str) -> list[SchemaIssue]:
    """Every issue, by the walker; msgspec's own error if the walker finds none."""
    from rpcspy.protocol.walk import walk  # imported on the first frame with an issue

    try:
        return walk(value, tp, path, name) or [from_msgspec_error(error, path)]
    except RecursionError:
        return [_too_deep(path)]


def _too_deep(path: str) -> SchemaIssue:
    return SchemaIssue("invalid", path, "nested too deeply to validate")


_tables: dict[tuple[str, str], dict[str, tuple[Any, bool, Callable[..., list[SchemaIssue]]]]] = {}


def _table(direction: str, dialect: str) -> dict[str, tuple[Any, bool, Callable[..., list[SchemaIssue]]]]:
    """Frame type -> (convert target, wrapped?, full checker) for one dialect and direction."""
    proto = get_protocol(dialect)
    table = {}
    for t, tp in proto.frames(direction).items():
        wrapped = not _is_struct(tp)
        table[t] = (_wrapper(tp) if wrapped else tp, wrapped, _checker(tp))
    _tables[direction, dialect] = table
    return table


def _data_checker(proto: Protocol, command: str, spec: DataSpec) -> Callable[[Any, str, str], list[SchemaIssue]]:
    key = f"data:{command}"
    fn = proto.cache.get(key)
    if fn is None:
        fn = proto.cache[key] = _checker(spec.type)
    return fn


def _elsewhere(type_: str, direction: str, dialect: str) -> str:
    """' (known in pi-0.84, omp)' when other dialects know the type, else ''."""
    others = [d for d in JSONL_DIALECTS if d != dialect and type_ in get_protocol(d).frames(direction)]
    return f" (known in {', '.join(others)})" if others else ""


def validate(obj: Any, direction: str, dialect: str) -> list[SchemaIssue]:
    """Validate one decoded frame object; ``[]`` when it is clean.

    Unknown fields are reported as ``kind="unknown_field"`` (never fatal); everything else
    is a hard issue. A response's ``data`` is checked against the type of its ``command``
    (paths under ``$.data``). ``direction`` is ``"c2a"`` (client -> agent) or ``"a2c"``.
    """
    if (spec := SPECS.get(dialect)) is not None and spec.jsonrpc:
        from rpcspy.protocol.acp import validate_message

        return validate_message(obj, direction)
    table = _tables.get((direction, dialect)) or _table(direction, dialect)
    if type(obj) is not dict:
        return [SchemaIssue("invalid", "$", f"frame is a JSON {json_type(obj)}, not an object")]
    type_ = obj.get("type", UNSET)
    entry = table.get(type_) if type(type_) is str else None
    if entry is None:
        return [_type_issue(type_, direction, dialect)]
    target, wrapped, check = entry
    try:
        _convert({"v": obj} if wrapped else obj, target)
        issues = []
    except (_ValidationError, RecursionError):
        issues = check(obj, "$", "frame")
    if type_ == "response" and direction == "a2c":
        success = obj.get("success")
        if success is True:
            issues += _response_data(obj, get_protocol(dialect))
        elif success is False and "error" not in obj:
            issues.append(SchemaIssue("missing_field", "$.error", "missing required field 'error' (string) "
                                      "in a failed response"))
    return issues


def _type_issue(type_: Any, direction: str, dialect: str) -> SchemaIssue:
    if type_ is UNSET:
        return SchemaIssue("missing_field", "$.type", "frame has no 'type'")
    if not isinstance(type_, str):
        return SchemaIssue("wrong_type", "$.type", f"expected string for type, got {json_type(type_)}")
    what = "command type" if direction == "c2a" else "frame type"
    return SchemaIssue("unknown_type", "$.type",
                       f"unknown {what} {type_!r} in {dialect}{_elsewhere(type_, direction, dialect)}")


def _response_data(obj: dict[str, Any], proto: Protocol) -> list[SchemaIssue]:
    command = obj.get("command", UNSET)
    if type(command) is not str:
        return []  # the envelope check already reported a missing or mistyped command
    if command not in proto.data:
        return [SchemaIssue("unknown_type", "$.command", f"success response to unknown command {command!r} "
                            f"in {proto.dialect}{_elsewhere(command, 'c2a', proto.dialect)}")]
    return _data_issues(proto, command, obj.get("data", UNSET), "$.data")


def _data_issues(proto: Protocol, command: str, data: Any, path: str) -> list[SchemaIssue]:
    spec = proto.data[command]
    if data is UNSET:
        if spec.type is not None and spec.required:
            return [SchemaIssue("missing_field", path, f"success response to {command!r} has no 'data'")]
        return []
    if spec.type is None:
        return [SchemaIssue("unknown_field", path, f"{command!r} responses carry no 'data'")]
    return _data_checker(proto, command, spec)(data, path, "data")


def validate_response_data(command: str, data: object, dialect: str) -> list[SchemaIssue]:
    """Validate the ``data`` of a *successful* response to ``command``.

    Paths are rooted at the data (``$.steeringMode``); :func:`validate` reports the same
    issues under ``$.data``. Pass ``msgspec.UNSET`` when the response had no ``data`` key.
    """
    proto = get_protocol(dialect)
    if command not in proto.data:
        return [SchemaIssue("unknown_type", "$", f"no command {command!r} in {dialect}"
                            f"{_elsewhere(command, 'c2a', dialect)}")]
    return _data_issues(proto, command, data, "$")


class _UIEnvelope(msgspec.Struct, tag_field="type", tag="extension_ui_request"):
    """Stands in for ``extension_ui_request`` (a union on ``method``) in the bytes decoder."""


_decoders: dict[tuple[str, str], tuple[msgspec.json.Decoder[Any], msgspec.json.Decoder[Any] | None]] = {}


def _members(direction: str, dialect: str) -> list[Any]:
    """The direction's frame types as the bytes decoder's union members (``extension_ui_request`` as its envelope)."""
    frames = get_protocol(dialect).frames(direction)
    members = [tp for t, tp in frames.items() if t != "extension_ui_request"]
    if "extension_ui_request" in frames:
        members.append(_UIEnvelope)
    return members


def _decoder(direction: str, dialect: str) -> tuple[msgspec.json.Decoder[Any], msgspec.json.Decoder[Any] | None]:
    ui = get_protocol(dialect).frames(direction).get("extension_ui_request")
    pair = (json_decoder(Union[tuple(_members(direction, dialect))]),
            json_decoder(ui) if ui is not None else None)
    _decoders[direction, dialect] = pair
    return pair


_unions: dict[str, tuple[Any, frozenset[type]]] = {}


def frame_union(dialect: str) -> tuple[Any, frozenset[type]]:
    """``(union, agent classes)``: every frame type of ``dialect`` in both directions as one msgspec type, for
    decoding many frames in one call (the recording reader's typed blocks), and the classes of it that
    :func:`typed_decoder` gives for agent frames. A frame of an agent type decodes into it as
    ``typed_decoder("a2c", dialect)`` decodes it alone; an agent frame that decodes into another class
    (a client type) is what that decoder refuses (``ValidationError``). The same object for a dialect,
    every call."""
    got = _unions.get(dialect)
    if got is None:
        agent = _members("a2c", dialect)
        tags = {_tag(tp) for tp in agent}
        client = [tp for tp in _members("c2a", dialect) if _tag(tp) not in tags]  # disjoint in every dialect today
        got = _unions[dialect] = (Union[tuple(agent + client)], frozenset(_classes(agent)))
    return got


def _tag(tp: Any) -> Any:
    return tp.__struct_config__.tag if _is_struct(tp) else None


def _classes(types: list[Any]) -> list[type]:
    """The Struct classes of ``types``, unions opened."""
    out: list[type] = []
    for tp in types:
        out += [tp] if _is_struct(tp) else _classes(list(typing.get_args(tp)))
    return out


def typed_decoder(direction: str, dialect: str) -> Callable[[bytes], object]:
    """:func:`validate_bytes`' first step: the frame decoded into the direction's Structs.

    A result that is neither a ``Response`` nor an ``extension_ui_request`` (such as a
    ``message_update``) is already what :func:`validate_bytes` returns clean; for those
    two, or on an error, call :func:`validate_bytes`. For hot loops (the checker).
    """
    return (_decoders.get((direction, dialect)) or _decoder(direction, dialect))[0].decode


def validate_bytes(data: bytes, direction: str, dialect: str) -> tuple[object | None, list[SchemaIssue]]:
    """Decode one raw frame (without its LF) straight into Structs and validate it.

    Returns ``(value, issues)``. When the frame is clean, ``value`` is the msgspec Struct
    (field names are the wire keys; the ``type`` tag is ``frame_type(value)``) and
    ``issues`` is ``[]``. Otherwise ``value`` is the plain decoded JSON (as from
    ``msgspec.json.decode``) with the same issues :func:`validate` reports, or ``None``
    (and one ``invalid`` issue) when the bytes are not JSON. A JSON-RPC dialect's value is always the
    decoded JSON.
    """
    if (spec := SPECS.get(dialect)) is not None and spec.jsonrpc:
        try:
            obj = msgspec.json.decode(data)
        except DECODE_ERRORS as exc:
            return None, [_not_json(exc)]
        return obj, validate(obj, direction, dialect)
    try:
        value = typed_decoder(direction, dialect)(data)
    except _ValidationError:
        value = None
    except DECODE_ERRORS as exc:
        return None, [_not_json(exc)]
    return validate_decoded(value, data, direction, dialect)


def validate_decoded(value: object, data: bytes, direction: str, dialect: str) -> tuple[object | None, list[SchemaIssue]]:
    """:func:`validate_bytes` after its first step: ``value`` is what :func:`typed_decoder` answered
    for ``data`` (None when it raised a validation error): the frame is not decoded twice."""
    try:
        if value is None:
            raise _ValidationError
        if type(value) is _UIEnvelope:
            value = _decoders[direction, dialect][1].decode(data)  # type: ignore[union-attr]
        elif isinstance(value, Response):
            if value.success is False and value.error is UNSET:
                raise _ValidationError
            if value.success is True and type(value.command) is str:
                proto = get_protocol(dialect)
                if value.command not in proto.data or _data_issues(proto, value.command, value.data, "$.data"):
                    raise _ValidationError
        return value, []
    except _ValidationError:
        pass
    except DECODE_ERRORS as exc:
        return None, [_not_json(exc)]
    try:
        obj = msgspec.json.decode(data)
    except DECODE_ERRORS as exc:
        return None, [_not_json(exc)]
    return obj, validate(obj, direction, dialect)


def _not_json(exc: Exception) -> SchemaIssue:
    if isinstance(exc, RecursionError):
        return SchemaIssue("invalid", "$", "JSON nested too deeply to decode")
    return SchemaIssue("invalid", "$", f"not valid JSON: {exc}")


def frame_type(value: Any) -> Any:
    """The ``type`` of a frame, whether a decoded dict or a Struct from :func:`validate_bytes`."""
    if isinstance(value, dict):
        return value.get("type")
    if isinstance(value, _Struct):
        cfg = value.__struct_config__
        return cfg.tag if cfg.tag_field == "type" else getattr(value, "type", None)
    return None
