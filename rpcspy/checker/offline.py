"""Checking a recording after the fact: the checker over a stream of events (pure iterator)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from rpcspy.events import Event, Exit, Finding, Frame


class CheckerUnavailable(RuntimeError):
    """The checker module is not part of this build."""


def with_checker(stream: Iterable[Event], dialect: str = "auto") -> Iterator[Event]:
    """Run the checker: recorded findings are dropped, fresh ones follow their frames."""
    try:
        from rpcspy.checker import Checker
    except ImportError as exc:
        raise CheckerUnavailable(f"the checker is not available: {exc}") from None
    checker = Checker(dialect=dialect)
    last_t = 0.0
    exit_code: int | None = None
    for event in stream:
        if isinstance(event, Finding):
            continue
        last_t = event.t
        if isinstance(event, Exit):
            exit_code = event.code
        yield event
        if isinstance(event, Frame):
            yield from checker.feed(event)
    yield from checker.finish(last_t, exit_code=exit_code)
