"""Keep freed chunks' memory for reuse instead of handing it back to the kernel at once.

The relays read chunks of up to a MiB, and the observer process copies each one a few times
(wire message, lines, recording lines) and frees them, hundreds of times a second. glibc's
defaults serve a block that big with its own ``mmap`` and ``munmap`` it when freed (or trim the
heap's top past 128 KiB free), so every chunk pays its page faults again: on a flood of small frames,
35,000 faults per 30 MB in the observer process, 40 % of its CPU. Raising the thresholds keeps
such blocks in the heap: the memory is reused (a few MiB more stay resident, no more than
:data:`TRIM_AT` of freed memory).
"""

from __future__ import annotations

M_TRIM_THRESHOLD, M_TOP_PAD, M_MMAP_THRESHOLD = -1, -2, -3
"""glibc's ``mallopt`` parameters (malloc.h)."""
MMAP_AT = 8 << 20
"""Blocks up to this size come from the heap (a chunk is at most 1 MiB, its recording lines a few)."""
TRIM_AT = 32 << 20
"""Free memory at the heap's top kept for reuse."""
TOP_PAD = 4 << 20
"""What the heap grows by beyond a request."""


def keep_freed_memory() -> bool:
    """Tell glibc's allocator to keep freed memory of this process (and of processes it forks later) for
    reuse; False where there is no glibc ``mallopt`` (another C library), which changes nothing else."""
    try:
        import ctypes

        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return False
    ok = True
    for param, value in ((M_MMAP_THRESHOLD, MMAP_AT), (M_TRIM_THRESHOLD, TRIM_AT), (M_TOP_PAD, TOP_PAD)):
        ok = bool(mallopt(param, value)) and ok
    return ok
