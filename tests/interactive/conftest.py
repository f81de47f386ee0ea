"""Golden files of the live view (tests/interactive/golden/); ``RPCSPY_UPDATE_GOLDEN=1`` rewrites them."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.golden_files import check_golden

GOLDEN_DIR = Path(__file__).resolve().parent / "golden"


@pytest.fixture
def live_golden() -> Callable[[str, str], None]:
    """``live_golden(name, text)``: compare with tests/interactive/golden/<name> (or rewrite it when updating)."""

    def check(name: str, text: str) -> None:
        check_golden(GOLDEN_DIR, name, text, update=os.environ.get("RPCSPY_UPDATE_GOLDEN") == "1", how_to_update='RPCSPY_UPDATE_GOLDEN=1')

    return check
