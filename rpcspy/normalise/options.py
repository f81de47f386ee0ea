"""What counts as volatile (:class:`NormaliseOptions`), and pi 0.73's redundant ``partial`` dropped. Pure."""

from __future__ import annotations

from typing import Any

import msgspec


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
    """Also redact secrets that are not token-shaped (:mod:`rpcspy.normalise.secrets`): fixtures do."""


def compact_partial(obj: dict[str, Any]) -> dict[str, Any]:
    """``obj`` without ``assistantMessageEvent.partial`` (pi 0.73); ``obj`` itself when there is none."""
    if obj.get("type") != "message_update":
        return obj
    ev = obj.get("assistantMessageEvent")
    if not isinstance(ev, dict) or "partial" not in ev:
        return obj
    return {**obj, "assistantMessageEvent": {k: v for k, v in ev.items() if k != "partial"}}
