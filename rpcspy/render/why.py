"""A :class:`~rpcspy.diagnose.Diagnosis` as plain text: one sentence per item, with its frames."""

from __future__ import annotations

from rpcspy.diagnose.items import Diagnosis, Item


def _line(item: Item) -> str:
    frames = ", ".join(str(f) for f in dict.fromkeys(item.frames))
    return f"  - {item.text}" + (f" [frame{'s' if len(item.frames) > 1 else ''} {frames}]" if frames else "")


def why_lines(d: Diagnosis) -> list[str]:
    """The diagnosis as lines of text (no trailing newlines)."""
    head = f"at {d.at:.3f} s ({d.frames} frames, dialect {d.dialect}): "
    lines = [head + (f"{len(d.outstanding)} outstanding" if d.outstanding else "nothing outstanding")]
    if d.outstanding:
        lines += [_line(i) for i in d.outstanding]
    if d.pitfalls:
        lines.append(f"client pitfalls ({len(d.pitfalls)}):")
        lines += [_line(i) for i in d.pitfalls]
    if d.context:
        lines.append("context:")
        lines += [f"  - {c}" for c in d.context]
    return lines


def why_text(d: Diagnosis) -> str:
    return "\n".join(why_lines(d)) + "\n"
