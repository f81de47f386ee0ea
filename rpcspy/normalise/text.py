"""The volatile substrings of one string, replaced: the text half of :class:`~rpcspy.normalise.normaliser.Normaliser`.

:class:`TextNormaliser` applies the detection rules (:mod:`rpcspy.normalise.volatile`, secrets from
:mod:`rpcspy.normalise.secrets`, the ``--redact`` patterns) to strings, remembers short strings' results
and skips long strings without a hint, and numbers stable placeholders by first appearance (or gives
class tokens). The JSON walk and frame bytes are the subclass's. Pure: no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Hashable
from typing import Any, TypeVar

from rpcspy.normalise.options import NormaliseOptions
from rpcspy.normalise.secrets import redact_known, redact_matches, redact_secrets, secret_hint
from rpcspy.normalise.volatile import (
    HINT_SPAN,
    HOME_HINTS,
    HOME_RX,
    INNER,
    ISO_RX,
    PORT_HINTS,
    PORT_RX,
    SECRET_HINTS,
    SECRET_RX,
    TMP_HINTS,
    TMP_RX,
    UUID_RX,
    dash_after_hex4,
    hintless,
    iso_like,
)

_T = TypeVar("_T")

_CACHE_TEXT = 256
"""Strings up to this length have their normalised form remembered."""
_CACHE_ENTRIES = 20_000
"""Each cache is emptied when it holds this many entries (a few MB at most)."""


class TextNormaliser:
    """Replace volatile substrings in strings; ``changed`` says whether the last call changed anything."""

    def __init__(self, options: NormaliseOptions | None = None, *, stable: bool,
                 known: tuple[str, ...] = (), found: set[str] | None = None) -> None:
        """``known``: secrets redacted wherever they occur; ``found`` gets each one redacted (fixture's 2 passes)."""
        self.options = options or NormaliseOptions()
        self.stable = stable
        self.known, self.found = known, found
        self._redact = [re.compile(p) for p in self.options.redact]
        self._seen: dict[str, dict[Hashable, Any]] = {}  # class -> original -> its placeholder
        self._texts: dict[str, tuple[str, bool]] = {}  # text() results of short strings
        self._last_long: tuple[str, str, bool] | None = None  # the last long string, its result
        self._clean_long: str | None = None  # the last long string without any hint
        self.changed = False

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

    def _placeholder(self, cls: str, original: Hashable, make: Callable[[int], _T]) -> _T | str:
        """The placeholder of ``original`` in class ``cls``: ``make(n)``, numbered by first appearance
        (stable), or the class token."""
        self.changed = True
        if not self.stable:
            return f"<{cls}>"
        table = self._seen.setdefault(cls, {})
        got: _T | None = table.get(original)
        if got is None:
            got = table[original] = make(len(table) + 1)
        return got

    def _token(self, cls: str) -> str:
        self.changed = True
        return f"<{cls}>"

    def _uuid(self, m: re.Match[str]) -> str:
        s = m.group()
        return self._placeholder("uuid", s.lower(), lambda n: f"00000000-0000-4000-8000-{n:012d}")

    def _iso(self, m: re.Match[str]) -> str:
        s = m.group()
        return self._placeholder("iso", s, lambda n: iso_like(s, n))

    def _port(self, m: re.Match[str]) -> str:
        host, _, port = m.group().rpartition(":")
        return f"{host}:{self._placeholder('port', port, lambda n: str(40000 + n))}"

    def _home(self, m: re.Match[str]) -> str:
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

    def _tmp(self, m: re.Match[str]) -> str:
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
