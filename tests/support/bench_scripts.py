"""Import a script of ``bench/`` as a module (it imports its neighbours, so ``bench/`` is on the path meanwhile)."""

from __future__ import annotations

import importlib.util
import sys
from types import ModuleType

from tests.paths import REPO


def load_bench(name: str) -> ModuleType:
    """``bench/<name>.py``, executed once per call and registered as ``name`` (dataclasses look it up)."""
    bench = str(REPO / "bench")
    sys.path.insert(0, bench)
    try:
        spec = importlib.util.spec_from_file_location(name, REPO / "bench" / f"{name}.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(bench)
    return module
