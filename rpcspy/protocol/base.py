"""Building blocks shared by every schema module: the dialect spec, base Structs, helpers.

Schemas are msgspec Structs. Wire names are used as field names (camelCase) so no
renaming is needed. A field pi omits when undefined is ``Opt[T] = UNSET``: absent is
not the same as ``null`` (see protocol-notes, "Notation").

Structs that differ between dialects are built by ``build_*(spec)`` factories in the
other modules; a class body can branch on the spec's capabilities (``if spec.delta_updates: field: ...``);
:mod:`rpcspy.protocol.spec` holds every dialect's :class:`Spec`.
"""

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
