"""Session numbers: latency percentiles, TTFT, throughput, snapshot bytes, findings."""

from __future__ import annotations

import json

import pytest

from rpcspy.events import Exit, Finding, Frame
from rpcspy.stats import Stats, percentile
from tests.render.sample import sample_events


def test_percentile_nearest_rank() -> None:
    assert percentile([5.0], 95) == 5.0
    values = [float(i) for i in range(1, 101)]
    assert percentile(values, 50) == 50.0 and percentile(values, 95) == 95.0 and percentile(values, 100) == 100.0
    assert percentile([3.0, 1.0, 2.0], 50) == 2.0


@pytest.fixture(scope="module")
def report() -> dict:
    stats = Stats()
    for e in sample_events():
        stats.feed(e)
    return stats.report()


def test_commands_latency_errors_and_unanswered(report: dict) -> None:
    c = report["commands"]
    assert c["prompt"] == {"count": 1, "responses": 1, "errors": 0, "unanswered": 0,
                           "p50_ms": 100.0, "p95_ms": 100.0, "max_ms": 100.0}
    assert c["nope"]["errors"] == 1 and c["nope"]["p50_ms"] == 10.0
    assert c["get_state"]["unanswered"] == 1 and c["get_state"]["p50_ms"] is None
    assert "extension_ui_response" not in c  # an answer, not a command


def test_run_ttft_tokens_and_rates(report: dict) -> None:
    (run,) = report["runs"]
    assert run["start_s"] == 1.11 and run["duration_ms"] == 1200.0
    assert run["ttft_ms"] == 150.0  # agent_start 1.11 -> first thinking delta 1.26
    assert run["output_tokens"] == 9
    assert run["chars"] == len("User wants hi.") + len("Hel") + len("lo \u2028world") + len("!") + len('{"command":"ls"}')
    assert run["stream_ms"] == 240.0  # first delta 1.26 -> message_end 1.5
    assert run["tokens_per_s"] == round(9 / 0.24, 1)
    assert run["stop_reasons"] == ["toolUse"]


def test_snapshot_bytes_are_measured_exactly(report: dict) -> None:
    partial = message = 0
    for e in sample_events():
        if isinstance(e, Frame) and e.data.startswith(b'{"type":"message_update"'):
            obj = json.loads(e.data)
            partial += len(json.dumps(obj["assistantMessageEvent"]["partial"], separators=(",", ":"),
                                      ensure_ascii=False).encode())
            message += len(json.dumps(obj["message"], separators=(",", ":"), ensure_ascii=False).encode())
    mu = report["message_update"]
    assert (mu["partial_bytes"], mu["message_bytes"]) == (partial, message) and partial > 0
    a2c = report["frames"]["a2c"]["bytes"]
    assert mu["snapshot_share"] == round((partial + message) / a2c, 4)


def test_types_stderr_findings_exit(report: dict) -> None:
    assert report["types"]["a2c"]["message_update"]["count"] == 11
    assert report["types"]["a2c"]["invalid"]["count"] == 2
    assert report["types"]["c2a"]["extension_ui_response"]["count"] == 1
    assert report["stderr"] == {"lines": 2, "bytes": len(b"Debugger listening: none")
                                + len(b"warning: \x1b[31mcolour\x1b[0m and bad \xff byte")}
    assert report["findings"]["total"] == 3
    assert report["findings"]["by_rule"]["framing.not_json"] == {"count": 1, "severity": "error"}
    assert report["findings"]["by_severity"] == {"error": 1, "info": 1, "warning": 1}
    assert report["exit"] == {"code": 0, "signal": None, "t": 3.2}
    assert report["duration_s"] == 3.2


def test_repeated_and_unmatched_responses() -> None:
    s = Stats()
    s.feed(Frame(1, 0.0, "c2a", b'{"id":"p","type":"prompt"}'))
    s.feed(Frame(2, 0.1, "a2c", b'{"id":"p","type":"response","command":"prompt","success":true}'))
    s.feed(Frame(3, 0.2, "a2c", b'{"id":"p","type":"response","command":"prompt","success":false}'))
    s.feed(Frame(4, 0.3, "a2c", b'{"id":"q","type":"response","command":"x","success":true}'))
    s.feed(Finding(5, 0.3, "r", "warning", "g", "m"))
    s.feed(Exit(6, 0.4, 137, 9))
    r = s.report()
    assert r["commands"]["prompt"]["responses"] == 1 and r["commands"]["prompt"]["errors"] == 0
    assert r["unmatched_responses"] == 1 and r["exit"]["signal"] == 9
    json.dumps(r)
