"""Older recording formats, upgraded a step at a time to the one this rpcspy reads (docs/recording-format.md).

A recording's header names its format ``version``. :data:`STEPS` holds, for each version N below
:data:`~rpcspy.recording.format.FORMAT_VERSION`, the :class:`Step` that turns a version N file into
version N+1: its header and each entry line, as JSON objects. The reader runs the steps from the file's
version up, line by line, before it decodes the entries (a migrated file takes the reader's line-by-line
path; only a version older than the current one does). Version 1 is the first format: there is no
step yet. The change that makes version 2 adds ``STEPS[1]``, keeps a fixture of each older version in
``tests/data/recordings/versions/`` and reads it in ``tests/recording/test_migrate.py``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import msgspec

from rpcspy.framing import DECODE_ERRORS
from rpcspy.recording.format import FORMAT_VERSION

FIRST_VERSION = 1
"""The first format rpcspy wrote."""

Json = dict[str, msgspec.Raw]
"""A line as a JSON object whose values are kept raw: a step decodes the fields it changes
(``msgspec.json.decode(obj["level"])``) and leaves the others as they are, byte for byte (a frame's
``json`` above all: the frame's own bytes)."""
_line_decoder = msgspec.json.Decoder(Json)


@dataclass(frozen=True)
class Step:
    """Version ``to - 1`` to version ``to``."""

    to: int
    header: Callable[[Json], Json]
    """The header line, upgraded."""
    entry: Callable[[Json], list[Json]]
    """One entry line, upgraded: none (an entry the new version drops), one, or several."""
    what: str
    """What changed, for people."""


STEPS: dict[int, Step] = {}
"""The step from each version below the current one (keyed by the version it upgrades from)."""


class MigrationError(ValueError):
    """A version no step leads up from: the message says why."""


def steps_from(version: int) -> tuple[Step, ...]:
    """The steps from ``version`` up to this rpcspy's format, in order (none for the current version)."""
    if version < FIRST_VERSION:
        raise MigrationError(f"recording format version {version} is older than any rpcspy wrote "
                             f"(the first is {FIRST_VERSION})")
    if version > FORMAT_VERSION:
        raise MigrationError(f"recording format version {version} is newer than this rpcspy reads "
                             f"(up to {FORMAT_VERSION}); upgrade rpcspy")
    steps = []
    for v in range(version, FORMAT_VERSION):
        step = STEPS.get(v)
        if step is None or step.to != v + 1:
            raise MigrationError(f"recording format version {v}: no upgrade to version {v + 1} (a bug in rpcspy)")
        steps.append(step)
    return tuple(steps)


def upgrade_header(header: Json, steps: Sequence[Step]) -> Json:
    """The header, as the current version has it."""
    for step in steps:
        header = step.header(dict(header))
    header["version"] = msgspec.Raw(b"%d" % FORMAT_VERSION)
    return header


def upgrade_line(line: bytes, steps: Sequence[Step]) -> list[bytes]:
    """One entry line of an older version as the current version's lines (none, one or several). A line
    that is no JSON object is handed on as it is: the reader says why it cannot read it."""
    if not steps:
        return [line]
    try:
        obj = _line_decoder.decode(line)
    except DECODE_ERRORS:  # not a JSON object: the reader says why
        return [line]
    objs: list[Json] = [obj]
    for step in steps:
        objs = [new for old in objs for new in step.entry(old)]
    return [msgspec.json.encode(o) for o in objs]
