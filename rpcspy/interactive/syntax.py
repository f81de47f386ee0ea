"""What the user types, turned into commands to send (pure).

Accepted input::

    prompt Hello there                  short syntax: the command type, then its fields
    set_model anthropic claude-sonnet-4 positional values fill the required fields in order
    prompt streamingBehavior=steer Go   name=value sets any field of the command
    compact                             fields may be left out (validation decides)
    {"type": "get_state"}               raw JSON, over several lines until it is complete
    !prompt                             ``!``: send even if the schema says it is invalid
    !not json at all                    ``!`` + text that is no command: sent verbatim
    /help  /quit  /dialect [NAME]  /raw TEXT  /why

In the short syntax the last positional text field takes the rest of the line as
typed (quotes and all); a line ending in ``\\`` continues on the next line, and
that line break is kept. Values are read by the field's type: ``true``/``on``/``yes``
for booleans, numbers, JSON for arrays and objects (in single quotes if it has
spaces: ``images='[{"type": "image", ...}]'``), text otherwise.
"""

from __future__ import annotations

import difflib
import json
import re
from dataclasses import dataclass, field
from typing import Any, Literal

from rpcspy.interactive.schema import CommandSchema, FieldInfo
from rpcspy.protocol.acp import looks_jsonrpc, numbered
from rpcspy.protocol.vocabulary import ANSWER_TYPES

META_COMMANDS = {
    "help": "show this help",
    "quit": "close the agent's stdin and leave (like Ctrl-D)",
    "exit": "same as /quit",
    "dialect": "show or set the dialect used for completion and validation",
    "raw": "send the rest of the line verbatim (no JSON, no validation)",
    "why": "what the session waits on now, and why (as `rpcspy why`)",
}
HELP = """\
Type a command: its type, then its fields. Positional values fill the required fields in order,
the last text field takes the rest of the line; name=value sets any field.
  prompt Hello there           set_thinking_level high        bash ls -la
  set_model anthropic claude-sonnet-4                          prompt streamingBehavior=steer Go on
  {"type": "get_state"}        raw JSON, over several lines until it closes
  !prompt                      ! sends even what the schema refuses (to test the agent)
Ids are added for you (r1, r2, ...). Tab completes commands, fields and values.
Ctrl-C: clear the line / abort what runs / leave.  Ctrl-D: close the agent's stdin and wait for it.
"""
_TOKEN = re.compile(r"""(?:[^\s"']+|"(?:[^"\\]|\\.)*"?|'[^']*'?)+""")
_NAME = re.compile(r"[A-Za-z_][\w.-]*\Z")
_TRUE = {"true", "yes", "on", "1", "y"}
_FALSE = {"false", "no", "off", "0", "n"}


@dataclass
class Parsed:
    """One input, understood."""

    kind: Literal["empty", "command", "raw", "meta", "error"]
    obj: dict[str, Any] | None = None
    raw: str = ""
    """kind raw: the text to send as it is (one frame per line)."""
    force: bool = False
    error: str = ""
    meta: str = ""
    arg: str = ""


@dataclass
class Token:
    text: str
    start: int

    @property
    def value(self) -> str:
        return unquote(self.text)


def tokens(text: str) -> list[Token]:
    """Whitespace-separated tokens; quoted parts (``"a b"``, ``'a b'``) stay in one token."""
    return [Token(m.group(0), m.start()) for m in _TOKEN.finditer(text)]


def unquote(text: str) -> str:
    """Remove the quotes of quoted parts: ``name="a b"`` -> ``name=a b``."""
    out, i = [], 0
    while i < len(text):
        c = text[i]
        if c == '"':
            m = re.match(r'"((?:[^"\\]|\\.)*)"', text[i:])
            if m:
                try:
                    out.append(json.loads(m.group(0)))
                except ValueError:
                    out.append(m.group(1))
                i += m.end()
                continue
        elif c == "'":
            end = text.find("'", i + 1)
            if end > 0:
                out.append(text[i + 1:end])
                i = end + 1
                continue
        out.append(c)
        i += 1
    return "".join(out)


def incomplete(text: str) -> bool:
    """True while the input needs more lines: open JSON brackets or strings, or a trailing ``\\``."""
    body = text.lstrip()
    body = body[1:].lstrip() if body.startswith("!") else body
    if body[:1] in ("{", "["):
        depth, in_str, esc = 0, False, False
        for c in body:
            if in_str:
                if esc:
                    esc = False
                elif c == "\\":
                    esc = True
                elif c == '"':
                    in_str = False
            elif c == '"':
                in_str = True
            elif c in "{[":
                depth += 1
            elif c in "}]":
                depth -= 1
        return in_str or depth > 0
    return text.endswith("\\") and not text.endswith("\\\\")


def positional_fields(command: str, fields: list[FieldInfo]) -> list[FieldInfo]:
    """The fields bare values fill, in order: the required ones (else the first simple optional one)."""
    skip_id = command not in ANSWER_TYPES
    required = [f for f in fields if f.required and not (skip_id and f.name == "id")]
    if required:
        return required
    simple = [f for f in fields if f.name != "id" and f.kind in ("string", "enum", "boolean", "integer", "number")]
    return simple[:1]


def coerce(value: str, info: FieldInfo | None) -> Any:
    """A typed value for a field from its text (left as text when it does not fit: validation reports it)."""
    kind = info.kind if info is not None else "any"
    low = value.lower()
    if kind == "string":
        return value
    if kind == "boolean":
        return True if low in _TRUE else False if low in _FALSE else value
    if kind == "enum":
        assert info is not None
        for v in info.enum:
            if str(v) == value:
                return v
        return value
    if kind in ("integer", "number"):
        try:
            return int(value)
        except ValueError:
            try:
                return float(value)
            except ValueError:
                return value
    try:  # array, object, any: JSON when it is JSON
        return json.loads(value)
    except ValueError:
        if kind in ("array", "object"):
            raise ValueError(f"not valid JSON for {info.name if info else 'the field'}: {value}") from None
        return value


def parse(text: str, schema: CommandSchema) -> Parsed:
    """Understand one input (possibly several lines)."""
    body = text.strip()
    if not body:
        return Parsed("empty")
    force = body.startswith("!")
    if force:
        body = body[1:].strip()
        if not body:
            return Parsed("error", error="nothing to send after '!'")
    elif body.startswith("/"):
        name, _, arg = body[1:].partition(" ")
        if name not in META_COMMANDS:
            return Parsed("error", error=f"unknown command /{name} (try /help)")
        return Parsed("meta", meta=name, arg=arg.strip())
    if body[:1] in ("{", "[") or (force and _is_json(body)):
        return _parse_json(body, force)
    return _parse_short(body.replace("\\\n", "\n"), schema, force)


def _is_json(text: str) -> bool:
    try:
        json.loads(text)
    except ValueError:
        return False
    return True


def _parse_json(body: str, force: bool) -> Parsed:
    try:
        value = json.loads(body)
    except ValueError as exc:
        if force:
            return Parsed("raw", raw=body, force=True)
        return Parsed("error", error=f"invalid JSON: {exc} (prefix with ! to send the text anyway)")
    if isinstance(value, dict):
        return Parsed("command", obj=value, force=force)
    if force:
        return Parsed("raw", raw=json.dumps(value, ensure_ascii=False), force=True)
    return Parsed("error", error="not a JSON object (prefix with ! to send it anyway)")


def _parse_short(body: str, schema: CommandSchema, force: bool) -> Parsed:
    toks = tokens(body)
    command = toks[0].text
    if not _NAME.match(command):
        if force:
            return Parsed("raw", raw=body, force=True)
        return Parsed("error", error=f"{command!r} is not a command (Tab completes; ! sends any text)")
    types = schema.types()
    if types and not schema.known(command):
        if force:
            return Parsed("raw", raw=body, force=True)
        close = difflib.get_close_matches(command, types, n=3)
        hint = f"; did you mean {', '.join(close)}?" if close else " (Tab lists them)"
        return Parsed("error", error=f"unknown command {command!r}{hint}")
    fields = schema.fields(command)
    by_name = {f.name: f for f in fields}
    positional = positional_fields(command, fields)
    obj: dict[str, Any] = {"type": command}
    i = 1
    try:
        while i < len(toks):
            tok = toks[i]
            name, eq, value = tok.text.partition("=")
            if eq and (name in by_name or (not by_name and _NAME.match(name))):
                obj[name] = coerce(value if value[:1] in ("{", "[") else unquote(value), by_name.get(name))
                positional = [f for f in positional if f.name != name]
                i += 1
                continue
            if not positional:
                return Parsed("error", error=f"unexpected {tok.text!r} after {command}"
                              + (f" (fields: {', '.join(by_name)})" if by_name else ""))
            target = positional.pop(0)
            if not positional and target.kind in ("string", "any") and target.name != "id":
                obj[target.name] = body[tok.start:]  # the rest of the line, as typed
                break
            obj[target.name] = coerce(tok.value, target)
            i += 1
    except ValueError as exc:
        return Parsed("error", error=str(exc))
    return Parsed("command", obj=obj, force=force)


class IdAllocator:
    """Ids for commands that carry none: ``r1``, ``r2``, ..."""

    def __init__(self, prefix: str = "r") -> None:
        self.prefix = prefix
        self.n = 0

    def peek(self) -> str:
        return f"{self.prefix}{self.n + 1}"

    def assign(self, obj: dict[str, Any]) -> dict[str, Any]:
        """``obj`` with an id first, unless it has one or is an answer (which must keep the dialog's).

        A JSON-RPC message (ACP) gets ``"jsonrpc":"2.0"`` and, if it is a request, the id: a
        notification (``session/cancel``) and a response to the agent's request get none."""
        if looks_jsonrpc(obj):
            out = numbered(obj, self.peek())
            if out.get("id") == self.peek() and "id" not in obj:
                self.n += 1
            return out
        if "id" in obj or obj.get("type") in ANSWER_TYPES:
            return obj
        self.n += 1
        return {"id": f"{self.prefix}{self.n}", **obj}

    def wants_id(self, obj: dict[str, Any]) -> bool:
        """Whether :meth:`assign` would give ``obj`` an id."""
        if looks_jsonrpc(obj):
            return "id" not in obj and "id" in numbered(obj, 0)
        return "id" not in obj and obj.get("type") not in ANSWER_TYPES


@dataclass
class Outgoing:
    """A line ready to send, or the reason it is not sent."""

    line: bytes = b""
    obj: dict[str, Any] | None = None
    refused: str = ""
    remarks: list[str] = field(default_factory=list)


def encode(obj: Any) -> bytes:
    """One compact JSON line (LF-terminated), non-ASCII kept as UTF-8."""
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":")).encode("utf-8") + b"\n"


def prepare(parsed: Parsed, schema: CommandSchema, ids: IdAllocator) -> Outgoing:
    """Validate and number a parsed command (``raw`` input passes as it is)."""
    if parsed.kind == "raw":
        text = parsed.raw if parsed.raw.endswith("\n") else parsed.raw + "\n"
        return Outgoing(line=text.encode("utf-8", "surrogateescape"))
    if parsed.kind != "command" or parsed.obj is None:
        return Outgoing(refused=parsed.error or "nothing to send")
    candidate = {"id": ids.peek(), **parsed.obj} if ids.wants_id(parsed.obj) else parsed.obj
    problems = schema.problems(candidate)
    if problems and not parsed.force:
        return Outgoing(refused="; ".join(problems) + "  (prefix with ! to send it anyway)")
    obj = ids.assign(parsed.obj)
    return Outgoing(line=encode(obj), obj=obj, remarks=problems or schema.remarks(obj))
