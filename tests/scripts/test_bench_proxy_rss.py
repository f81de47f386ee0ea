"""bench/bench_proxy.py counts the memory of the proxy's whole process tree (the drain process is a
grandchild of the proxy), the agent `cat` excluded."""

from __future__ import annotations

import subprocess
import sys
import time

from tests.support.bench_scripts import load_bench

CHILD = ("import subprocess, sys; g = subprocess.Popen([sys.executable, '-c', 'import sys; sys.stdin.read()'],"
         " stdin=subprocess.PIPE); a = subprocess.Popen(['cat'], stdin=subprocess.PIPE); print(g.pid, a.pid,"
         " flush=True); sys.stdin.read()")


def _comm(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/comm") as f:
            return f.read().strip()
    except OSError:
        return ""


def test_peak_rss_counts_grandchildren_not_the_agent() -> None:
    tree_hwm = load_bench("bench_proxy")._tree_hwm
    top = subprocess.Popen([sys.executable, "-c", f"import subprocess, sys; subprocess.run([sys.executable, '-c', "
                            f"{CHILD!r}], stdin=sys.stdin)"], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    try:
        assert top.stdout is not None
        grandchild, agent = (int(x) for x in top.stdout.readline().split())
        deadline = time.monotonic() + 60  # the processes must have started; not a timing assertion
        while _comm(agent) != "cat" and time.monotonic() < deadline:  # a vforked child is named at its exec's end
            time.sleep(0.05)
        got = tree_hwm(top.pid)
        assert top.pid in got and grandchild in got and agent not in got
        assert len(got) == 3 and all(kib > 0 for kib in got.values())  # top, its child, the grandchild
    finally:  # end of input ends the child, then the grandchild and the agent
        assert top.stdin is not None
        top.stdin.close()
        top.wait(timeout=60)
