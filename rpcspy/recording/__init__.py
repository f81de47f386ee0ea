"""The recording format: entries, writer, streaming reader (see docs/recording-format.md).

The names below load on first use, so ``rpcspy.recording.naming`` stays cheap to import.
"""

from typing import Any

__all__ = ["FORMAT_NAME", "FORMAT_VERSION", "Header", "RecordingError", "open_recording", "read_frames"]
_HOME = {"FORMAT_NAME": "format", "FORMAT_VERSION": "format", "Header": "format", "RecordingError": "reader",
         "open_recording": "reader", "read_frames": "reader"}


def __getattr__(name: str) -> Any:
    module = _HOME.get(name)
    if module is None:
        raise AttributeError(f"module 'rpcspy.recording' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(f"rpcspy.recording.{module}"), name)
