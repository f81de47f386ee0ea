"""Sending the core's spans over OTLP: the ``rpcspy[otel]`` extra, imported only here and only when used.

:class:`SpanSender` keeps finished spans in a bounded queue that one thread of its own empties
in batches through the OpenTelemetry SDK's OTLP exporter: :meth:`SpanSender.put` never waits
(a full queue drops the spans and counts them). :class:`OtelObserver` runs the core's
:class:`~rpcspy.otel.mapper.SpanMapper` on a live session (in the observer process, off the
forwarding path) and, at the agent's exit, waits a bounded time for the last batch and records
a note saying how many spans went out and how many were dropped, and why.
"""

from __future__ import annotations

import importlib.util
import logging
import os
import threading
from collections import deque
from collections.abc import Iterable
from typing import Any

from rpcspy.events import Event, Exit, Frame, Note, Start
from rpcspy.otel.config import ExportSettings
from rpcspy.otel.mapper import SKIP_PREFIXES, TRACEPARENT_NOTE, SpanMapper
from rpcspy.otel.spans import SpanRecord
from rpcspy.pump.forward.hub import Emit

INSTALL = "pip install 'rpcspy[otel]'"
MAX_QUEUE = 4096
"""Spans waiting to be sent at most; more are dropped (and counted)."""
BATCH = 512
DELAY = 1.0
"""Seconds a partial batch waits for more spans."""
EXIT_WAIT = 5.0
"""At the agent's exit, how long the last spans may take to go out (the session's end waits that long at most)."""


def missing(settings: ExportSettings | None = None) -> str | None:
    """What is not installed for exporting (a message with the install line), or None."""
    needed = ["opentelemetry.sdk.trace"]
    needed.append("opentelemetry.exporter.otlp.proto.grpc" if settings is not None and settings.protocol == "grpc"
                  else "opentelemetry.exporter.otlp.proto.http")
    for name in needed:
        try:
            found = importlib.util.find_spec(name)
        except ModuleNotFoundError:
            found = None
        if found is None:
            extra = " opentelemetry-exporter-otlp-proto-grpc" if "grpc" in name else ""
            return f"OpenTelemetry export needs the otel extra ({name} is not installed): {INSTALL}{extra}"
    return None


def _quiet_sdk_logs() -> None:
    """The SDK logs export failures; rpcspy counts them and says so once (stderr belongs to the client)."""
    log = logging.getLogger("opentelemetry")
    log.addHandler(logging.NullHandler())
    log.propagate = False


def make_exporter(settings: ExportSettings) -> Any:
    _quiet_sdk_logs()
    if settings.protocol == "grpc":
        from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import OTLPSpanExporter as Grpc

        return Grpc(endpoint=settings.endpoint, headers=tuple(settings.headers.items()) or None,
                    timeout=settings.timeout, insecure=settings.endpoint.startswith("http://"))
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

    return OTLPSpanExporter(endpoint=settings.endpoint, headers=dict(settings.headers) or None,
                            timeout=settings.timeout)


class _Converter:
    """The core's span records as the SDK's ReadableSpans."""

    def __init__(self, resource: dict[str, str]) -> None:
        from opentelemetry.sdk.resources import Resource
        from opentelemetry.sdk.trace import Event as SdkEvent
        from opentelemetry.sdk.trace import ReadableSpan
        from opentelemetry.sdk.util.instrumentation import InstrumentationScope
        from opentelemetry.trace import SpanContext, SpanKind, Status, StatusCode, TraceFlags

        from rpcspy import __version__
        from rpcspy.otel.semconv import SCHEMA_URL, SCOPE

        self._resource = Resource.create(dict(resource))
        self._scope = InstrumentationScope(SCOPE, __version__, SCHEMA_URL)
        self._span, self._ctx, self._event = ReadableSpan, SpanContext, SdkEvent
        self._kinds = {"internal": SpanKind.INTERNAL, "client": SpanKind.CLIENT}
        self._status = {"unset": StatusCode.UNSET, "ok": StatusCode.OK, "error": StatusCode.ERROR}
        self._status_type = Status
        self._flags = TraceFlags(TraceFlags.SAMPLED)

    def __call__(self, r: SpanRecord) -> Any:
        trace = int.from_bytes(r.trace_id, "big")
        ctx = self._ctx(trace, int.from_bytes(r.span_id, "big"), False, self._flags)
        parent = (self._ctx(trace, int.from_bytes(r.parent_id, "big"), False, self._flags)
                  if r.parent_id is not None else None)
        code = self._status[r.status]
        return self._span(
            name=r.name, context=ctx, parent=parent, resource=self._resource, attributes=r.attributes,
            events=[self._event(e.name, e.attributes, e.time_ns) for e in r.events], kind=self._kinds[r.kind],
            status=self._status_type(code, r.status_message or None if code.name == "ERROR" else None),
            start_time=r.start_ns, end_time=r.end_ns, instrumentation_scope=self._scope)


class SpanSender:
    """A bounded queue of spans and the thread that exports them; :meth:`put` never blocks (unless ``block``)."""

    def __init__(self, settings: ExportSettings, *, exporter: Any = None, max_queue: int = MAX_QUEUE,
                 batch: int = BATCH, delay: float = DELAY, block: bool = False) -> None:
        self.settings = settings
        self._block = block
        """Offline export: :meth:`put` waits for room instead of dropping."""
        self._exporter = exporter if exporter is not None else make_exporter(settings)
        self._convert = _Converter(settings.resource)
        self._max, self._batch, self._delay = max_queue, batch, delay
        self._queue: deque[SpanRecord] = deque()
        self._cond = threading.Condition()
        self._busy = 0
        self._closed = False
        self._abandoned = False
        self.exported = 0
        self.dropped = 0
        """Dropped at a full queue (the endpoint slower than the session)."""
        self.failed = 0
        """Refused by the endpoint or not delivered (unreachable, timed out)."""
        self.error: str | None = None
        self._thread = threading.Thread(target=self._run, name="rpcspy-otel", daemon=True)
        self._thread.start()

    def put(self, spans: Iterable[SpanRecord]) -> None:
        with self._cond:
            for span in spans:
                while self._block and len(self._queue) >= self._max and not self._abandoned:
                    self._cond.notify_all()
                    self._cond.wait(0.1)
                if len(self._queue) >= self._max:
                    self.dropped += 1
                else:
                    self._queue.append(span)
            if len(self._queue) >= self._batch:
                self._cond.notify()

    def _run(self) -> None:
        while True:
            with self._cond:
                if not self._queue and not self._closed:
                    self._cond.wait(self._delay)
                if not self._queue:
                    if self._closed:
                        return
                    continue
                batch = [self._queue.popleft() for _ in range(min(self._batch, len(self._queue)))]
                self._busy = len(batch)
            ok = False
            try:
                ok = self._exporter.export([self._convert(r) for r in batch]).name == "SUCCESS"
                if not ok:
                    self.error = f"the endpoint {self.settings.endpoint} refused or could not be reached"
            except Exception as exc:  # an exporter must never take the session down
                self.error = f"{type(exc).__name__}: {exc}"
            with self._cond:
                if self._abandoned:  # counted as dropped by close()
                    return
                self._busy = 0
                if ok:
                    self.exported += len(batch)
                else:
                    self.failed += len(batch)
                self._cond.notify_all()  # room for a blocked put

    def close(self, timeout: float) -> None:
        """Send what is queued (at most ``timeout`` seconds); what is left counts as dropped."""
        with self._cond:
            self._closed = True
            self._cond.notify_all()
        self._thread.join(timeout)
        with self._cond:
            if self._abandoned:
                return
            self._abandoned = True
            self.dropped += len(self._queue) + self._busy
            self._queue.clear()
            self._busy = 0
        try:
            self._exporter.shutdown()  # also when the thread still waits on it: it gives up
        except Exception:  # noqa: BLE001 - nothing left to do about it
            pass

    def summary(self) -> tuple[str, str]:
        """(level, text) of the note that says what was sent."""
        return summary(self.exported, self.dropped, self.failed, self.error, self.settings.endpoint)


def summary(exported: int, dropped: int, failed: int, error: str | None, endpoint: str) -> tuple[str, str]:
    """(level, text) of the note that says what was sent, and what was not and why."""
    lost = dropped + failed
    text = f"otel: {exported} span(s) exported to {endpoint}"
    if not lost:
        return "info", text
    why = []
    if dropped:
        why.append(f"{dropped} dropped (queue full or not sent in time)")
    if failed:
        why.append(f"{failed} not delivered ({error})")
    return "warning", f"{text}; {lost} not exported: " + ", ".join(why)


class OtelObserver:
    """Exports a live session's spans as it runs (the proxy's, drive's): an observer that emits its notes.

    It is shown every event (so it can note, right after the agent's exit, what was exported); the
    bulk of a session, message and tool-output updates, costs it one prefix check each.
    """

    name = "otel"

    def __init__(self, settings: ExportSettings, *, started: float, content: bool = False,
                 sender: Any = None, stderr_fd: int = 2) -> None:
        from rpcspy.pump.observers.otel_sender import SenderProcess

        self.settings = settings
        self.mapper = SpanMapper(round(started, 6), content=content, parent=settings.traceparent)
        self.sender = sender if sender is not None else SenderProcess(settings)
        """Sends from a child process (rpcspy/pump/observers/otel_sender.py): the OTLP encoding and HTTP cost this one nothing."""
        self._stderr = stderr_fd
        self._noted = False

    def handle(self, event: Event, emit: Emit) -> None:
        if type(event) is Frame and (event.dir == "err" or event.data.startswith(SKIP_PREFIXES)):
            return  # the bulk of a session, which moves no span: one check
        self._take(event, emit)

    def _take(self, event: Event, emit: Emit) -> None:
        if isinstance(event, Start) and self.settings.traceparent is not None:
            emit(Note(0, event.t, "info", TRACEPARENT_NOTE + self.settings.traceparent.header()))
        spans = self.mapper.feed(event)
        if spans:
            self.sender.put(spans)
        if isinstance(event, Exit):  # every span is queued now: send them, then say so
            self._note(emit, event.t)

    def _note(self, emit: Emit, t: float) -> None:
        if self._noted:
            return
        self._noted = True
        self.sender.put(self.mapper.finish())
        self.sender.close(EXIT_WAIT)
        level, text = self.sender.summary()
        emit(Note(0, t, "warning" if level != "info" else "info", text))

    def flush(self) -> None:
        pass

    def close(self) -> None:
        spans = self.mapper.finish()
        if spans:
            self.sender.put(spans)
        self.sender.close(EXIT_WAIT)
        level, text = self.sender.summary()
        if level != "info" and self._stderr >= 0:  # said on stderr too: the recording may not have it
            try:
                os.write(self._stderr, f"rpcspy: {text}\n".encode("utf-8", "replace"))
            except OSError:
                pass


class LaggingOtelObserver(OtelObserver):
    """The same for a dispatcher that hands frames over as lines and lets observers emit when it gives
    them time (``Lines``/``Lagging`` in ``hub.py``): it is never called per frame; what it emits (the
    traceparent note, the summary) waits for :meth:`work` or :meth:`stop`."""

    def __init__(self, settings: ExportSettings, *, started: float, content: bool = False,
                 sender: Any = None, stderr_fd: int = 2) -> None:
        super().__init__(settings, started=started, content=content, sender=sender, stderr_fd=stderr_fd)
        self._held: list[Event] = []

    @property
    def behind(self) -> int:
        """Notes waiting to be emitted (the dispatcher then calls :meth:`work` soon)."""
        return len(self._held)

    def handle_lines(self, direction: str, t: float, first: int, lines: list[bytes], injected: bool) -> None:
        if direction == "err":
            return
        for i, line in enumerate(lines):
            if not line.startswith(SKIP_PREFIXES):
                cr = line.endswith(b"\r")
                frame = Frame(first + i, t, direction, line[:-1] if cr else line, True, cr, injected)  # type: ignore[arg-type]
                self._take(frame, self._held.append)

    def handle_batch(self, events: list[Event]) -> None:
        for event in events:
            if type(event) is Frame and (event.dir == "err" or event.data.startswith(SKIP_PREFIXES)):
                continue
            self._take(event, self._held.append)

    def work(self, emit: Emit, budget: int) -> None:
        held, self._held = self._held, []
        for event in held:
            emit(event)

    def stop(self, emit: Emit) -> None:
        self.work(emit, 0)
        self._note(emit, self.mapper.last_t)


def live_observer(settings: ExportSettings, *, started: float, content: bool = False) -> OtelObserver:
    """The live exporter for this dispatcher: one that emits per event, or a lagging one where the
    dispatcher offers that (it then needs no call per frame)."""
    from rpcspy.pump.forward import hub

    if getattr(hub, "Lagging", None) is not None and getattr(hub, "Lines", None) is not None:
        return LaggingOtelObserver(settings, started=started, content=content)
    return OtelObserver(settings, started=started, content=content)
