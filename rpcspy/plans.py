"""msgspec type plans built after import, one at a time.

msgspec builds a Struct type's plan (how to decode, convert or validate it) on the type's first
use and publishes it on the class before it is complete: two threads first using one type at
once crash the interpreter (msgspec 0.22.0, a segmentation fault; ``rpcspy conform`` checks its
cases in parallel threads, and did crash so). Plans made at import time are safe (the import lock
orders them); every plan built later goes through :func:`prepare` or :func:`json_decoder`, which
build it under one lock, so any thread that uses the type afterwards finds it complete. Pure: no I/O.
"""

from __future__ import annotations

import threading
from typing import Any

import msgspec

_lock = threading.Lock()


def prepare(tp: Any) -> None:
    """Build ``tp``'s plan (and its fields' plans) now, before any thread converts to it."""
    with _lock:
        msgspec.json.Decoder(tp)


def json_decoder(tp: Any) -> msgspec.json.Decoder[Any]:
    """``msgspec.json.Decoder(tp)``, built under the lock."""
    with _lock:
        return msgspec.json.Decoder(tp)
