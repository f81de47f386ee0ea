"""docs/architecture.md names only modules that exist, and README links it."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOC = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")


def test_every_module_the_map_names_exists() -> None:
    named = set(re.findall(r"(?<![\w/<>])[\w/]+\.py", DOC))
    assert len(named) > 30
    files = {p.relative_to(ROOT).as_posix() for top in ("rpcspy", "scripts", "tests") for p in (ROOT / top).rglob("*.py")}
    missing = sorted(n for n in named if not any(f == n or f.endswith("/" + n) for f in files))
    assert missing == []


def test_readme_links_it() -> None:
    assert "(docs/architecture.md)" in (ROOT / "README.md").read_text(encoding="utf-8")
