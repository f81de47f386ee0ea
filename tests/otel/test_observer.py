"""The live observer's two shapes (per event, or lines and batches with notes held for work/stop), with a stub sender."""

from __future__ import annotations

import json

from rpcspy.events import Event, Exit, Frame, Note, Start
from rpcspy.otel.config import settings_from_env
from rpcspy.otel.spans import SpanRecord
from rpcspy.pump.observers.otel_export import LaggingOtelObserver, OtelObserver, summary
from tests.paths import REPO

PARENT = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"


class Stub:
    def __init__(self) -> None:
        self.spans: list[SpanRecord] = []
        self.closed = 0

    def put(self, spans: list[SpanRecord]) -> None:
        self.spans += spans

    def close(self, timeout: float) -> None:
        self.closed += 1

    def summary(self) -> tuple[str, str]:
        return summary(len(self.spans), 0, 0, None, "http://x/v1/traces")


def _lines() -> list[bytes]:
    out = []
    for line in (REPO / "recordings" / "pi-1.5.2-basic.jsonl").read_bytes().split(b"\n"):
        if b'"dir":"a2c"' in line[:60] and b'"json":' in line:
            out.append(json.dumps(json.loads(line)["json"], separators=(",", ":")).encode())
    return out


def test_per_event_observer_emits_the_traceparent_and_the_summary() -> None:
    stub = Stub()
    obs = OtelObserver(settings_from_env({"TRACEPARENT": PARENT}), started=0.0, sender=stub)
    emitted: list[Event] = []
    obs.handle(Start(1, 0.0, 1, ["pi"]), emitted.append)
    for i, data in enumerate(_lines()):
        obs.handle(Frame(i + 2, 0.01 * i, "a2c", data), emitted.append)
    obs.handle(Exit(999, 2.0, 0), emitted.append)
    obs.close()
    assert [type(e) for e in emitted] == [Note, Note]
    assert isinstance(emitted[0], Note) and emitted[0].text == "otel: traceparent " + PARENT
    assert isinstance(emitted[1], Note) and emitted[1].text.startswith("otel: 9 span(s) exported")
    assert sorted(s.name for s in stub.spans).count("invoke_agent pi") == 3


def test_lagging_observer_takes_lines_and_emits_at_work_and_stop() -> None:
    stub = Stub()
    obs = LaggingOtelObserver(settings_from_env({"TRACEPARENT": PARENT}), started=0.0, sender=stub)
    obs.handle_batch([Start(1, 0.0, 1, ["pi"])])
    assert obs.behind == 1  # the traceparent note waits for the dispatcher's time
    emitted: list[Event] = []
    obs.work(emitted.append, 100)
    assert obs.behind == 0 and len(emitted) == 1
    lines = _lines()
    obs.handle_lines("a2c", 0.5, 2, [line + b"\r" if i == 0 else line for i, line in enumerate(lines)], False)
    obs.handle_lines("err", 0.5, 100, [b"noise"], False)
    obs.stop(emitted.append)
    assert isinstance(emitted[-1], Note) and emitted[-1].text.startswith("otel: 9 span(s) exported")
    assert {s.name for s in stub.spans} >= {"rpcspy.session pi", "invoke_agent pi", "execute_tool bash"}
    assert stub.closed == 1
