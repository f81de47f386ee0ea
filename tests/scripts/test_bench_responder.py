"""bench/responder.py, the agent of bench_proxy's round trips, speaks pi's protocol: the live check the
benchmark runs through the proxy has nothing to report about it."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.checker.helpers import A, C, check
from tests.paths import REPO

COMMAND = b'{"id":"x","type":"get_state"}'


@pytest.mark.parametrize("dialect", ["auto", "pi-0.73", "pi-0.84", "pi-0.99", "pi-feb2026"])
def test_responder_answers_are_clean(dialect: str) -> None:
    out = subprocess.run([sys.executable, str(REPO / "bench" / "responder.py")], input=COMMAND + b"\n" + COMMAND
                         + b"\n", capture_output=True, check=True, timeout=60).stdout.splitlines()
    assert len(out) == 2 and out[0].startswith(b'{"id":"x","type":"response"')
    frames = [C(COMMAND), A(out[0]), C(COMMAND), A(out[1])]
    assert [f"{f.rule}: {f.message}" for f in check(*frames, dialect=dialect)] == []
