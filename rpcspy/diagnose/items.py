"""What a diagnosis says: items (outstanding work and client pitfalls), each one sentence on frames."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any


@dataclass(frozen=True)
class Item:
    """One outstanding thing or one pitfall, as a plain sentence with the frames it rests on."""

    kind: str
    """e.g. ``command``, ``run``, ``settle``, ``dialog``; pitfalls: ``pitfall.late_response``, ..."""
    text: str
    frames: tuple[int, ...] = ()
    since: float | None = None
    """When it became outstanding (recording time, seconds)."""

    @property
    def pitfall(self) -> bool:
        return self.kind.startswith("pitfall.")


@dataclass
class Diagnosis:
    """The state of a session at one moment: what is outstanding, why, and what a client could trip on."""

    at: float
    """The moment diagnosed (recording time, seconds)."""
    dialect: str
    outstanding: list[Item] = field(default_factory=list)
    pitfalls: list[Item] = field(default_factory=list)
    context: list[str] = field(default_factory=list)
    """Sentences that explain but are not outstanding (who spoke last, the agent's exit)."""
    frames: int = 0
    """Frames taken into account."""

    @property
    def stuck(self) -> bool:
        return bool(self.outstanding)

    def to_json(self) -> dict[str, Any]:
        def item(i: Item) -> dict[str, Any]:
            d = asdict(i)
            d["frames"] = list(i.frames)
            return d

        return {
            "at": round(self.at, 6), "dialect": self.dialect, "frames": self.frames,
            "outstanding": [item(i) for i in self.outstanding],
            "pitfalls": [item(i) for i in self.pitfalls],
            "context": list(self.context),
        }

    @classmethod
    def from_json(cls, obj: dict[str, Any]) -> "Diagnosis":
        """Inverse of :meth:`to_json` (for answers read from a control socket)."""
        def items(rows: list[Any]) -> list[Item]:
            return [Item(r["kind"], r["text"], tuple(r.get("frames", ())), r.get("since")) for r in rows]

        return cls(at=obj.get("at", 0.0), dialect=obj.get("dialect", "?"),
                   outstanding=items(obj.get("outstanding", [])), pitfalls=items(obj.get("pitfalls", [])),
                   context=list(obj.get("context", [])), frames=obj.get("frames", 0))
