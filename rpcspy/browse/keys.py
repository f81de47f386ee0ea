"""The browser's keys: one list for the ``?`` screen and ``rpcspy browse --help``."""

from __future__ import annotations

KEYS: tuple[tuple[str, str], ...] = (
    ("up/down, j/k", "move one line"),
    ("PgUp/PgDn, g/G", "move one page, to the first or last line"),
    ("Enter, Space", "unfold a row into its frames, or fold it again"),
    ("right/left", "unfold / fold"),
    ("/ TEXT", "search rows and frame text, forward (case-insensitive unless TEXT has capitals)"),
    ("n / N", "next / previous match"),
    ("f EXPR", "filter rows with a --where expression (JMESPath); empty clears"),
    ("] / [", "next / previous finding"),
    ("J/K, Ctrl-D/U", "scroll the frame pane"),
    ("F", "follow: stay at the end while the recording grows"),
    ("?", "this help (any key closes it)"),
    ("q, Ctrl-C", "quit"),
)


def help_text(width: int | None = None) -> str:
    """The keys, one a line; with ``width``, descriptions wrap under themselves to fit (an 80x24 terminal)."""
    import textwrap

    keys = max(len(k) for k, _ in KEYS)
    room = None if width is None else max(width - keys - 4, 20)
    lines: list[str] = []
    for k, d in KEYS:
        parts = textwrap.wrap(d, room) if room else [d]
        lines.append(f"  {k:<{keys}}  {parts[0]}")
        lines += [f"  {'':<{keys}}  {p}" for p in parts[1:]]
    return "\n".join(lines)
