"""JSON Schema output (``rpcspy schema``) and field information for completion.

The schema follows "strict in what you send, tolerant in what you accept": the client's
own frames (commands) keep ``additionalProperties: false``; every other object is open,
because agents add fields (rpcspy reports those as ``unknown_field`` at info level).
"""

from typing import Any, Literal, Union, get_args, get_origin

import msgspec
from msgspec import UNSET

from rpcspy.protocol.base import Base, opt
from rpcspy.protocol.dialects import Protocol, get_protocol
from rpcspy.protocol.spec import DESCRIPTIONS, SPECS
from rpcspy.protocol.walk import describe

SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"
_REF = "#/$defs/{name}"


def _camel(name: str) -> str:
    return "".join(w[:1].upper() + w[1:] for w in name.split("_"))


def _responses(proto: Protocol) -> list[type]:
    """One Struct per command's success response, plus the failure response."""
    out: list[type] = []
    for command, spec in proto.data.items():
        fields: list[Any] = [("command", Literal[command]), ("success", Literal[True])]
        if spec.type is not None:
            fields.append(("data", spec.type) if spec.required else ("data", opt(spec.type), UNSET))
        fields.append(("id", opt(Any), UNSET))
        cls = msgspec.defstruct(f"{_camel(command)}Response", fields, bases=(Base,), tag_field="type",
                                tag="response")
        cls.__doc__ = f"Success response to `{command}`; `id` echoes the command's id."
        out.append(cls)
    error: list[Any] = [("success", Literal[False]), ("error", str), ("id", opt(Any), UNSET),
                        ("command", opt(str), UNSET)]
    if proto.spec.omp_family:
        error.append(("code", opt(str), UNSET))
    cls = msgspec.defstruct("ErrorResponse", error, bases=(Base,), tag_field="type", tag="response")
    cls.__doc__ = ("Failure response. No `id` and no `command` for input that was not an object; "
                   "`command` is \"parse\" for a parse error.")
    return out + [cls]


def _frames(proto: Protocol, direction: str) -> list[Any]:
    if direction == "c2a":
        return list(proto.c2a.values())
    events = [tp for t, tp in proto.a2c.items() if t not in ("response", "extension_ui_request")]
    return events + _responses(proto) + list(proto.ui_requests.values())


def _open_up(components: dict[str, Any], keep: set[str]) -> None:
    for name, schema in components.items():
        if name not in keep and schema.get("additionalProperties") is False:
            del schema["additionalProperties"]


def _tidy_names(doc: dict[str, Any]) -> dict[str, Any]:
    """Give generic instantiations readable names (``TreeNode_typing.Union[...]`` -> ``SessionTreeNode``)."""
    defs = doc["$defs"]
    renames = {k: "SessionTreeNode" for k in defs if k.startswith("TreeNode_")}
    if not renames:
        return doc
    text = msgspec.json.encode(doc).decode()
    for old, new in renames.items():
        text = text.replace(f'"#/$defs/{old}"', f'"#/$defs/{new}"')
    out: dict[str, Any] = msgspec.json.decode(text)
    for old, new in renames.items():
        out["$defs"][new] = out["$defs"].pop(old)
        out["$defs"][new]["title"] = new
    out["$defs"] = dict(sorted(out["$defs"].items()))
    return out


def json_schema(dialect: str, direction: str | None = None) -> dict[str, Any]:
    """JSON Schema (2020-12) of the frames of ``dialect``: one direction, or both when ``None``."""
    if direction not in (None, "c2a", "a2c"):
        raise ValueError(f"direction must be 'c2a', 'a2c' or None, not {direction!r}")
    if (spec := SPECS.get(dialect)) is not None and spec.jsonrpc:
        return _jsonrpc_schema(dialect, direction)
    proto = get_protocol(dialect)
    directions = [direction] if direction else ["c2a", "a2c"]
    groups = {d: _frames(proto, d) for d in directions}
    all_types = [tp for d in directions for tp in groups[d]]
    refs, components = msgspec.json.schema_components(all_types, ref_template=_REF)
    commands = {tp.__name__ for tp in proto.c2a.values()}
    _open_up(components, keep=commands if "c2a" in directions else set())
    by_dir: dict[str, list[Any]] = {}
    i = 0
    for d in directions:
        by_dir[d] = list(refs[i:i + len(groups[d])])
        i += len(groups[d])
    titles = {"c2a": "ClientFrame", "a2c": "AgentFrame"}
    doc: dict[str, Any] = {
        "$schema": SCHEMA_DIALECT,
        "title": f"rpcspy: {dialect} RPC frames" + (f" ({direction})" if direction else ""),
        "description": f"{DESCRIPTIONS[dialect]}. One JSON object per LF-terminated line. ClientFrame: "
                       "client -> agent stdin; AgentFrame: agent stdout -> client.",
    }
    for d in directions:
        components[titles[d]] = {"title": titles[d], "oneOf": by_dir[d]}
    doc["oneOf"] = [{"$ref": _REF.format(name=titles[d])} for d in directions]
    doc["$defs"] = dict(sorted(components.items()))
    return _tidy_names(doc)


def _jsonrpc_schema(dialect: str, direction: str | None) -> dict[str, Any]:
    """ACP: the params and result of every method the direction sends (msgspec's view of the generated types;
    the official schema is ``schema/v1/schema.json`` of npm ``@agentclientprotocol/sdk``)."""
    from rpcspy.protocol.acp_types import METHODS, SDK_PACKAGE, SDK_VERSION

    sides = {"c2a": ("agent", "protocol"), "a2c": ("client", "protocol")}
    wanted = [d for d in ("c2a", "a2c") if direction in (None, d)]
    types = [tp for m in METHODS.values() if any(m.side in sides[d] for d in wanted)
             for tp in (m.params, m.result) if tp is not None]
    _, components = msgspec.json.schema_components(types, ref_template=_REF)
    return {"$schema": SCHEMA_DIALECT, "title": f"rpcspy: {dialect} method params and results",
            "description": f"{DESCRIPTIONS[dialect]}. Generated from {SDK_PACKAGE} {SDK_VERSION}.",
            "x-methods": {name: {"handledBy": m.side, "params": m.params.__name__ if m.params else None,
                                 "result": getattr(m.result, "__name__", None)} for name, m in METHODS.items()},
            "$defs": dict(sorted(components.items()))}


def command_types(dialect: str) -> list[str]:
    """Every frame ``type`` a client may send in ``dialect`` (commands first, sorted)."""
    proto = get_protocol(dialect)
    extra = sorted(set(proto.c2a) - set(proto.commands))
    return sorted(proto.commands) + extra


def _field_info(tp: Any, required: bool) -> dict[str, object]:
    members = [m for m in (get_args(tp) if get_origin(tp) is Union else (tp,)) if m is not msgspec.UnsetType]
    info: dict[str, object] = {"required": required, "type": describe(Union[tuple(members)])}
    enum = [v for m in members if get_origin(m) is Literal for v in get_args(m)]
    if enum:
        info["enum"] = enum
    return info


def command_fields(dialect: str, command: str) -> dict[str, object]:
    """Field name -> ``{"required": bool, "type": "string", "enum": [...]?}`` ({} if unknown)."""
    cls = get_protocol(dialect).c2a.get(command)
    if cls is None:
        return {}
    return {f.encode_name: _field_info(f.type, f.required) for f in msgspec.structs.fields(cls)}


__all__ = ["json_schema", "command_types", "command_fields"]
