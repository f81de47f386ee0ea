"""The live checker observer: findings into the event stream, the report target, the exit summary."""

from __future__ import annotations

import os
import select
import time
from pathlib import Path

from rpcspy.events import Event, Exit, Finding, Frame, Note
from rpcspy.pump.observers.check_observer import CheckObserver, CheckOptions

IMAGE = b'{"type":"image","source":{"type":"base64","mediaType":"image/png","data":"aGk="}}'


def frame(seq: int, direction: str, data: bytes, cr: bool = False) -> Frame:
    return Frame(seq, seq * 0.1, direction, data, True, cr)  # type: ignore[arg-type]


def drive(observer: CheckObserver, *events: Event) -> list[Event]:
    out: list[Event] = []
    for event in events:
        observer.handle(event, out.append)
    return out


def read_lines(fd: int, count: int, timeout: float = 60.0) -> bytes:
    """Read ``fd`` (a pty master) until ``count`` lines arrived: a pty hands its bytes over in pieces."""
    data, deadline = b"", time.monotonic() + timeout
    while data.count(b"\n") < count:
        left = deadline - time.monotonic()
        if left <= 0 or not select.select([fd], [], [], left)[0]:
            break  # the assert below shows what did arrive
        data += os.read(fd, 65536)
    return data


def test_findings_go_into_the_stream_and_the_report(tmp_path: Path) -> None:
    report, summary = tmp_path / "report.txt", tmp_path / "summary.txt"
    fd = os.open(summary, os.O_WRONLY | os.O_CREAT, 0o600)
    options = CheckOptions(report=str(report), min_severity="error", summary_fd=fd)
    obs = CheckObserver(options)
    emitted = drive(obs, frame(1, "c2a", b'{"id":"a","type":"get_state"}', cr=True),
                    Note(2, 0.2, "info", "not a frame"),
                    frame(3, "c2a", b'{"id":"b","type":"bogus"}'),
                    frame(4, "a2c", b'{"id":"a","type":"response","command":"get_state","success":false,"error":"x"}'),
                    Exit(5, 1.0, 0))
    obs.close()
    os.close(fd)
    assert all(isinstance(e, Finding) for e in emitted)
    assert [(f.rule, f.frame) for f in emitted] == [  # type: ignore[union-attr]
        ("framing.crlf", 1), ("schema.unknown_type", 3), ("correlation.unanswered", 3)]
    assert options.counts == {"warning": 2, "error": 1}
    assert report.read_text().splitlines() == [
        "rpcspy: error schema.unknown_type at frame 3 c2a (t=0.300s): unknown command type 'bogus' in any dialect "
        "[$.type]"]  # --report-level error; the dialect was never detected
    assert summary.read_text().startswith("rpcspy: protocol check: 1 error(s), 2 warning(s), 0 info (dialect auto)")
    assert drive(obs, Exit(6, 2.0, 0)) == []  # finish runs once


def test_findings_about_earlier_frames_once_the_dialect_is_known(tmp_path: Path) -> None:
    report = tmp_path / "report.txt"
    obs = CheckObserver(CheckOptions(report=str(report), summary_fd=os.open(os.devnull, os.O_WRONLY)))
    before = drive(obs, frame(1, "c2a", b'{"id":"p","type":"prompt","message":"hi","images":[' + IMAGE + b"]}"),
                   frame(2, "a2c", b'{"id":"p","type":"response","command":"prompt","success":true}'))
    assert before == []  # the Feb-2026 doc allows this image form: wait for the dialect
    late = drive(obs, frame(3, "a2c", b'{"type":"agent_settled"}'))
    obs.close()
    os.close(obs.options.summary_fd)
    assert late and {(f.frame, f.dir) for f in late} == {(1, "c2a")}  # type: ignore[union-attr]
    assert {f.rule for f in late if f.severity == "error"} == {"schema.missing_field"}  # type: ignore[union-attr]
    text = report.read_text()
    assert "rpcspy: dialect pi-0.84 (frame 3: `agent_settled` event: pi >= 0.84)" in text
    assert "schema.missing_field at frame 1 c2a" in text


def test_no_summary_without_errors(tmp_path: Path) -> None:
    summary = tmp_path / "summary.txt"
    fd = os.open(summary, os.O_WRONLY | os.O_CREAT, 0o600)
    obs = CheckObserver(CheckOptions(summary_fd=fd, ignore=frozenset({"correlation.unanswered"})))
    emitted = drive(obs, frame(1, "c2a", b'{"id":"a","type":"get_state"}', cr=True), Exit(2, 1.0, 0))
    obs.close()
    os.close(fd)
    assert [f.rule for f in emitted] == ["framing.crlf"]  # type: ignore[union-attr]
    assert summary.read_text() == ""


def test_report_on_a_terminal_is_coloured_by_severity(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.setenv("TERM", "xterm")
    master, slave = os.openpty()
    try:
        obs = CheckObserver(CheckOptions(report="stderr", min_severity="warning", summary_fd=slave))
        drive(obs, frame(1, "c2a", b'{"id":"b","type":"bogus"}'),
              frame(2, "c2a", b'{"id":"c","type":"get_state"}', cr=True))
        obs.close()
        text = read_lines(master, 2).decode()
    finally:
        os.close(master)
        os.close(slave)
    lines = text.splitlines()
    assert lines[0].startswith("\x1b[1;31mrpcspy: error schema.unknown_type at frame 1 c2a")
    assert lines[0].endswith("\x1b[0m")
    assert lines[1].startswith("\x1b[33mrpcspy: warning framing.crlf at frame 2 c2a")
