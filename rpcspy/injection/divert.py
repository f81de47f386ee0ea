"""Which of the agent's lines answer an injection, decided from each line's head over chunks split anywhere.

An answer to an injected command must not reach the client, which never asked for it. A line is
*diverted* when it is a response (``"type":"response"``, or JSON-RPC's: ``jsonrpc`` with
``result`` or ``error`` and no ``method``) whose ``id`` is an injected one (a prefix
asked for with :meth:`Diverter.divert`, then decimal digits: :func:`rpcspy.injection.ledger.injected_id`).
The decision reads the line's first :data:`DIVERT_WINDOW` bytes only, so it is the same however the
stream is cut into chunks, and at most that much of a line is held back from the client:

* a line that ends within the window is decoded: diverted only if the object itself is such a
  response (an injected-looking id nested in a client's response does not count);
* a longer line is diverted when both markers (JSON whitespace allowed around the colon) appear in
  its window; a response whose id comes after the window reaches the client;
* a line cut off by the end of the stream before a decision goes to the client (:meth:`Diverter.finish`).

Lines end at LF only (a CR before it belongs to the line, as the agents frame it).
"""

from __future__ import annotations

import json
import re
from typing import Literal

from rpcspy.framing import DECODE_ERRORS
from rpcspy.protocol.vocabulary import RESPONSE_TYPE

DIVERT_WINDOW = 4096
"""How many bytes of a line are held, at most, to decide whether it answers an injection."""

Route = Literal["pass", "divert"]
PASS: Route = "pass"
"""To the client (and recorded as the agent's)."""
DIVERT: Route = "divert"
"""Kept from the client, recorded as injected (the control server answers its injector)."""

_WS = rb"[ \t\r\n]*"
"""JSON's whitespace."""
_RESPONSE_NAME = b'"' + RESPONSE_TYPE.encode() + b'"'
"""A substring every response's head holds: most lines are passed on this test alone."""
_RESPONSE = re.compile(rb'"type"' + _WS + b":" + _WS + b'"' + re.escape(RESPONSE_TYPE.encode()) + rb'"')
_RPC_NAME = b'"jsonrpc"'
"""JSON-RPC 2.0 (ACP): a response says ``jsonrpc`` and carries ``result`` or ``error``, and no ``method``."""
_RPC_ANSWER = re.compile(rb'"(?:result|error)"' + _WS + b":")
_RPC_METHOD = re.compile(rb'"method"' + _WS + b":")


class InjectedIds:
    """The id rule: an id prefix followed by decimal digits, as a marker in bytes and as a value."""

    __slots__ = ("prefixes", "marker", "value")

    def __init__(self, prefixes: tuple[bytes, ...]) -> None:
        self.prefixes = prefixes
        alternatives = b"|".join(re.escape(p) for p in prefixes)
        self.marker = re.compile(rb'"id"' + _WS + b":" + _WS + b'"(?:' + alternatives + rb')[0-9]+"')
        self.value = re.compile(rb"(?:" + alternatives + rb")[0-9]+")

    def matches(self, rid: object) -> bool:
        """Whether a decoded ``id`` is an injected one."""
        return type(rid) is str and self.value.fullmatch(rid.encode("utf-8", "surrogatepass")) is not None


def classify(head: bytes, ids: InjectedIds, window: int = DIVERT_WINDOW) -> Route | None:
    """Route a line from its first bytes; None while more are needed.

    ``head`` is the line so far, from its first byte, with its LF if that has arrived.
    """
    nl = head.find(b"\n", 0, window)
    if nl < 0 and len(head) < window:
        return None  # neither the whole line nor the whole window yet
    w = head[:window]
    if _RESPONSE_NAME in w and _RESPONSE.search(w) is not None:
        if ids.marker.search(w) is None:
            return PASS
    elif _RPC_NAME in w:
        marker, answer = ids.marker.search(w), _RPC_ANSWER.search(w)
        if marker is None or answer is None:
            return PASS
        method = _RPC_METHOD.search(w)
        if method is not None and method.start() < max(marker.start(), answer.start()):
            return PASS  # a request (its method comes first); a `method` nested in a long result does not count
    else:
        return PASS
    if nl < 0:
        return DIVERT  # longer than the window: the markers are all there is to go by
    return DIVERT if _answers_injection(w[:nl], ids) else PASS


def _answers_injection(line: bytes, ids: InjectedIds) -> bool:
    try:
        obj = json.loads(line.decode("utf-8", "replace"))  # a stray invalid byte does not make it the client's
    except DECODE_ERRORS:
        return False
    if not isinstance(obj, dict) or not ids.matches(obj.get("id")):
        return False
    if obj.get("type") == RESPONSE_TYPE:
        return True
    return "jsonrpc" in obj and "method" not in obj and ("result" in obj or "error" in obj)


class Diverter:
    """Routes the agent's output line by line (bytes in, routed pieces out; no I/O).

    Until a prefix is asked for, every chunk passes whole. :attr:`at_line_start` says whether the
    bytes seen so far ended a line. A prefix may be asked for from any thread at any moment, so the
    position must be right before every :meth:`feed`, not only once a prefix is known: bytes that
    reach the client without passing here are told with :meth:`went_around` before the next feed.
    """

    def __init__(self, window: int = DIVERT_WINDOW) -> None:
        self.window = window
        self.ids: InjectedIds | None = None
        self.at_line_start = True
        self._route: Route | None = PASS  # of the current line; None while undecided
        self._held = b""  # the undecided line's bytes so far

    def divert(self, prefix: bytes) -> None:
        """From the next line on, divert responses whose id is ``prefix`` and digits (any thread)."""
        old = self.ids.prefixes if self.ids is not None else ()
        if prefix not in old:
            self.ids = InjectedIds((*old, prefix))

    def went_around(self, ended_line: bool) -> None:
        """Bytes went to the client without passing here (the pump's zero-copy path); ``ended_line``:
        whether they ended a line. Only between lines of the client's: an undecided line's held bytes
        would otherwise be overtaken."""
        if self._held:
            raise ValueError("bytes went around an undecided line")
        self.at_line_start = ended_line
        if not ended_line:
            self._route = PASS  # the rest of a line begun elsewhere: the client's, whatever it holds

    def feed(self, chunk: bytes) -> list[tuple[Route, bytes]]:
        """The chunk's bytes that are decided, in order, with their route (adjacent pieces of one
        route joined); bytes of an undecided line are held for the next call."""
        ids = self.ids
        if ids is None:
            if chunk:
                self.at_line_start = chunk.endswith(b"\n")
            return [(PASS, chunk)]
        out: list[tuple[Route, list[bytes]]] = []
        pos, size = 0, len(chunk)
        while pos < size:
            nl = chunk.find(b"\n", pos)
            end = nl + 1 if nl >= 0 else size
            piece = chunk[pos:end] if (pos or end < size) else chunk
            pos = end
            if self.at_line_start:
                self._route, self.at_line_start = None, False
            route = self._route
            if route is None:
                head = self._held + piece if self._held else piece
                route = classify(head, ids, self.window)
                if route is None:
                    self._held = head
                    continue
                self._route, piece, self._held = route, head, b""
            if out and out[-1][0] == route:
                out[-1][1].append(piece)
            else:
                out.append((route, [piece]))
            if nl >= 0:
                self.at_line_start = True
        return [(route, pieces[0] if len(pieces) == 1 else b"".join(pieces)) for route, pieces in out]

    def finish(self) -> bytes:
        """At the end of the stream: the held bytes of a line cut off before a decision (the client's)."""
        held, self._held = self._held, b""
        return held
