"""The live check at its own pace: it may fall behind the recording (never the other way round), says
where it stopped, and lists the same capped findings as ``rpcspy check`` on the recording."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from rpcspy.cli import main
from rpcspy.events import Exit, Finding, Note
from rpcspy.pump.forward.hub import Dispatcher
from rpcspy.pump.observers.check_observer import CheckObserver, CheckOptions
from rpcspy.pump.observers.recorder import Recorder
from rpcspy.recording import open_recording
from rpcspy.recording.format import FrameEntry
from rpcspy.recording.writer import RecordingWriter, make_header

BROKEN = (b'{"type":"message_update","message":{"role":"assistant","content":[]},'
          b'"assistantMessageEvent":{"type":"text_delta","contentIndex":0,"delta":"x"}}\n')
"""A delta with no message_start before it: every one breaks a rule (two findings a frame)."""


def session(path: Path, frames: int, *, work: bool, behind_frames: int | None = None, grace: float = 0.0,
            checked_first: int = 0) -> CheckObserver:
    """``frames`` broken deltas in chunks of 100 through a dispatcher with the recorder and the live check;
    ``work``: the check is given time after each chunk (else only the first ``checked_first`` chunks)."""
    check = CheckObserver(CheckOptions(dialect="pi-0.84", summary_fd=-1))
    if behind_frames is not None:
        check.behind_frames = behind_frames
    d = Dispatcher([Recorder(RecordingWriter(str(path), make_header(["pi"]), warn=pytest.fail)), check],
                   warn=pytest.fail, grace=grace)
    for n in range(frames // 100):
        d.data("a2c", n * 0.01, BROKEN * 100)
        if work or n < checked_first:
            while d.behind:
                d.work()
    d.event(Exit(0, frames * 0.01, 0))
    if work:
        while d.behind:
            d.work()
    d.close()
    return check


def entries(path: Path) -> list:
    return list(open_recording(str(path)).entries())


def offline(path: Path) -> tuple[int, list[tuple]]:
    result = CliRunner().invoke(main, ["check", "--format", "json", "--dialect", "pi-0.84", str(path)])
    rows = [json.loads(line) for line in result.stdout.splitlines() if line.startswith("{")]
    return result.exit_code, [(r["rule"], r["frame"], r["related"], r["message"]) for r in rows]


def test_a_rule_firing_on_every_frame_is_listed_up_to_the_cap_then_summarised(tmp_path: Path) -> None:
    rec = tmp_path / "r.jsonl"
    session(rec, 3000, work=True)
    got = entries(rec)
    findings = [e for e in got if isinstance(e, Finding)]
    seqs = [e.seq for e in got if isinstance(e, FrameEntry)]
    assert len(seqs) == 3000
    by_rule: dict[str, list[Finding]] = {}
    for f in findings:
        by_rule.setdefault(f.rule, []).append(f)
    for rule, listed in by_rule.items():  # the first 1000 one by one, then one with the count
        assert len(listed) == 1001, rule
        assert listed[-1].extra == {"more": 2000, "first_frame": seqs[1000], "last_frame": seqs[-1]}
        assert (listed[-1].frame, listed[-1].related) == (seqs[1000], seqs[-1])
    assert len(by_rule) == 3
    code, checked = offline(rec)
    assert code == 1
    assert sorted(checked) == sorted((f.rule, f.frame, f.related, f.message) for f in findings)  # live = offline


def test_a_check_that_falls_behind_stops_with_a_note_and_check_covers_the_rest(tmp_path: Path) -> None:
    rec = tmp_path / "r.jsonl"
    check = session(rec, 5000, work=False, behind_frames=1000, checked_first=3)
    got = entries(rec)
    seqs = [e.seq for e in got if isinstance(e, FrameEntry)]
    assert len(seqs) == 5000  # the recording is complete, whatever the check did
    notes = [e for e in got if isinstance(e, Note)]
    assert len(notes) == 1 and check.checked == seqs[299]  # three chunks of 100 checked
    assert notes[0].text.endswith(f"checked live up to seq {seqs[299]}; `rpcspy check` covers the rest")
    assert "fell 1,100 frames" in notes[0].text and notes[0].level == "info"
    live = [e for e in got if isinstance(e, Finding)]
    assert live and all(f.frame is not None and f.frame <= seqs[299] for f in live)
    code, checked = offline(rec)
    assert code == 1 and max(f[2] or 0 for f in checked) == seqs[-1]  # offline: to the last frame (a summary's)


def test_a_session_that_ends_with_the_check_behind_says_so(tmp_path: Path) -> None:
    rec = tmp_path / "r.jsonl"
    check = session(rec, 2000, work=False, checked_first=5)
    got = entries(rec)
    seqs = [e.seq for e in got if isinstance(e, FrameEntry)]
    notes = [e for e in got if isinstance(e, Note)]
    assert [n.text for n in notes] == ["the session ended with the live check 1,500 frames behind the recording: "
                                       f"checked live up to seq {seqs[499]}; `rpcspy check` covers the rest"]
    assert check.checked == seqs[499] and len(seqs) == 2000


def test_a_check_that_keeps_up_writes_no_note(tmp_path: Path) -> None:
    rec = tmp_path / "r.jsonl"
    session(rec, 500, work=False, grace=60.0)  # the grace at the end is enough to catch up
    got = entries(rec)
    assert not [e for e in got if isinstance(e, Note)]
    assert sum(isinstance(e, Finding) for e in got) == 3 * 500  # three rules a frame, under the cap


def test_a_proxied_stream_where_every_frame_breaks_a_rule_records_its_traffic_not_its_findings(
        tmp_path: Path) -> None:
    """100,000 deltas with no message_start through `rpcspy`: before, two findings a frame made a 58 MB
    recording of 10 MB of traffic (and a 27 s exit); now each rule lists 1,000 and sums up the rest."""
    import sys

    from tests.pump.proxyrun import run

    rec = tmp_path / "r.jsonl"
    count = 100_000
    agent = [sys.executable, "-c", f"import sys; sys.stdout.buffer.write({BROKEN!r} * {count})"]
    proc = run(rec, agent, b"", "--dialect", "pi-0.84", timeout=600)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == BROKEN * count
    got = entries(rec)
    assert sum(isinstance(e, FrameEntry) for e in got) == count
    assert any(isinstance(e, Exit) for e in got)
    findings = [e for e in got if isinstance(e, Finding)]
    rules = {f.rule for f in findings}
    assert len(findings) <= len(rules) * 1001
    notes = [e.text for e in got if isinstance(e, Note)]
    assert all("`rpcspy check` covers the rest" in n for n in notes), notes  # if the check fell behind
    assert rec.stat().st_size < 1.8 * len(BROKEN) * count  # the frames' entries and a bounded rest


def test_a_slice_of_work_is_bounded_in_bytes_and_frames_and_finds_the_same(tmp_path: Path,
                                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """One big chunk is checked in slices (WORK_BYTES, the frame budget; at least a frame each), numbered on
    where the last stopped: the recording has the same findings on the same frames as checked whole."""
    from rpcspy.pump.observers import check_observer

    def run(path: Path) -> tuple[list[tuple], int]:
        check = CheckObserver(CheckOptions(dialect="pi-0.84", summary_fd=-1))
        d = Dispatcher([Recorder(RecordingWriter(str(path), make_header(["pi"]), warn=pytest.fail)), check],
                       warn=pytest.fail)
        d.data("a2c", 0.5, BROKEN * 300)
        slices = 0
        while d.behind:
            before = check.behind
            d.work(budget=7)
            assert 1 <= before - check.behind <= 7 or check.behind == 0
            slices += 1
        d.event(Exit(0, 1.0, 0))
        d.close()
        return [(e.rule, e.frame) for e in entries(path) if isinstance(e, Finding)], slices

    whole, one = run(tmp_path / "whole.jsonl")
    monkeypatch.setattr(check_observer, "WORK_BYTES", 3 * (len(BROKEN) - 1))  # three lines (without LF)
    sliced, many = run(tmp_path / "sliced.jsonl")
    assert sliced == whole and whole
    assert one == 300 // 7 + 1 and many == 100  # the bytes bound: 3 frames a slice
