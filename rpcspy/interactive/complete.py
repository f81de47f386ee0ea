"""Completion candidates for the REPL's input (pure; :class:`ReplCompleter` adapts it to prompt-toolkit).

* the first word: command types (and ``/`` meta commands);
* after it: ``name=`` for each field not given yet, and the values of the field
  being filled (enums, booleans), positionally or after ``name=``;
* in raw JSON: command types after ``"type": "``, field names as keys.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from prompt_toolkit.completion import CompleteEvent, Completer, Completion
from prompt_toolkit.document import Document

from rpcspy.interactive.acp import AcpContext
from rpcspy.interactive.schema import CommandSchema, FieldInfo
from rpcspy.interactive.syntax import META_COMMANDS, positional_fields, tokens
from rpcspy.protocol.spec import ACP_V1

_JSON_TYPE_VALUE = re.compile(r'"type"\s*:\s*"([\w-]*)\Z')
_JSON_TYPE = re.compile(r'"type"\s*:\s*"([\w-]+)"')
_JSON_KEY = re.compile(r'[{,]\s*"([\w-]*)\Z')


@dataclass(frozen=True, slots=True)
class Candidate:
    text: str
    start: int
    """Negative offset from the cursor where ``text`` replaces what was typed."""
    meta: str = ""


def _values(info: FieldInfo) -> list[str]:
    if info.kind == "boolean":
        return ["true", "false"]
    return [v if isinstance(v, str) else str(v).lower() for v in info.enum]


def _meta(info: FieldInfo) -> str:
    return f"{'required ' if info.required else ''}{info.type}"


def completions(text: str, schema: CommandSchema) -> list[Candidate]:
    """Candidates for the input ``text`` (everything before the cursor)."""
    stripped = text.lstrip()
    if stripped.startswith("!"):
        stripped = stripped[1:].lstrip()
    if stripped[:1] in ("{", "["):
        return _json(stripped, schema)
    if stripped.startswith("/"):
        if " " in stripped:
            return []
        word = stripped[1:]
        return [Candidate("/" + m, -len(stripped), help_) for m, help_ in META_COMMANDS.items() if m.startswith(word)]
    toks = tokens(stripped)
    ends_with_space = stripped[-1:].isspace() if stripped else False
    if not toks or (len(toks) == 1 and not ends_with_space):
        word = toks[0].text if toks else ""
        return [Candidate(t, -len(word), "command") for t in schema.types() if t.startswith(word)]
    command = toks[0].text
    fields = schema.fields(command)
    if not fields:
        return []
    current = "" if ends_with_space else toks[-1].text
    done = toks[1:] if ends_with_space else toks[1:-1]
    return list(_field_candidates(command, fields, done, current))


def _field_candidates(command: str, fields: list[FieldInfo], done: list[Any], current: str) -> Iterable[Candidate]:
    by_name = {f.name: f for f in fields}
    named = {t.text.partition("=")[0] for t in done if "=" in t.text and t.text.partition("=")[0] in by_name}
    if "=" in current:
        name, _, partial = current.partition("=")
        info = by_name.get(name)
        if info is not None:
            yield from (Candidate(v, -len(partial), info.name) for v in _values(info) if v.startswith(partial))
        return
    positional = [f for f in positional_fields(command, fields) if f.name not in named]
    given = [t for t in done if not ("=" in t.text and t.text.partition("=")[0] in by_name)]
    if given and len(given) >= len(positional) and positional \
            and positional[-1].kind in ("string", "any") and positional[-1].name != "id":
        return  # the last text field takes the rest of the line: nothing more to offer
    named |= {f.name for f in positional[: len(given)]}
    positional = positional[len(given):]
    if positional:
        nxt = positional[0]
        yield from (Candidate(v, -len(current), nxt.name) for v in _values(nxt) if v.startswith(current))
    for f in fields:
        if f.name not in named and f.name.startswith(current):
            yield Candidate(f.name + "=", -len(current), _meta(f))


def _json(text: str, schema: CommandSchema) -> list[Candidate]:
    m = _JSON_TYPE_VALUE.search(text)
    if m:
        word = m.group(1)
        return [Candidate(t, -len(word), "command") for t in schema.types() if t.startswith(word)]
    m = _JSON_KEY.search(text)
    if m:
        word = m.group(1)
        typed = _JSON_TYPE.search(text)
        names = [f.name for f in schema.fields(typed.group(1))] if typed else ["type", "id"]
        present = set(re.findall(r'"([\w-]+)"\s*:', text))
        return [Candidate(n, -len(word), "field") for n in names if n.startswith(word) and n not in present]
    return []


class ReplCompleter(Completer):
    """prompt-toolkit Completer over :func:`completions`; the schema may change (dialect detected)."""

    def __init__(self, schema_of: Callable[[], CommandSchema],
                 acp_of: Callable[[], AcpContext | None] | None = None) -> None:
        self.schema_of = schema_of
        self.acp_of = acp_of or (lambda: None)

    def get_completions(self, document: Document, complete_event: CompleteEvent) -> Iterable[Completion]:
        for c in repl_completions(document.text_before_cursor, self.schema_of(), self.acp_of()):
            yield Completion(c.text, start_position=c.start, display_meta=c.meta)


def repl_completions(text: str, schema: CommandSchema, ctx: AcpContext | None) -> list[Candidate]:
    """:func:`completions`, with ACP's short syntax (:mod:`rpcspy.interactive.acp`) when ``ctx`` is
    given: alone once the session speaks ACP (``schema.dialect``), beside pi's while it is unknown."""
    from rpcspy.interactive import acp

    stripped = text.lstrip()
    stripped = stripped[1:].lstrip() if stripped.startswith("!") else stripped
    if ctx is None or stripped[:1] in ("/", "{", "["):
        return completions(text, schema)
    ours = [Candidate(t, start, meta) for t, start, meta in acp.completions(stripped, ctx)]
    if schema.dialect == ACP_V1:
        return ours
    toks = tokens(stripped)
    theirs = completions(text, schema)
    if len(toks) <= 1 and not stripped[-1:].isspace():  # the first word: both kinds
        seen = {c.text for c in ours}
        return ours + [c for c in theirs if c.text not in seen]
    first = toks[0].text
    return ours if acp.knows(first) and not schema.known(first) else theirs
