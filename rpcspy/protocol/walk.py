"""A Python-level schema walker: every issue of a decoded value, with its JSON path.

msgspec stops at the first error and ignores unknown fields unless told otherwise, so
validation runs ``msgspec.convert`` first (fast, C) and only when that fails walks the
value here against the same Struct types to report *all* issues, unknown fields
included. It mirrors msgspec's rules: ``bool`` is not an integer, an ``int`` is a valid
``float``, tagged unions dispatch on their tag field.
"""

import keyword
import types
from dataclasses import dataclass
from typing import Any, Callable, Literal, Union, get_args, get_origin

import msgspec
from msgspec import UNSET, UnsetType

from rpcspy.protocol.issues import SchemaIssue, fmt_value, json_type

_NoneType = type(None)


@dataclass(slots=True)
class _StructInfo:
    name: str
    fields: dict[str, Any]
    required: tuple[str, ...]
    tag_field: str | None
    tag: Any
    forbid: bool
    check: Callable[..., Any] | None


_infos: dict[Any, _StructInfo] = {}


def _struct_class(tp: Any) -> type | None:
    cls = get_origin(tp) or tp
    return cls if isinstance(cls, type) and issubclass(cls, msgspec.Struct) else None


def _info(tp: Any) -> _StructInfo:
    info = _infos.get(tp)
    if info is None:
        cls = _struct_class(tp)
        cfg = cls.__struct_config__  # type: ignore[union-attr]
        fields = {f.encode_name: _strip_unset(f.type) for f in msgspec.structs.fields(tp)}
        required = tuple(f.encode_name for f in msgspec.structs.fields(tp)
                         if f.default is msgspec.NODEFAULT and f.default_factory is msgspec.NODEFAULT)
        tag = cfg.tag
        name = tag if isinstance(tag, str) else cls.__name__  # type: ignore[union-attr]
        info = _StructInfo(name, fields, required, cfg.tag_field, tag, cfg.forbid_unknown_fields,
                           getattr(cls, "__rpcspy_check__", None))
        _infos[tp] = info
    return info


def _members(tp: Any) -> tuple[Any, ...]:
    if get_origin(tp) in (Union, types.UnionType):
        return tuple(m for m in get_args(tp) if m is not UnsetType)
    return (tp,)


def _strip_unset(tp: Any) -> Any:
    members = _members(tp)
    return members[0] if len(members) == 1 else Union[members]


def describe(tp: Any) -> str:
    """A JSON-ish name for a type: ``string``, ``'all' | 'one-at-a-time'``, ``array``, ..."""
    if tp is Any or tp is msgspec.Raw:
        return "any"
    if get_origin(tp) in (Union, types.UnionType):
        return " | ".join(describe(m) for m in _members(tp))
    if get_origin(tp) is Literal:
        return " | ".join(fmt_value(v) for v in get_args(tp))
    if tp in (_NoneType, None):
        return "null"
    if get_origin(tp) is list or tp is list:
        return "array"
    if get_origin(tp) is dict or tp is dict or _struct_class(tp):
        return "object"
    return {str: "string", int: "integer", float: "number", bool: "boolean"}.get(tp, getattr(tp, "__name__", str(tp)))


def _same(a: Any, b: Any) -> bool:
    """Equal and of the same JSON type (``True`` is not ``1``)."""
    return type(a) is type(b) and a == b


def _prim_ok(v: Any, tp: Any) -> bool:
    if tp is str:
        return isinstance(v, str)
    if tp is bool:
        return isinstance(v, bool)
    if tp is int:
        return isinstance(v, int) and not isinstance(v, bool)
    if tp is float:
        return isinstance(v, (int, float)) and not isinstance(v, bool)
    if tp in (_NoneType, None):
        return v is None
    return False


def _key_path(path: str, key: str) -> str:
    if key.isidentifier() and not keyword.iskeyword(key):
        return f"{path}.{key}"
    return f"{path}[{fmt_value(key)}]"


class Walker:
    """Collects issues for one value; ``walk()`` is the entry point."""

    __slots__ = ("out",)

    def __init__(self) -> None:
        self.out: list[SchemaIssue] = []

    def add(self, kind: str, path: str, message: str) -> None:
        self.out.append(SchemaIssue(kind, path, message))  # type: ignore[arg-type]

    def check(self, v: Any, tp: Any, path: str, name: str) -> None:
        if tp is Any or tp is msgspec.Raw:
            return
        origin = get_origin(tp)
        if origin in (Union, types.UnionType):
            self.union(v, _members(tp), path, name)
        elif origin is Literal:
            if not any(_same(v, x) for x in get_args(tp)):
                self.add("bad_enum", path, f"invalid value {fmt_value(v)} for {name} (expected {describe(tp)})")
        elif _struct_class(tp):
            self.struct(v, tp, path, name)
        elif origin is list or tp is list:
            if not isinstance(v, list):
                self.add("wrong_type", path, f"expected array for {name}, got {json_type(v)}")
                return
            item = get_args(tp)[0] if get_args(tp) else Any
            if item is not Any:
                for i, x in enumerate(v):
                    self.check(x, item, f"{path}[{i}]", f"{name}[{i}]")
        elif origin is dict or tp is dict:
            if not isinstance(v, dict):
                self.add("wrong_type", path, f"expected object for {name}, got {json_type(v)}")
                return
            value_tp = get_args(tp)[1] if get_args(tp) else Any
            if value_tp is not Any:
                for k, x in v.items():
                    self.check(x, value_tp, _key_path(path, k), str(k))
        elif not _prim_ok(v, tp):
            self.add("wrong_type", path, f"expected {describe(tp)} for {name}, got {json_type(v)}")

    def union(self, v: Any, members: tuple[Any, ...], path: str, name: str) -> None:
        if any(m is Any for m in members):
            return
        lits = [x for m in members if get_origin(m) is Literal for x in get_args(m)]
        if any(_same(v, x) for x in lits):
            return
        if isinstance(v, dict):
            structs = [m for m in members if _struct_class(m)]
            dicts = [m for m in members if get_origin(m) is dict or m is dict]
            tagged = {_info(s).tag: s for s in structs if _info(s).tag_field}
            if tagged:
                tf = _info(next(iter(tagged.values()))).tag_field
                tag = v.get(tf, UNSET)
                if isinstance(tag, str) and tag in tagged:
                    return self.struct(v, tagged[tag], path, name)
                if tag is UNSET:
                    return self.add("missing_field", _key_path(path, tf), f"missing required field '{tf}'")  # type: ignore[arg-type]
                expected = " | ".join(fmt_value(t) for t in tagged)
                return self.add("bad_enum", _key_path(path, tf),  # type: ignore[arg-type]
                                f"invalid value {fmt_value(tag)} for {tf} (expected {expected})")
            if structs or dicts:
                return self.check(v, (structs or dicts)[0], path, name)
        elif isinstance(v, list):
            lists = [m for m in members if get_origin(m) is list or m is list]
            if lists:
                return self.check(v, lists[0], path, name)
        elif any(_prim_ok(v, m) for m in members):
            return
        if lits and all(get_origin(m) is Literal or m in (_NoneType, None) for m in members):
            expected = " | ".join(fmt_value(x) for x in lits)
            return self.add("bad_enum", path, f"invalid value {fmt_value(v)} for {name} (expected {expected})")
        self.add("wrong_type", path, f"expected {describe(Union[members])} for {name}, got {json_type(v)}")

    def struct(self, v: Any, tp: Any, path: str, name: str) -> None:
        if not isinstance(v, dict):
            self.add("wrong_type", path, f"expected object for {name}, got {json_type(v)}")
            return
        info = _info(tp)
        before = len(self.out)
        if info.tag_field is not None and info.tag_field in v and not _same(v[info.tag_field], info.tag):
            self.add("bad_enum", _key_path(path, info.tag_field),
                     f"invalid value {fmt_value(v[info.tag_field])} for {info.tag_field} "
                     f"(expected {fmt_value(info.tag)})")
            return  # another kind of object: its fields say nothing more
        fields = info.fields
        for k, x in v.items():
            ft = fields.get(k, UNSET)
            if ft is UNSET:
                if k != info.tag_field and info.forbid:
                    self.add("unknown_field", _key_path(path, k), f"unknown field '{k}' in {info.name}")
            else:
                self.check(x, ft, _key_path(path, k), k)
        for k in info.required:
            if k not in v:
                self.add("missing_field", _key_path(path, k),
                         f"missing required field '{k}' ({describe(fields[k])}) in {info.name}")
        if info.check is not None and not any(i.hard for i in self.out[before:]):
            for kind, rel, message in info.check(lambda k: v.get(k, UNSET)):
                self.add(kind, path + rel[1:], message)


def walk(value: Any, tp: Any, path: str = "$", name: str = "frame") -> list[SchemaIssue]:
    """Every issue of ``value`` (decoded JSON) against the msgspec type ``tp``."""
    w = Walker()
    w.check(value, tp, path, name)
    return w.out


__all__ = ["walk", "describe"]
