"""Write one benchmark's table into its own section of docs/performance.md."""

from __future__ import annotations

import datetime as dt
import os
import re
from pathlib import Path

DOC = Path(__file__).resolve().parents[1] / "docs" / "performance.md"
INTRO = """# Performance

Figures come from the benchmarks in `bench/`, each comparing rpcspy with baselines measured
in the same run (ratios are what count: these machines are shared and noisy). Re-run a
benchmark with `--write-docs` to refresh its section.
"""


def write_section(name: str, body: str) -> None:
    """Replace (or append) the ``## name`` section of docs/performance.md."""
    text = DOC.read_text() if DOC.exists() else INTRO
    stamp = f"_Measured {dt.date.today().isoformat()} on {os.cpu_count()} cores._"
    section = f"## {name}\n\n{stamp}\n\n{body.strip()}\n"
    pattern = re.compile(rf"^## {re.escape(name)}\n.*?(?=^## |\Z)", re.S | re.M)
    if pattern.search(text):
        text = pattern.sub(lambda _: section + "\n", text)
    else:
        text = text.rstrip("\n") + "\n\n" + section
    DOC.parent.mkdir(exist_ok=True)
    DOC.write_text(text.rstrip("\n") + "\n")
