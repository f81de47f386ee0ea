"""The recording format: entries, writer, streaming reader (see docs/recording-format.md)."""

from rpcspy.recording.format import FORMAT_NAME, FORMAT_VERSION, Header
from rpcspy.recording.reader import RecordingError, open_recording, read_frames

__all__ = ["FORMAT_NAME", "FORMAT_VERSION", "Header", "RecordingError", "open_recording", "read_frames"]
