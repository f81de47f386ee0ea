"""bench/bench_proxy.py counts the memory of the proxy's whole process tree (the drain process is a
grandchild of the proxy), the agent `cat` excluded."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import time

from tests.paths import REPO

CHILD = ("import subprocess, sys; g = subprocess.Popen([sys.executable, '-c', 'import sys; sys.stdin.read()'],"
         " stdin=subprocess.PIPE); a = subprocess.Popen(['cat'], stdin=subprocess.PIPE); print(g.pid, a.pid,"
         " flush=True); sys.stdin.read()")


def _tree_hwm():
    sys.path.insert(0, str(REPO / "bench"))
    try:
        spec = importlib.util.spec_from_file_location("bench_proxy", REPO / "bench" / "bench_proxy.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(REPO / "bench"))
    return module._tree_hwm


def test_peak_rss_counts_grandchildren_not_the_agent() -> None:
    tree_hwm = _tree_hwm()
    top = subprocess.Popen([sys.executable, "-c", f"import subprocess, sys; subprocess.run([sys.executable, '-c', "
                            f"{CHILD!r}], stdin=sys.stdin)"], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    try:
        assert top.stdout is not None
        grandchild, agent = (int(x) for x in top.stdout.readline().split())
        deadline = time.monotonic() + 60  # the grandchild must have started; not a timing assertion
        while grandchild not in (got := tree_hwm(top.pid)) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert top.pid in got and grandchild in got and agent not in got
        assert len(got) == 3 and all(kib > 0 for kib in got.values())  # top, its child, the grandchild
    finally:  # end of input ends the child, then the grandchild and the agent
        assert top.stdin is not None
        top.stdin.close()
        top.wait(timeout=60)
