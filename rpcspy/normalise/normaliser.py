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

Pure: no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

import msgspec

from rpcspy.framing import DECODE_ERRORS
from rpcspy.normalise.secrets import REDACTED, redact_known, redact_matches, redact_secrets, secret_hint, secret_name
from rpcspy.normalise.volatile import (
    DURATION_KEYS,
    HINT_SPAN,
    HOME_HINTS,
    HOME_RX,
    ID_KEYS,
    INNER,
    ISO_RX,
    MS_RANGE,
    PORT_HINTS,
    PORT_RX,
    S_RANGE,
    SECRET_HINTS,
    SECRET_KEYS,
    SECRET_RX,
    TIME_KEYS,
    TMP_HINTS,
    TMP_RX,
    USAGE_KEYS,
    UUID_RX,
    dash_after_hex4,
    hintless,
    id_like,
    is_id_parent,
    iso_like,
)

_encode = msgspec.json.encode
_decode = msgspec.json.decode

_CACHE_TEXT = 256
"""Strings up to this length have their normalised form remembered."""
_CACHE_FRAME = 512
"""Frames up to this size have their normalised bytes remembered."""
_CACHE_ENTRIES = 20_000
"""Each cache is emptied when it holds this many entries (a few MB at most)."""
_SAME: Any = object()  # a cached frame() result meaning "unchanged"
_PLAIN, _IGNORE, _USAGE, _SECRET, _ID, _BARE_ID, _TIME, _DURATION = range(8)
"""Key kinds: values walked as they are, dropped, numbers zeroed; then the keys whose value is volatile
(a secret or id string, an id string when the object looks like an entity, a time or duration number).
The key sets are disjoint (tests/normalise/test_volatile.py), so one kind per key says it all."""


class NormaliseOptions(msgspec.Struct, frozen=True):
    """What counts as volatile. The same options must be used on both sides of a comparison."""

    usage: bool = False
    """Also zero token usage/cost numbers (``usage``, ``tokens``, ``contextUsage``, ``tokensPerSecond``)."""
    redact: tuple[str, ...] = ()
    """Extra regular expressions whose matches become ``<redacted>``."""
    ignore: tuple[str, ...] = ()
    """Object keys dropped wherever they appear (``diff --ignore``)."""
    compact_partials: bool = False
    """Drop pi 0.73's redundant ``assistantMessageEvent.partial`` copy from ``message_update``."""
    secrets: bool = False
    """Also redact secrets that are not token-shaped (rpcspy.normalise.secrets): fixtures do."""


class Normaliser:
    """Replace volatile values in JSON values, strings and frame bytes."""

    def __init__(self, options: NormaliseOptions | None = None, *, stable: bool,
                 known: tuple[str, ...] = (), found: set[str] | None = None) -> None:
        """``known``: secrets redacted wherever they occur; ``found`` gets each one redacted (fixture's 2 passes)."""
        self.options = options or NormaliseOptions()
        self.stable = stable
        self.known, self.found = known, found
        self._redact = [re.compile(p) for p in self.options.redact]
        self._ignore = frozenset(self.options.ignore)
        self._seen: dict[str, dict[Any, Any]] = {}
        self._texts: dict[str, tuple[str, bool]] = {}  # text() results of short strings
        self._last_long: tuple[str, str, bool] | None = None  # the last long string, its result
        self._clean_long: str | None = None  # the last long string without any hint
        self._frames: dict[bytes, Any] = {}  # frame() results of small frames (_SAME: unchanged)
        self._keys: dict[str, int] = {}  # key -> its kind (_PLAIN, _SECRET...)
        self.changed = False
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

    def text(self, s: str) -> str:
        """Normalise the volatile substrings of one string."""
        got: tuple[str, bool] | None
        if len(s) <= _CACHE_TEXT:
            got = self._texts.get(s)
            if got is None:
                got = self._texts[s] = self._tracked(s)
                if len(self._texts) > _CACHE_ENTRIES:
                    self._texts.clear()
        else:  # a long string often comes twice in a row (pi 0.73: `message` and `partial`)
            last = self._last_long
            if last is None or last[0] != s:
                last = self._last_long = (s, *self._long(s))
            got = (last[1], last[2])
        if got[1]:
            self.changed = True
        return got[0]

    def _long(self, s: str) -> tuple[str, bool]:
        """A long string: one without any hint is unchanged, and one that extends such a string
        (pi 0.73 repeats the whole reply text, a delta longer each frame) is searched only
        where the two differ, so a growing reply costs linear, not quadratic, time."""
        if self._redact or self.known:
            return self._tracked(s)
        clean = self._clean_long
        start = len(clean) - HINT_SPAN if clean is not None and s.startswith(clean) else 0
        if hintless(s[start:] if start > 0 else s) and not (self.options.secrets and secret_hint(s[max(start - 32, 0):])):
            self._clean_long = s
            return s, False
        return self._tracked(s)

    def _tracked(self, s: str) -> tuple[str, bool]:
        """(normalised ``s``, whether that counts as a change), ``changed`` left as it was."""
        before = self.changed
        self.changed = False
        out = self._text(s)
        got = (out, self.changed)
        self.changed = before
        return got

    def _text(self, s: str) -> str:
        for rx in self._redact:
            s2 = redact_matches(rx, s, self.found)
            if s2 != s:
                self.changed = True
                s = s2
        out = s
        if any(hint in out for hint in SECRET_HINTS):
            out = redact_matches(SECRET_RX, out, self.found, last_word=True)  # "Bearer X": X is the secret
        if self.options.secrets:
            out = redact_secrets(out, self.found)
        if self.known:  # after the rules, so a live frame they redact alike matches the fixture's
            out = redact_known(out, self.known)
        if "/" in out and any(hint in out for hint in TMP_HINTS):  # first: a uuid must not end the path match
            out = TMP_RX.sub(self._tmp, out)
        if any(hint in out for hint in HOME_HINTS):  # the author's user name: /home/alice -> /home/user
            out = HOME_RX.sub(self._home, out)
        if "-" in out and dash_after_hex4(out):
            out = UUID_RX.sub(self._uuid, out)
            if "T" in out:
                out = ISO_RX.sub(self._iso, out)
        if "/" in out and any(hint in out for hint in PORT_HINTS):
            out = PORT_RX.sub(self._port, out)
        if out != s:
            self.changed = True
        return out

    def frame(self, data: bytes) -> bytes:
        """Normalise one frame's bytes: JSON is walked, anything else treated as text.

        Returns ``data`` itself (same object) when nothing changed, so untouched
        frames keep their exact bytes. Small frames' results are remembered: the
        answer for given bytes never changes (a stable placeholder, once given, is
        given again), and small frames repeat.
        """
        small = len(data) <= _CACHE_FRAME
        if small and (got := self._frames.get(data)) is not None:
            got, self.json = got
            self.changed = got is not _SAME
            return data if got is _SAME else got
        out = self._frame(data)
        if small:
            if len(self._frames) >= _CACHE_ENTRIES:
                self._frames.clear()
            self._frames[data] = (out if self.changed else _SAME, self.json)
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
    def _placeholder(self, cls: str, original: Any, make) -> Any:
        self.changed = True
        if not self.stable:
            return f"<{cls}>"
        table = self._seen.setdefault(cls, {})
        got = table.get(original)
        if got is None:
            got = table[original] = make(len(table) + 1)
        return got

    def _walk(self, v: Any) -> Any:
        t = type(v)
        if t is str:
            return self.text(v)
        if t is dict:
            return self._dict(v)
        if t is list:
            return [self._walk(x) for x in v]
        return v

    def _dict(self, d: dict) -> dict:
        out: dict = {}
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

    def _special_text(self, kind: int, v: str, parent: dict) -> str:
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

    def _time(self, v: float) -> Any:
        lo, hi = MS_RANGE
        if lo <= v < hi:
            return self._placeholder("time", v, lambda n: type(v)(1_700_000_000_000 + n))
        lo, hi = S_RANGE
        if lo <= v < hi:
            return self._placeholder("time", v, lambda n: type(v)(1_700_000_000 + n))
        return v

    def _duration(self, v: float) -> Any:
        if not self.stable:
            return self._token("n")
        if v != 0:
            self.changed = True
        return type(v)(0)

    def _token(self, cls: str) -> str:
        self.changed = True
        return f"<{cls}>"

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

    def _uuid(self, m: re.Match) -> str:
        s = m.group()
        return self._placeholder("uuid", s.lower(), lambda n: f"00000000-0000-4000-8000-{n:012d}")

    def _iso(self, m: re.Match) -> str:
        s = m.group()
        return self._placeholder("iso", s, lambda n: iso_like(s, n))

    def _port(self, m: re.Match) -> str:
        host, _, port = m.group().rpartition(":")
        return f"{host}:{self._placeholder('port', port, lambda n: str(40000 + n))}"

    def _home(self, m: re.Match) -> str:
        """A home directory: its user name becomes ``user`` (``user2``... for others); tokens: ``<home>``."""
        name = m.group(1)
        if self.stable and (name == "user" or (name.startswith("user") and name[4:].isdigit())):
            return m.group()  # already a placeholder (a fixture normalised again)
        start = m.start(1) - m.start()
        if not self.stable:
            self.changed = True
            return "<home>"
        new = self._placeholder("home", name, lambda n: "user" if n == 1 else f"user{n}")
        return m.group()[:start] + new

    def _tmp(self, m: re.Match) -> str:
        """A temp path with its varying segments (random dir names) replaced, the rest kept.

        Stable: ``/tmp/tmp1/project/a.py``; tokens: ``<tmpdir>/<tmp>/project/a.py`` (the
        root too, as it differs between machines: ``/tmp``, ``/private/var/folders/../T``).
        """
        parts = m.group().split("/")
        # parts[0] is "" (leading slash); find where the temp root ends
        root = 2
        if parts[1] == "private":
            root += 1
        if parts[root - 1] == "var" and len(parts) > root and parts[root] in ("tmp", "folders"):
            root += 1 if parts[root] == "tmp" else 4
        elif parts[root - 1] == "dev":
            root += 1
        for i in range(root, min(root + 3, len(parts))):
            seg = parts[i]
            if INNER.search(seg):
                continue  # a uuid or time, given its own placeholder next: keeps the correlation
            if any(c.isdigit() for c in seg):
                parts[i] = self._placeholder("tmp", seg, lambda n: f"tmp{n}")
        if self.stable:
            return "/".join(parts)
        self.changed = True
        return "/".join(["<tmpdir>", *parts[root:]])


def compact_partial(obj: dict) -> dict | None:
    """``obj`` without ``assistantMessageEvent.partial`` (pi 0.73); ``obj`` itself when there is none."""
    if obj.get("type") != "message_update":
        return obj
    ev = obj.get("assistantMessageEvent")
    if not isinstance(ev, dict) or "partial" not in ev:
        return obj
    return {**obj, "assistantMessageEvent": {k: v for k, v in ev.items() if k != "partial"}}


def options_from(usage: bool = False, redact: Iterable[str] = (), ignore: Iterable[str] = (),
                 compact_partials: bool = False) -> NormaliseOptions:
    """Build options from CLI-ish values, validating the regular expressions."""
    redact = tuple(redact)
    for p in redact:
        re.compile(p)
    return NormaliseOptions(usage=usage, redact=redact, ignore=tuple(ignore), compact_partials=compact_partials)
