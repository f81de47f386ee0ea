"""Golden files for rendered output (tests/golden/).

Regenerate them only on purpose: ``pytest tests/render --update-golden`` or
``RPCSPY_UPDATE_GOLDEN=1 pytest ...`` (the option exists when this directory is
on the command line; the variable works from anywhere).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.golden_files import check_golden

GOLDEN_DIR = Path(__file__).resolve().parents[1] / "golden"


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--update-golden", action="store_true", default=False,
                     help="rewrite tests/golden/ files from the current output instead of comparing")


def _updating(config: pytest.Config) -> bool:
    try:
        flag = bool(config.getoption("--update-golden"))
    except ValueError:
        flag = False
    return flag or os.environ.get("RPCSPY_UPDATE_GOLDEN") == "1"


@pytest.fixture
def golden(request: pytest.FixtureRequest) -> Callable[[str, str], None]:
    """``golden(name, text)``: compare ``text`` with tests/golden/<name>, or rewrite it when updating."""
    updating = _updating(request.config)

    def check(name: str, text: str) -> None:
        check_golden(GOLDEN_DIR, name, text, update=updating, how_to_update='`pytest tests/render --update-golden`')

    return check
