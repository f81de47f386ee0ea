"""One decode per frame: framing and schema rules, and the fast lane for stream deltas.

Once the dialect is known, each frame's bytes are decoded straight into the dialect's
msgspec Structs (``validate_bytes``): a clean frame costs one typed decode. A clean
``*_delta`` ``message_update`` on the open assistant message (most frames of a
session) is then checked on the Struct alone: its delta is appended to its block.
Everything else is handed on as builtins (dict, other JSON value, or
:class:`~rpcspy.checker.framing.Unparsed`).
"""

from __future__ import annotations

import typing
from collections.abc import Callable
from typing import Any

import msgspec

from rpcspy.checker.findings import Sink
from rpcspy.checker.framing import (
    KIB64,
    LS,
    PS,
    Shallow,
    check_bytes,
    check_separators,
    decode_frame,
    too_deep,
    undecodable,
)
from rpcspy.checker.schema import SchemaChecker
from rpcspy.checker.stream import StreamTracker
from rpcspy.events import Frame
from rpcspy.framing import DECODE_ERRORS
from rpcspy.protocol.vocabulary import DELTA_EVENTS

HANDLED = object()
"""Returned for a frame fully checked on the fast lane."""
UNTRIED = object()
"""For :meth:`FrameDecoder.__call__`: the frame's typed decode is still to be made."""
_E2_80 = b"\xe2\x80"
"""The first two bytes of U+2028 and U+2029 in UTF-8."""
_LS_A2C = ("ls", "a2c")
"""Once reported (framing.line_separator), later separators in agent frames are not looked at."""
_Struct = msgspec.Struct
_decode = msgspec.json.decode


def _tag_of(cls: type) -> Any:
    config = getattr(cls, "__struct_config__", None)
    return config.tag if config is not None and config.tag_field == "type" else None


class FrameDecoder:
    """Turns a frame into what the rules read, reporting framing and schema findings."""

    def __init__(self, sink: Sink, schema: SchemaChecker, stream: StreamTracker) -> None:
        self.sink, self.schema, self.stream = sink, schema, stream
        self.once: set[tuple[str, str]] = set()
        self._update_cls: Any = None
        self._delta_tags: dict[type, str] = {}
        self._dialect: str | None = None
        self._settled: str | None = None
        """The dialect once known and no longer refined (the fast lane's condition)."""
        from rpcspy.protocol.validation import validate_decoded

        self._validate_decoded = validate_decoded
        self._typed: dict[str, Any] = {}  # direction -> the dialect's typed decode
        self.fast_delta, self.fast_value = _fast_lane(None, None, {}, stream, self.once)
        """The hot path alone, for batches (see :func:`_fast_lane`); only while :meth:`lane` gives it."""
        self.union: Any = None
        """The dialect's frames as one type, and the agent's classes in it (``validation.frame_union``)."""
        self.agent_classes: frozenset[type] = frozenset()

    def _learn(self, dialect: str) -> None:
        """The dialect's message_update class and its delta event classes."""
        from rpcspy.protocol import get_protocol

        proto = get_protocol(dialect)
        self._update_cls = proto.message_update
        members = typing.get_args(proto.assistant_message_event) or (proto.assistant_message_event,)
        self._delta_tags = {cls: tag for cls in members if (tag := _tag_of(cls)) in DELTA_EVENTS}
        from rpcspy.protocol.validation import typed_decoder

        self._typed = {d: typed_decoder(d, dialect) for d in ("c2a", "a2c")}
        self.fast_delta, self.fast_value = _fast_lane(self._typed["a2c"], self._update_cls, self._delta_tags,
                                                      self.stream, self.once)
        from rpcspy.protocol.validation import frame_union

        self.union, self.agent_classes = frame_union(dialect)
        self._dialect = dialect

    def __call__(self, frame: Frame, typed: Any = UNTRIED) -> Any:
        """What the rules read of ``frame`` (or HANDLED); ``typed``: what :meth:`fast_delta` answered for it."""
        schema = self.schema
        dialect = schema.dialect
        if dialect is None or schema.traits.jsonrpc:  # undecided (builtins, for the detector), or ACP
            obj = decode_frame(frame, self.sink, self.once)
            if type(obj) is dict:
                schema.feed(frame.t, frame.seq, frame.dir, obj)
            elif type(obj) is Shallow:
                return obj.value
            return obj
        data = frame.data
        if schema.refining and frame.dir == "a2c":
            schema.refine(frame.seq, data)
            dialect = schema.dialect or dialect  # refining only ever replaces a known dialect
        if dialect is not self._dialect:
            self._learn(dialect)
            typed = UNTRIED  # decoded for another dialect
        if not frame.nl or frame.cr or len(data) > KIB64:
            check_bytes(frame, self.sink, self.once)
        if typed is UNTRIED:
            try:
                typed = self._typed[frame.dir](data)
            except msgspec.ValidationError:
                typed = None
            except DECODE_ERRORS:  # not JSON (a ValidationError is caught above)
                return self._not_a_struct(frame)
        value: Any = typed  # a Struct of the dialect's frame classes, or the decoded JSON
        issues: Any = ()
        if type(value) is not self._update_cls:  # a message_update Struct is validate_decoded's clean answer
            value, issues = self._validate_decoded(typed, data, frame.dir, dialect)
            if value is None:  # not JSON, or JSON null
                return self._not_a_struct(frame)
        if type(value) is self._update_cls:  # the hot path: a schema-clean message_update
            pieces = self._open_block(value.assistantMessageEvent)
            if pieces is not None:
                delta = value.assistantMessageEvent.delta
                pieces.append(delta)
                # new text arrives in deltas only (pi 0.73 partials repeat it): scan the short string
                if "\u2028" in delta or "\u2029" in delta:
                    check_separators(frame, self.sink, self.once)
                return HANDLED
        if _E2_80 in data and (LS in data or PS in data):  # one scan for ASCII-only frames
            check_separators(frame, self.sink, self.once)
        if isinstance(value, _Struct):
            return _decode(data)  # the rules read builtins; clean non-delta frames are a minority
        if issues and type(value) is dict:
            schema.report(frame.t, frame.seq, frame.dir, issues)
        return value

    def _open_block(self, ame: Any) -> list[str] | None:
        """The pieces of the open block a delta event ``ame`` extends; None for any other event."""
        delta_type = self._delta_tags.get(type(ame))
        stream = self.stream
        if delta_type is not None and stream.active:
            block = stream.blocks.get(ame.contentIndex)
            if block is not None and block.delta_type == delta_type and not block.closed:
                return block.pieces
        return None

    def lane(self) -> Callable[[Any], Any] | None:
        """:meth:`fast_delta` when it may be used now (the dialect known and settled), else None."""
        schema = self.schema
        dialect = schema.dialect
        if dialect is None or schema.traits.jsonrpc:
            return None
        if self._settled is not dialect:
            if schema.refining:
                return None
            self._settled = dialect  # refining never starts again once over
        if dialect is not self._dialect:
            self._learn(dialect)
        return self.fast_delta

    def _not_a_struct(self, frame: Frame) -> Any:
        data = frame.data
        try:
            value = _decode(data)
        except DECODE_ERRORS as exc:
            if isinstance(exc, RecursionError):
                return too_deep(frame, self.sink, data).value
            obj = undecodable(frame, self.sink, str(exc))  # bad UTF-8 is a UnicodeDecodeError
            if type(obj) is dict:  # invalid UTF-8, repaired as pi does
                self.schema.feed(frame.t, frame.seq, frame.dir, obj)
            return obj.value if type(obj) is Shallow else obj
        check_separators(frame, self.sink, self.once)
        return value


def _fast_lane(typed: Any, update_cls: Any, tags: dict[type, str], stream: StreamTracker,
               once: set[tuple[str, str]]) -> tuple[Callable[[Any], Any], Callable[[Any], Any]]:
    """The hot path alone, for batches, its state bound as locals: ``(fast_delta, fast_value)``.

    ``fast_delta(data)``: ``data`` (bytes or a buffer) is an agent frame with LF, no CR, of at most
    64 KiB. HANDLED when it was a schema-clean delta on the open block, now appended; else what to
    pass to :meth:`FrameDecoder.__call__` with the frame (its typed decode, or UNTRIED), to be
    checked the whole way. ``fast_value(value)``: the same for such a frame already decoded
    (``value`` is its typed decode).
    """

    def fast_delta(data: Any) -> Any:
        try:
            value = typed(data)
        except msgspec.ValidationError:
            return None
        except Exception:  # not JSON (or worse): the whole way reports it
            return UNTRIED
        return fast_value(value)

    def fast_value(value: Any) -> Any:
        if type(value) is not update_cls:
            return value
        try:
            ame = value.assistantMessageEvent
            block = stream.blocks.get(ame.contentIndex)  # :meth:`FrameDecoder._open_block`, inline
            if block is None or block.closed or block.delta_type != tags.get(type(ame)) or not stream.active:
                return value
            delta = ame.delta
            if ("\u2028" in delta or "\u2029" in delta) and _LS_A2C not in once:  # first: the whole way
                return value
        except Exception:  # an event without contentIndex, ...
            return value
        block.pieces.append(delta)
        return HANDLED

    return fast_delta, fast_value
