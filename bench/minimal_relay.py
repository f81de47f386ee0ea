"""Baseline: the simplest two-thread os.read/os.write relay that also records raw chunks.

Its pipes to the agent get 1 MiB buffers, as rpcspy's do (pump/forward/spawn.py), so the
comparison is of the relays, not of pipe sizes.
"""

from __future__ import annotations

import fcntl
import os
import subprocess
import sys
import threading

F_SETPIPE_SZ = 1031


def pump(src: int, dst: int, rec: int, close: bool) -> None:
    while chunk := os.read(src, 1 << 20):
        view = memoryview(chunk)
        while view:
            view = view[os.write(dst, view):]
        os.write(rec, chunk)
    if close:
        os.close(dst)


def main() -> int:
    rec = os.open(sys.argv[1], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    proc = subprocess.Popen(sys.argv[2:], stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0)
    for pipe in (proc.stdin, proc.stdout):
        try:
            fcntl.fcntl(pipe.fileno(), F_SETPIPE_SZ, 1 << 20)
        except OSError:
            pass
    threading.Thread(target=pump, args=(0, proc.stdin.fileno(), rec, True), daemon=True).start()
    out = threading.Thread(target=pump, args=(proc.stdout.fileno(), 1, rec, False))
    out.start()
    code = proc.wait()
    out.join()
    os._exit(code)


if __name__ == "__main__":
    main()
