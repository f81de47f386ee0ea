"""Golden files of the live view (tests/interactive/golden/); ``RPCSPY_UPDATE_GOLDEN=1`` rewrites them."""

from __future__ import annotations

import difflib
import os
from collections.abc import Callable
from pathlib import Path

import pytest

GOLDEN_DIR = Path(__file__).resolve().parent / "golden"


@pytest.fixture
def live_golden() -> Callable[[str, str], None]:
    """``live_golden(name, text)``: compare with tests/interactive/golden/<name> (or rewrite it when updating)."""

    def check(name: str, text: str) -> None:
        path = GOLDEN_DIR / name
        if os.environ.get("RPCSPY_UPDATE_GOLDEN") == "1":
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
            return
        if not path.exists():
            pytest.fail(f"no golden file {path}; create it with RPCSPY_UPDATE_GOLDEN=1 and review it")
        expected = path.read_text(encoding="utf-8")
        if text != expected:
            diff = "".join(difflib.unified_diff(expected.splitlines(True), text.splitlines(True),
                                                f"golden/{name}", "rendered", n=2))
            pytest.fail(f"live view differs from golden/{name} (if intended: RPCSPY_UPDATE_GOLDEN=1)\n{diff[:6000]}")

    return check
