"""Typed msgspec schemas of the pi / omp RPC protocol, per dialect, and their validation.

Dialects: ``pi-0.73`` (full ``message`` + ``partial`` in message_update), ``pi-0.84`` (pi >= 0.84:
delta-only message_update, agent_settled, system messages, ...), ``pi-0.99`` (pi >= 0.99:
dispositions, agent_settled.aborted, durations), ``pi-feb2026`` (the Feb-2026 doc: image ``source``
form, auto_compaction_* events) and ``omp`` (oh-my-pi). docs/dialects.md says how to add one.

Public API::

    validate(obj, direction, dialect) -> list[SchemaIssue]        # a decoded frame
    validate_bytes(data, direction, dialect) -> (value, issues)    # raw bytes, decoded into Structs
    validate_response_data(command, data, dialect) -> list[SchemaIssue]
    DialectDetector().feed(obj, direction) -> dialect | None
    json_schema(dialect, direction=None) -> dict
    command_types(dialect) -> list[str];  command_fields(dialect, command) -> dict

The names are imported on first use (PEP 562), so ``rpcspy.protocol.vocabulary`` (frame-type sets
the proxy needs at start) does not pull in the schemas.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # what __getattr__ hands out, for the type checker
    from rpcspy.protocol.detect import DialectDetector
    from rpcspy.protocol.dialects import get_protocol
    from rpcspy.protocol.issues import HARD_KINDS, IssueKind, SchemaIssue
    from rpcspy.protocol.schema import command_fields, command_types, json_schema
    from rpcspy.protocol.spec import DESCRIPTIONS, DIALECTS
    from rpcspy.protocol.ui import ANSWER_FIELDS
    from rpcspy.protocol.validation import frame_type, validate, validate_bytes, validate_response_data
    from rpcspy.protocol.vocabulary import DIALOG_METHODS, FIRE_AND_FORGET_METHODS

_HOMES = {
    "DialectDetector": "detect",
    "DESCRIPTIONS": "spec", "DIALECTS": "spec", "get_protocol": "dialects",
    "HARD_KINDS": "issues", "IssueKind": "issues", "SchemaIssue": "issues",
    "command_fields": "schema", "command_types": "schema", "json_schema": "schema",
    "ANSWER_FIELDS": "ui",
    "DIALOG_METHODS": "vocabulary", "FIRE_AND_FORGET_METHODS": "vocabulary",
    "frame_type": "validation", "validate": "validation", "validate_bytes": "validation",
    "validate_response_data": "validation",
}

__all__ = [
    "DIALECTS", "DESCRIPTIONS", "SchemaIssue", "IssueKind", "HARD_KINDS",
    "validate", "validate_bytes", "validate_response_data", "frame_type",
    "DialectDetector", "json_schema", "command_types", "command_fields", "get_protocol",
    "DIALOG_METHODS", "FIRE_AND_FORGET_METHODS", "ANSWER_FIELDS",
]


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'rpcspy.protocol' has no attribute {name!r}")
    module = importlib.import_module(f"rpcspy.protocol.{home}")
    # Bind every name this home gives, at once (tests/protocol/test_vocabulary.py also keeps the
    # names apart from the submodules' names, which importing a submodule binds on the package).
    for other, other_home in _HOMES.items():
        if other_home == home:
            globals()[other] = getattr(module, other)
    return globals()[name]


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
