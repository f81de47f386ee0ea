"""Secrets that are not token-shaped, in free text: what ``fixture`` redacts beyond API-key shapes.

Two sources, applied to every string of a frame (tool output such as ``env`` is free text):

* key=value rules of our own: a value after a name such as ``PASSWORD``, ``DB_PASSWORD``,
  ``client_secret``, ``GITHUB_TOKEN``, ``API_KEY``, ``aws_secret_access_key`` or Azure's
  ``AccountKey``/``SharedAccessKey``, in the forms ``NAME=value``, ``NAME: value``,
  ``"NAME": "value"``, ``export NAME='value'``; the credentials of an ``Authorization:``
  header (``Basic``, ``Bearer``, ``Digest``, ``Token``); a ``.netrc`` ``password``; a password
  said in prose (``my password is Hunter2-x``, ``password for prod: Xy7...``: a value with a
  digit, a capital or a symbol, or of 12 characters or more); and the body of PEM private keys;
* the regex plugins of detect-secrets (Yelp's maintained scanner: AWS secret and access
  keys, JWTs, credentials in URLs, GitHub, GitLab, Slack, Stripe, npm, PyPI, SendGrid,
  Twilio, Azure, IBM and other service tokens). Its entropy plugins are left out: they
  look only inside quoted strings of source code and would flag every commit hash; its
  keyword plugin is covered by the key=value rules, which also read unquoted values.

detect-secrets is imported on first need (it costs a fraction of a second), only when a
cheap hint says a string may hold something it recognises. Pure: no I/O.
"""

from __future__ import annotations

import functools
import re
from typing import Any

REDACTED = "<redacted>"

_NAME = (r"[A-Za-z0-9_.-]*?(?:passw(?:or)?d|passphrase|pwd|secret|token|api[_-]?key|apikey|access[_-]?key"
         r"|account[_-]?key|private[_-]?key|credentials?|auth[_-]?key|(?<![A-Za-z])key)(?![A-Za-z])[A-Za-z0-9_.-]*")
_KEY_VALUE = re.compile(
    r"(?i)(?P<name>[\"']?\b" + _NAME + r"[\"']?)(?P<sep>\s*[:=]\s*)"
    r"(?:\"(?P<dq>[^\"\n]*)\"|'(?P<sq>[^'\n]*)'|(?P<bare>[^\s\"',;&}\]]+))")
_KEY_HINT = re.compile(r"(?i)pass|pwd|secret|token|key|credential|authorization")
_AUTH_HEADER = re.compile(r"(?i)\b((?:proxy-)?authorization[\"']?\s*[:=]\s*[\"']?(?:basic|bearer|digest|token|negotiate)\s+)"
                          r"([^\s\"',;]+(?:[ \t]*,[ \t]*[a-z]+=\"?[^\s\"',]*\"?)*)")
_NETRC = re.compile(r"(?im)((?:^[ \t]*|\bmachine[ \t]+\S+[ \t]+(?:login[ \t]+\S+[ \t]+)?|\blogin[ \t]+\S+[ \t]+)"
                    r"password[ \t]+)([^\s;,'\"]+)")
_PROSE = re.compile(r"(?i)\b((?:my|the|your|our|its|a|admin|root|user|db|database|account|login|wifi|new|old)[ \t]+"
                    r"(?:password|passwd|passphrase|pin|pw)(?:[ \t]+(?:for|of|to|on)[ \t]+[^\s:]{1,40})?"
                    r"(?:[ \t]+(?:is|was|will be|=)[ \t]+|[ \t]*:[ \t]*)[\"'`]?)([^\s\"'`]+?)(?=[\"'`]?(?:[.,;!?)]*(?:\s|$)))")
_PEM = re.compile(r"(-----BEGIN [A-Z ]*PRIVATE KEY-----)(.*?)(-----END [A-Z ]*PRIVATE KEY-----)", re.S)
_JWT = re.compile(r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*")
_NAME_ONLY = re.compile(r"(?i)^" + _NAME + r"$")
_PLUGIN_HINT = re.compile(r"[A-Za-z0-9+/_=.-]{20,}|://[^\s/@]+:[^\s/@]+@")
_NOT_SECRET = frozenset({REDACTED, "", "null", "none", "true", "false", "undefined", "***", "xxx"})

_plugins: list[Any] | None = None
_PLUGIN_NAMES = (
    ("aws", "AWSKeyDetector"), ("artifactory", "ArtifactoryDetector"), ("azure_storage_key", "AzureStorageKeyDetector"),
    ("basic_auth", "BasicAuthDetector"), ("cloudant", "CloudantDetector"), ("discord", "DiscordBotTokenDetector"),
    ("github_token", "GitHubTokenDetector"), ("gitlab_token", "GitLabTokenDetector"),
    ("ibm_cloud_iam", "IbmCloudIamDetector"), ("ibm_cos_hmac", "IbmCosHmacDetector"), ("jwt", "JwtTokenDetector"),
    ("mailchimp", "MailchimpDetector"), ("npm", "NpmDetector"), ("openai", "OpenAIDetector"),
    ("pypi_token", "PypiTokenDetector"), ("sendgrid", "SendGridDetector"), ("slack", "SlackDetector"),
    ("softlayer", "SoftlayerDetector"), ("square_oauth", "SquareOAuthDetector"), ("stripe", "StripeDetector"),
    ("telegram_token", "TelegramBotTokenDetector"), ("twilio", "TwilioKeyDetector"),
)


def secret_name(key: str) -> bool:
    """A JSON key or variable name whose value is a secret (``DB_PASSWORD``, ``apiKey``, ``token``)."""
    return bool(_NAME_ONLY.match(key))


def redact_secrets(text: str, found: set[str] | None = None) -> str:
    """``text`` with every secret value found replaced by ``<redacted>`` (idempotent).

    ``found``, when given, receives the secret values themselves: ``fixture`` collects them in a
    first pass and redacts every other occurrence of each in its second (:func:`redact_known`).
    """
    if len(text) < 8:
        return text
    out, values = _redact_cached(text) if len(text) <= _CACHED_MAX else _redact(text)
    if found is not None:
        found.update(values)
    return out


def secret_hint(text: str) -> bool:
    """Whether :func:`redact_secrets` may find something in ``text`` (a cheap test for long strings)."""
    return bool(_KEY_HINT.search(text) or _PROSE_HINT.search(text) or "eyJ" in text or _PLUGIN_HINT.search(text))


def redact_matches(rx: re.Pattern[str], text: str, found: set[str] | None, *, last_word: bool = False) -> str:
    """``rx``'s matches in ``text`` replaced by ``<redacted>``; each (or its last word) added to ``found``."""
    if found is None:
        return rx.sub(REDACTED, text)

    def one(m: re.Match[str]) -> str:
        found.add(m.group().split()[-1] if last_word and m.group().split() else m.group())
        return REDACTED

    return rx.sub(one, text)


def redact_known(text: str, known: tuple[str, ...]) -> str:
    """``text`` with every occurrence of a known secret value (longest first) replaced by ``<redacted>``."""
    for value in known:
        if value in text:
            text = text.replace(value, REDACTED)
    return text


def known_order(values: set[str]) -> tuple[str, ...]:
    """Collected secret values worth redacting everywhere (6 characters or more), longest first."""
    return tuple(sorted((v for v in values if len(v) >= KNOWN_MIN and v.lower() not in _NOT_SECRET),
                        key=lambda v: (-len(v), v)))


KNOWN_MIN = 6
"""A shorter value is not redacted wherever it appears (it would hit ordinary words and numbers)."""
_CACHED_MAX = 64 << 10


@functools.lru_cache(maxsize=2048)
def _redact_cached(text: str) -> tuple[str, tuple[str, ...]]:
    """Strings up to 64 KiB, cached: pi 0.73 repeats each message in ``message`` and ``partial``."""
    return _redact(text)


def _redact(text: str) -> tuple[str, tuple[str, ...]]:
    found: list[str] = []

    def keep(m: re.Match[str]) -> str:
        value = m.group(2)
        if value == REDACTED or value.startswith(("<", "$")) or value.lower() in _NOT_SECRET:
            return m.group(0)
        found.append(value)
        return m.group(1) + REDACTED

    if _KEY_HINT.search(text):
        text = _KEY_VALUE.sub(lambda m: _key_value(m, found), text)
        if "uthorization" in text or "UTHORIZATION" in text:
            text = _AUTH_HEADER.sub(keep, text)
        if "PRIVATE KEY-----" in text:
            text = _PEM.sub(lambda m: m.group(1) + REDACTED + m.group(3), text)
    if "assw" in text or "ASSW" in text:
        text = _NETRC.sub(keep, text)
    if _PROSE_HINT.search(text):
        text = _PROSE.sub(lambda m: keep(m) if _looks_secret(m.group(2)) else m.group(0), text)
    if "eyJ" in text:  # a whole JWT, signature included (detect-secrets stops before it)
        for m in _JWT.finditer(text):
            found.append(m.group())
        text = _JWT.sub(REDACTED, text)
    if _PLUGIN_HINT.search(text):
        for secret in _plugin_secrets(text):
            found.append(secret)
            text = text.replace(secret, REDACTED)
    return text, tuple(found)


_PROSE_HINT = re.compile(r"(?i)pass|\bpw\b|\bpin\b")


def _looks_secret(value: str) -> bool:
    """A word said to be a password that looks like one (not ``is required`` or ``is wrong``)."""
    return len(value) >= 12 or any(not c.islower() for c in value)


def _key_value(m: re.Match[str], found: list[str]) -> str:
    for group in ("dq", "sq", "bare"):
        value = m.group(group)
        if value is not None:
            break
    if value.lower() in _NOT_SECRET or value.isdigit() or len(value) < 3 or value.startswith(("<", "$")):
        return m.group(0)  # a placeholder, a number (max_tokens=4096), a reference ($TOKEN): no secret
    found.append(value)
    start, end = m.span(group)
    base = m.start()
    whole = m.group(0)
    return whole[:start - base] + REDACTED + whole[end - base:]


def _plugin_secrets(text: str) -> set[str]:
    global _plugins
    if _plugins is None:
        import importlib

        _plugins = [getattr(importlib.import_module(f"detect_secrets.plugins.{mod}"), cls)()
                    for mod, cls in _PLUGIN_NAMES]
    found: set[str] = set()
    for plugin in _plugins:
        for secret in plugin.analyze_string(text):
            if isinstance(secret, str) and len(secret) >= 8 and REDACTED not in secret:
                found.add(secret)
    return found
