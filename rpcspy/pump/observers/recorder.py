"""The recorder observer: every event becomes a line of the recording."""

from __future__ import annotations

from rpcspy.events import Direction, Event
from rpcspy.pump.forward.hub import Emit
from rpcspy.recording.writer import RecordingWriter


class Recorder:
    """Writes events through a :class:`RecordingWriter`: a batch of events, or a chunk's frames as their
    lines (:meth:`RecordingWriter.write_lines`), encoded together."""

    name = "recorder"

    def __init__(self, writer: RecordingWriter) -> None:
        self.writer = writer

    def handle(self, event: Event, emit: Emit) -> None:
        self.writer.write_event(event)

    def handle_batch(self, events: list[Event]) -> None:
        self.writer.write_events(events)

    def handle_lines(self, direction: Direction, t: float, first: int, lines: list[bytes], injected: bool) -> None:
        self.writer.write_lines(direction, t, first, lines, injected)

    def flush(self) -> None:
        self.writer.flush()

    def close(self) -> None:
        self.writer.close()
