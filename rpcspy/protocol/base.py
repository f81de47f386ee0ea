"""Building blocks shared by every schema module: the dialect spec, base Structs, helpers.

Schemas are msgspec Structs. Wire names are used as field names (camelCase) so no
renaming is needed. A field pi omits when undefined is ``Opt[T] = UNSET``: absent is
not the same as ``null`` (see protocol-notes, "Notation").

Structs that differ between dialects are built by ``build_*(spec)`` factories in the
other modules; a class body can branch on the spec (``if spec.v084: field: ...``).
"""

from dataclasses import dataclass
from typing import Any, Callable, Literal, TypeVar, Union

import msgspec
from msgspec import UNSET, UnsetType

T = TypeVar("T")
Opt = Union[T, UnsetType]
"""``Opt[str]``: a key that may be absent (never ``null`` unless the type says so)."""

Getter = Callable[[str], Any]
"""Reads a field by wire name, returning UNSET when absent (dict or Struct alike)."""

Problem = tuple[str, str, str]
"""A cross-field check result: (kind, path relative to the object, message)."""


@dataclass(frozen=True, slots=True)
class Spec:
    """What distinguishes one dialect's schemas from another's."""

    name: str
    v084: bool = False
    """pi >= 0.84: delta-only message_update, agent_settled, system messages, new commands."""
    feb: bool = False
    """The Feb-2026 doc (seed 003): image ``source`` form, auto_compaction_* events."""
    omp: bool = False
    """oh-my-pi (omp): ready frame, host tools, different command set and get_state."""
    v099: bool = False
    """pi >= 0.99 (implies ``v084``): ``disposition`` on prompt/steer/follow_up responses,
    ``agent_settled.aborted``, durations and nested tool calls (protocol-notes 11.1)."""

    @property
    def thinking_levels(self) -> tuple[str, ...]:
        base = ("off", "minimal", "low", "medium", "high", "xhigh")
        if self.omp:
            return ("inherit",) + base + ("max",)
        return base + ("max",) if self.v084 else base

    @property
    def stop_reasons(self) -> tuple[str, ...]:
        base = ("stop", "length", "toolUse", "error", "aborted")
        return ("pending",) + base + ("deferred",) if self.v084 else base


SPECS: dict[str, Spec] = {
    "pi-0.73": Spec("pi-0.73"),
    "pi-0.84": Spec("pi-0.84", v084=True),
    "pi-0.99": Spec("pi-0.99", v084=True, v099=True),
    "pi-feb2026": Spec("pi-feb2026", feb=True),
    "omp": Spec("omp", omp=True),
}
"""Each dialect's spec (here, not in :mod:`rpcspy.protocol.dialects`, so that asking :func:`is_omp`
builds no schema)."""


def is_omp(dialect: str | None) -> bool:
    """``dialect`` is oh-my-pi's (its spec says so): it skips blank lines, may answer a prompt twice."""
    spec = SPECS.get(dialect) if dialect is not None else None
    return spec is not None and spec.omp


def lit(values: tuple[Any, ...]) -> Any:
    """``Literal[values...]`` built from a tuple."""
    return Literal[values]


def opt(t: Any) -> Any:
    """``Opt[t]`` as a runtime value, for the field specs given to ``msgspec.defstruct``."""
    return Opt[t]  # type: ignore[misc]  # mypy takes a subscripted alias for a type application


class Base(msgspec.Struct, forbid_unknown_fields=True, omit_defaults=True):
    """Every protocol object: unknown keys fail the fast path and are then reported."""


class Open(msgspec.Struct, omit_defaults=True):
    """An object whose full shape is not known (omp extras): extra keys are fine."""


class Checked(Base):
    """A Base with a cross-field check, run by msgspec and by the walker alike.

    Subclasses define ``__rpcspy_check__(get) -> list[Problem]`` as a staticmethod.
    msgspec sees the first problem as a ValueError from ``__post_init__`` (so the
    fast path fails); the walker reports all of them. Only checked classes pay
    for the Python-level ``__post_init__`` call.
    """

    def __post_init__(self) -> None:
        problems = type(self).__rpcspy_check__(lambda k: getattr(self, k, UNSET))  # type: ignore[attr-defined]
        if problems:
            raise ValueError(problems[0][2])


def tag_of(cls: type) -> Any:
    """The tag value of a tagged Struct class (e.g. "prompt")."""
    return cls.__struct_config__.tag  # type: ignore[attr-defined]
