"""Schema issues: what validation reports, and how msgspec errors map onto them."""

import json
import re
from dataclasses import dataclass
from typing import Any, Literal

IssueKind = Literal["unknown_type", "missing_field", "wrong_type", "bad_enum", "unknown_field", "invalid"]

HARD_KINDS = frozenset({"unknown_type", "missing_field", "wrong_type", "bad_enum", "invalid"})
"""Every kind except ``unknown_field`` (agents add fields; that is never fatal)."""


@dataclass(frozen=True, slots=True)
class SchemaIssue:
    """One way a frame departs from its dialect's schema."""

    kind: IssueKind
    path: str
    """JSON path like ``$.data.model`` or ``$.steeringMode``."""
    message: str
    """A human sentence, e.g. "invalid value 'bogus' for steeringMode (expected 'all' | 'one-at-a-time')"."""

    @property
    def hard(self) -> bool:
        """True for every kind except ``unknown_field``."""
        return self.kind != "unknown_field"

    def under(self, prefix: str) -> "SchemaIssue":
        """The same issue with its path moved under ``prefix`` (``$.x`` -> ``$.data.x``)."""
        return SchemaIssue(self.kind, prefix + self.path[1:], self.message)


def fmt_value(v: Any) -> str:
    """A value as it appears in messages: strings in single quotes, the rest as JSON (max 60 chars)."""
    if isinstance(v, str):
        text = repr(v) if "'" not in v else json.dumps(v, ensure_ascii=False)
    else:
        try:
            text = json.dumps(v, ensure_ascii=False)
        except (TypeError, ValueError):
            text = repr(v)
    return text if len(text) <= 60 else text[:57] + "..."


def json_type(v: Any) -> str:
    """The JSON type name of a decoded value."""
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "boolean"
    if isinstance(v, int):
        return "integer"
    if isinstance(v, float):
        return "number"
    if isinstance(v, str):
        return "string"
    if isinstance(v, (list, tuple)):
        return "array"
    if isinstance(v, dict):
        return "object"
    return type(v).__name__


_ERR = re.compile(r"^(?P<msg>.*?)(?: - at `(?P<path>[^`]*)`)?$", re.S)
_MSGSPEC_TYPES = {"str": "string", "int": "integer", "float": "number", "bool": "boolean",
                  "array": "array", "object": "object", "null": "null"}


def _field_name(path: str) -> str:
    tail = re.split(r"\.|(?=\[)", path)[-1]
    return tail if tail and tail != "$" else "frame"


def from_msgspec_error(message: str, prefix: str = "$") -> SchemaIssue:
    """Map a msgspec ``ValidationError`` message to an issue (used when the walker finds none).

    ``Expected `str`, got `int` - at `$.x``` -> wrong_type at ``$.x``;
    ``Invalid enum value 'bogus' - at `$.y``` -> bad_enum; ``Object missing required field `x```
    -> missing_field; ``Object contains unknown field `k``` -> unknown_field; else invalid.
    """
    mo = _ERR.match(message)
    msg, path = (mo["msg"], mo["path"] or "$") if mo else (message, "$")
    path = prefix + path[1:]
    if m := re.match(r"Object missing required field `([^`]*)`", msg):
        return SchemaIssue("missing_field", f"{path}.{m[1]}", f"missing required field '{m[1]}'")
    if m := re.match(r"Object contains unknown field `([^`]*)`", msg):
        return SchemaIssue("unknown_field", f"{path}.{m[1]}", f"unknown field '{m[1]}'")
    if m := re.match(r"Expected `([^`]*)`, got `([^`]*)`", msg):
        want = " | ".join(_MSGSPEC_TYPES.get(t.strip(), t.strip()) for t in m[1].split("|"))
        got = _MSGSPEC_TYPES.get(m[2], m[2])
        return SchemaIssue("wrong_type", path, f"expected {want} for {_field_name(path)}, got {got}")
    if m := re.match(r"Invalid (?:enum )?value (.*)", msg):
        return SchemaIssue("bad_enum", path, f"invalid value {m[1]} for {_field_name(path)}")
    return SchemaIssue("invalid", path, msg)
