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


def help_text() -> str:
    width = max(len(k) for k, _ in KEYS)
    return "\n".join(f"  {k:<{width}}  {d}" for k, d in KEYS)
