"""msgspec type plans built by several threads at once (rpcspy conform checks cases in parallel threads):
msgspec 0.22.0 crashes the interpreter when two threads first use one type together; rpcspy must not."""

from __future__ import annotations

import subprocess
import sys

from tests.paths import REPO

RACE = r'''
import threading
from rpcspy.protocol.validation import type_checker

def family(n):
    src = "import msgspec\nfrom typing import Optional\n"
    for i in range(40):
        inner = f"S{i - 1}" if i else "int"
        src += f"class S{i}(msgspec.Struct, forbid_unknown_fields=True):\n"
        src += "".join(f"    f{j}: Optional[{inner if j == 0 else 'int'}] = None\n" for j in range(15))
    ns = {}
    exec(src, ns)
    return ns["S39"]

for n in range(40):  # a fresh family of types each time: its plans are not built yet
    tp = family(n)
    gate = threading.Barrier(4)
    def check():
        gate.wait()
        type_checker(tp)({"f0": {"f0": {"f1": "x"}}}, "$", "frame")
    threads = [threading.Thread(target=check) for _ in range(4)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
print("ok")
'''


def test_threads_checking_fresh_types_at_once_do_not_crash() -> None:
    p = subprocess.run([sys.executable, "-X", "faulthandler", "-c", RACE], capture_output=True, text=True,
                       timeout=300, env={"PYTHONPATH": str(REPO)})
    assert (p.returncode, p.stdout.strip()) == (0, "ok"), p.stderr[-3000:]
