"""bench/rounds.py: a tree's bytecode is compiled once per run (not at every process), warm-up uncounted."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.paths import REPO
from tests.support.bench_scripts import load_bench


def test_a_tree_runs_from_its_private_bytecode_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """PYTHONDONTWRITEBYTECODE (set here) would have every run compile the tree again (the baseline of
    bench_offline did): the cache is written once, then read."""
    monkeypatch.setenv("PYTHONDONTWRITEBYTECODE", "1")
    env = load_bench("rounds").tree_env(str(REPO), str(tmp_path / "pyc"))
    subprocess.run([sys.executable, "-c", "import rpcspy.framing"], env=env, cwd=REPO, check=True, timeout=60)
    assert list((tmp_path / "pyc").rglob("rpcspy/framing.*.pyc"))


def test_warm_up_runs_each_variant_once_uncounted() -> None:
    calls: list[str] = []
    got = load_bench("rounds").rounds({k: (lambda k=k: calls.append(k) or (0.0, 1024)) for k in "ab"}, 2,
                                      warm_up=True)
    assert calls == ["a", "b"] * 3 and got == {k: [(0.0, 1024)] * 2 for k in "ab"}
