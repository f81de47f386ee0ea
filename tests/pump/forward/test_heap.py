"""keep_freed_memory: glibc's allocator told to keep freed chunks for reuse, harmless elsewhere."""

from __future__ import annotations

import platform
import subprocess
import sys

import pytest

from rpcspy.pump.forward import heap


@pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="mallopt is glibc's")
def test_glibc_takes_the_settings_and_a_forked_child_allocates_as_before() -> None:
    code = ("import os; from rpcspy.pump.forward.heap import keep_freed_memory as k; assert k();"
            "pid = os.fork()\n"
            "if pid == 0:\n"
            "    blocks = [bytes(1 << 20) for _ in range(64)]; del blocks; os._exit(0 if bytes(9 << 20) else 1)\n"
            "assert os.waitpid(pid, 0)[1] == 0")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_without_mallopt_nothing_changes(monkeypatch: pytest.MonkeyPatch) -> None:
    import ctypes

    def no_libc(_name: object) -> object:
        raise OSError("no C library here")

    monkeypatch.setattr(ctypes, "CDLL", no_libc)
    assert heap.keep_freed_memory() is False
