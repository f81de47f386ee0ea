"""``--where EXPR``: select entries with a JMESPath expression (https://jmespath.org).

The expression is evaluated against the frame's JSON object with a few recording
fields added under names that start with ``_``: ``_dir`` (c2a, a2c, err), ``_seq``,
``_t`` (seconds since the start), ``_kind`` (``frame``; ``start``, ``exit``, ``eof``,
``note``, ``finding`` for the other entries) and ``_text`` (the line, for frames
that are not a JSON object, such as stderr). An entry passes when the result is
truthy in JMESPath's sense: not ``null``, ``false``, ``""``, ``[]`` or ``{}``.

    type == 'prompt'
    _dir == 'a2c' && assistantMessageEvent.type == 'text_delta'
    contains(message || '', 'weather')
    _seq >= `100` && _t < `2.5`

A type error while evaluating (``contains`` on a missing field) makes the entry fail,
not the command. Pure: no I/O.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import jmespath
import msgspec
from jmespath import exceptions as jexc

from rpcspy.events import Eof, Event, Exit, Finding, Frame, Note, SpawnFailed, Start
from rpcspy.framing import DECODE_ERRORS

_KINDS: dict[type, str] = {Start: "start", SpawnFailed: "spawn_failed", Eof: "eof", Exit: "exit", Note: "note", Finding: "finding"}
_decoder = msgspec.json.Decoder()


class WhereError(ValueError):
    """A bad expression; ``position`` is the 0-based column where it goes wrong, when known."""

    def __init__(self, expression: str, reason: str, position: int | None) -> None:
        self.expression, self.reason, self.position = expression, reason, position
        where = f" at column {position + 1}" if position is not None else ""
        caret = f"\n  {expression}\n  {' ' * position}^" if position is not None else ""
        super().__init__(f"bad --where expression{where}: {reason}{caret}")


def truthy(value: Any) -> bool:
    """JMESPath truthiness: ``0`` is true, empty strings, lists and objects are false."""
    return not (value is None or value is False or value == "" or value == [] or value == {})


@dataclasses.dataclass(frozen=True, slots=True)
class Where:
    """A compiled ``--where`` expression."""

    text: str
    _compiled: Any = dataclasses.field(repr=False, compare=False)

    def match_frame(self, frame: Frame) -> bool:
        return self._search(frame_document(frame))

    def match_event(self, event: Event) -> bool:
        return self._search(event_document(event))

    def _search(self, doc: dict[str, Any]) -> bool:
        try:
            return truthy(self._compiled.search(doc))
        except jexc.JMESPathError:  # a type error on this entry's values: it does not pass
            return False


def compile_where(text: str) -> Where:
    """Compile and check an expression; raises :class:`WhereError` with the position."""
    if not text.strip():
        raise WhereError(text, "empty expression", None)
    try:
        compiled = jmespath.compile(text)
    except jexc.LexerError as exc:
        raise WhereError(text, exc.message, exc.lexer_position) from None
    except jexc.ParseError as exc:
        reason = "incomplete expression" if isinstance(exc, jexc.IncompleteExpressionError) else (
            f"unexpected {exc.token_value!r}" if exc.token_value is not None else "invalid syntax")
        raise WhereError(text, reason, exc.lex_position) from None
    try:  # unknown functions and wrong arity are only found by evaluating
        compiled.search({})
    except (jexc.UnknownFunctionError, jexc.ArityError, jexc.VariadictArityError) as exc:
        raise WhereError(text, str(exc), None) from None
    except jexc.JMESPathError:
        pass
    return Where(text, compiled)


def frame_document(frame: Frame) -> dict[str, Any]:
    """What the expression sees for a frame: its JSON object plus the ``_`` fields."""
    try:
        obj = _decoder.decode(frame.data)
    except DECODE_ERRORS:  # not JSON, not UTF-8 (an agent's stray bytes), too deep: the frame's text
        obj = None
    extra = {"_dir": frame.dir, "_seq": frame.seq, "_t": frame.t, "_kind": "frame"}
    if isinstance(obj, dict):
        return {**obj, **extra}
    extra["_text"] = frame.data.decode("utf-8", "replace")
    return extra


def event_document(event: Event) -> dict[str, Any]:
    """What the expression sees for another entry: its fields plus ``_kind``, ``_seq``, ``_t``, ``_dir``."""
    doc = {k: v for k, v in _fields(event).items() if k not in ("seq", "t", "dir")}
    doc.update(_kind=_KINDS.get(type(event), "unknown"), _seq=event.seq, _t=event.t,
               _dir=getattr(event, "dir", None))
    return doc


def _fields(event: Event) -> dict[str, Any]:
    if isinstance(event, msgspec.Struct):
        return msgspec.structs.asdict(event)
    return dataclasses.asdict(event)
