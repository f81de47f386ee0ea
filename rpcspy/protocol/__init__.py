"""Typed msgspec schemas of the pi / omp RPC protocol, per dialect, and their validation.

Dialects: ``pi-0.73`` (full ``message`` + ``partial`` in message_update), ``pi-0.84`` (pi >= 0.84:
delta-only message_update, agent_settled, system messages, ...), ``pi-feb2026`` (the Feb-2026
doc: image ``source`` form, auto_compaction_* events) and ``omp`` (oh-my-pi).

Public API::

    validate(obj, direction, dialect) -> list[SchemaIssue]        # a decoded frame
    validate_bytes(data, direction, dialect) -> (value, issues)    # raw bytes, decoded into Structs
    validate_response_data(command, data, dialect) -> list[SchemaIssue]
    DialectDetector().feed(obj, direction) -> dialect | None
    json_schema(dialect, direction=None) -> dict
    command_types(dialect) -> list[str];  command_fields(dialect, command) -> dict
"""

from rpcspy.protocol.detect import DialectDetector
from rpcspy.protocol.dialects import DESCRIPTIONS, DIALECTS, get_protocol
from rpcspy.protocol.issues import HARD_KINDS, IssueKind, SchemaIssue
from rpcspy.protocol.schema import command_fields, command_types, json_schema
from rpcspy.protocol.ui import ANSWER_FIELDS, DIALOG_METHODS, FIRE_AND_FORGET_METHODS
from rpcspy.protocol.validate import frame_type, validate, validate_bytes, validate_response_data

__all__ = [
    "DIALECTS", "DESCRIPTIONS", "SchemaIssue", "IssueKind", "HARD_KINDS",
    "validate", "validate_bytes", "validate_response_data", "frame_type",
    "DialectDetector", "json_schema", "command_types", "command_fields", "get_protocol",
    "DIALOG_METHODS", "FIRE_AND_FORGET_METHODS", "ANSWER_FIELDS",
]
