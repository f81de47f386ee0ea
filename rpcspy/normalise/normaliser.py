"""Normalising volatile values, shared by ``fixture``, replay matching and ``diff``.

One set of detection rules, two ways of replacing what they find:

* ``stable=True`` (fixtures): each distinct value becomes a numbered placeholder of
  the same type and shape (a UUID stays a valid UUID, a millisecond timestamp stays
  an integer in the same range, an ISO time keeps its separators), numbered by first
  appearance, so correlations inside a recording survive and re-normalising a
  fixture changes nothing.
* ``stable=False`` (matching, diffing): each value becomes a class token
  (``<uuid>``, ``<time>``, ...), so a live frame and a fixture frame compare equal
  whatever the values were. Fixture placeholders are detected by the same rules,
  so they turn into the same tokens.

Strings are :class:`~rpcspy.normalise.text.TextNormaliser`'s; here JSON values are walked (each key's
kind decides how its value is treated) and frame bytes decoded, with small frames' results remembered.
Pure: no I/O.
"""

from __future__ import annotations

from typing import Any

import msgspec

from rpcspy.framing import DECODE_ERRORS
from rpcspy.normalise.options import NormaliseOptions, compact_partial
from rpcspy.normalise.secrets import REDACTED, secret_name
from rpcspy.normalise.text import TextNormaliser
from rpcspy.normalise.volatile import (
    DURATION_KEYS,
    ID_KEYS,
    MS_RANGE,
    S_RANGE,
    SECRET_KEYS,
    TIME_KEYS,
    USAGE_KEYS,
    UUID_RX,
    id_like,
    is_id_parent,
)

__all__ = ["NormaliseOptions", "Normaliser"]

_encode = msgspec.json.encode
_decode = msgspec.json.decode

_CACHE_FRAME = 512
"""Frames up to this size have their normalised bytes remembered."""
_CACHE_ENTRIES = 20_000
"""The frame cache is emptied when it holds this many entries (a few MB at most)."""
_PLAIN, _IGNORE, _USAGE, _SECRET, _ID, _BARE_ID, _TIME, _DURATION = range(8)
"""Key kinds: values walked as they are, dropped, numbers zeroed; then the keys whose value is volatile
(a secret or id string, an id string when the object looks like an entity, a time or duration number).
The key sets are disjoint (tests/normalise/test_volatile.py), so one kind per key says it all."""


class Normaliser(TextNormaliser):
    """Replace volatile values in JSON values, strings and frame bytes (strings: :class:`TextNormaliser`)."""

    def __init__(self, options: NormaliseOptions | None = None, *, stable: bool,
                 known: tuple[str, ...] = (), found: set[str] | None = None) -> None:
        """``known``: secrets redacted wherever they occur; ``found`` gets each one redacted (fixture's 2 passes)."""
        super().__init__(options, stable=stable, known=known, found=found)
        self._ignore = frozenset(self.options.ignore)
        self._frames: dict[bytes, tuple[bytes | None, bool]] = {}  # frame() results of small frames (None: unchanged)
        self._keys: dict[str, int] = {}  # key -> its kind (_PLAIN, _SECRET...)
        self.json = False
        """The last :meth:`frame` was JSON, decoded: its answer is valid UTF-8 JSON (when changed, msgspec's
        encoding; else its own bytes)."""

    # -- public ------------------------------------------------------------------------
    def value(self, value: Any) -> Any:
        """A normalised copy of a decoded JSON value (the value itself when it is nested too deeply
        to walk: hundreds of levels exhaust Python's stack before msgspec's limit)."""
        try:
            return self._walk(value)
        except RecursionError:
            return value

    def frame(self, data: bytes) -> bytes:
        """Normalise one frame's bytes: JSON is walked, anything else treated as text.

        Returns ``data`` itself (same object) when nothing changed, so untouched
        frames keep their exact bytes. Small frames' results are remembered: the
        answer for given bytes never changes (a stable placeholder, once given, is
        given again), and small frames repeat.
        """
        small = len(data) <= _CACHE_FRAME
        if small and (cached := self._frames.get(data)) is not None:
            got, self.json = cached
            self.changed = got is not None
            return data if got is None else got
        out = self._frame(data)
        if small:
            if len(self._frames) >= _CACHE_ENTRIES:
                self._frames.clear()
            self._frames[data] = (out if self.changed else None, self.json)
        return out

    def _frame(self, data: bytes) -> bytes:
        self.changed = self.json = False
        try:
            obj = _decode(data)
            compacted = False
            if isinstance(obj, dict) and self.options.compact_partials:
                slim = compact_partial(obj)
                compacted = slim is not obj
                obj = slim
            new = self.value(obj)
            self.changed = self.changed or compacted
            encoded = _encode(new) if self.changed else data
            self.json = True
            return encoded
        except DECODE_ERRORS:  # not JSON, or nested too deeply to walk: normalised as text
            self.changed = self.json = False
            try:
                text = data.decode("utf-8")
            except UnicodeDecodeError:
                return data
            out = self.text(text)
            return out.encode("utf-8", "surrogatepass") if self.changed else data

    def key(self, value: Any) -> bytes:
        """A canonical byte key for equality after normalisation (sorted keys)."""
        return _encode(self.value(value), order="sorted")

    # -- internals -----------------------------------------------------------------------
    def _walk(self, v: Any) -> Any:
        t = type(v)
        if t is str:
            return self.text(v)
        if t is dict:
            return self._dict(v)
        if t is list:
            return [self._walk(x) for x in v]
        return v

    def _dict(self, d: dict[str, Any]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        keys = self._keys
        for k, x in d.items():
            kind = keys.get(k)
            if kind is None:
                kind = keys[k] = self._key_kind(k)
            t = type(x)
            if kind == _PLAIN:  # the common case, inline: only strings and containers can change
                if t is str:
                    out[k] = self.text(x)
                elif t is dict:
                    out[k] = self._dict(x)
                elif t is list:
                    out[k] = [self._walk(y) for y in x]
                else:
                    out[k] = x
            elif kind == _IGNORE:
                self.changed = True
            elif kind == _USAGE:
                out[k] = self._zero_numbers(x)
            elif t is str:
                out[k] = self._special_text(kind, x, d)
            elif kind >= _TIME and isinstance(x, (int, float)) and t is not bool:  # _TIME or _DURATION
                out[k] = self._time(x) if kind == _TIME else self._duration(x)
            else:
                out[k] = self._walk(x)
        return out

    def _key_kind(self, k: str) -> int:
        """How a key's values are treated (see :meth:`_dict`); computed once per distinct key."""
        if k in self._ignore:
            return _IGNORE
        if self.options.usage and k in USAGE_KEYS:
            return _USAGE
        if k.lower() in SECRET_KEYS or (self.options.secrets and secret_name(k)):  # DB_PASSWORD, api_secret...
            return _SECRET
        if k in ID_KEYS:
            return _ID
        if k == "id":
            return _BARE_ID
        if k in TIME_KEYS:
            return _TIME
        if k in DURATION_KEYS:
            return _DURATION
        return _PLAIN

    def _special_text(self, kind: int, v: str, parent: dict[str, Any]) -> str:
        """A string under a secret or id key (by ``kind``); other kinds' strings are plain text."""
        if kind == _SECRET:
            if not v:
                return v
            if v != REDACTED:
                self.changed = True
                if self.found is not None:
                    self.found.add(v)
            return REDACTED
        if kind == _ID or (kind == _BARE_ID and is_id_parent(parent)):
            if UUID_RX.fullmatch(v):
                return self.text(v)
            return self._placeholder("id", v, lambda n: id_like(v, n))
        return self.text(v)

    def _time(self, v: float) -> float | str:
        lo, hi = MS_RANGE
        if lo <= v < hi:
            return self._placeholder("time", v, lambda n: type(v)(1_700_000_000_000 + n))
        lo, hi = S_RANGE
        if lo <= v < hi:
            return self._placeholder("time", v, lambda n: type(v)(1_700_000_000 + n))
        return v

    def _duration(self, v: float) -> float | str:
        if not self.stable:
            return self._token("n")
        if v != 0:
            self.changed = True
        return type(v)(0)

    def _zero_numbers(self, v: Any) -> Any:
        if isinstance(v, dict):
            return {k: self._zero_numbers(x) for k, x in v.items() if k not in self._ignore}
        if isinstance(v, list):
            return [self._zero_numbers(x) for x in v]
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            if self.stable:
                if v != 0:
                    self.changed = True
                return type(v)(0)
            return self._token("n")
        return self._walk(v)
