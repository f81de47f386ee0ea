"""Comparing rendered text with a golden file, or rewriting it on purpose (one helper for every suite)."""

from __future__ import annotations

import difflib
from pathlib import Path

import pytest


def check_golden(directory: Path, name: str, text: str, *, update: bool, how_to_update: str) -> None:
    """Fail with a diff when ``text`` differs from ``directory/name``; write it instead when ``update``."""
    path = directory / name
    if update:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        return
    if not path.exists():
        pytest.fail(f"no golden file {path}; create it with {how_to_update} and review it")
    expected = path.read_text(encoding="utf-8")
    if text != expected:
        diff = "".join(difflib.unified_diff(expected.splitlines(True), text.splitlines(True),
                                            f"golden/{name}", "rendered", n=2))
        pytest.fail(f"rendered output differs from golden/{name} (if intended: {how_to_update})\n{diff[:6000]}")
