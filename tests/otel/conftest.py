from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.otel.receiver import Receiver


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    r = Receiver()
    try:
        yield r
    finally:
        r.close()
