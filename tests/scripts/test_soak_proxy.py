"""bench/soak_proxy.py's helpers: the rpcspy processes it samples (also an older tree's, run with -P), what it
reads of each recording and says of each proxy, and its summaries over the proxies."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType, SimpleNamespace

from rpcspy.events import Frame, Note
from rpcspy.pump.observers.endnote import incomplete_text
from rpcspy.recording.format import encode_entry
from tests.render.sample import sample_events, write_sample
from tests.support.bench_scripts import load_bench


def test_a_tree_is_run_with_its_own_rpcspy_and_still_sampled() -> None:
    soak = load_bench("soak_proxy")
    cmd = soak.rpcspy_command("/tmp/old")
    assert cmd[:2] == ["env", "PYTHONPATH=/tmp/old"] and cmd[-3:] == ["-P", "-m", "rpcspy"]
    exec_d = "\0".join(cmd[2:] + ["-o", "r.jsonl", "--", "python", "agent.py"]).encode() + b"\0"  # after env's exec
    assert soak.runs_rpcspy(exec_d)
    assert soak.runs_rpcspy(b"/usr/bin/python3\0-m\0rpcspy\0watch\0123\0")
    assert not soak.runs_rpcspy(b"/usr/bin/python3\0/x/fake_agent.py\0soak\0")
    assert not soak.runs_rpcspy(b"env\0PYTHONPATH=/x\0python3\0-m\0other\0")


def test_gap_share_summary() -> None:
    soak = load_bench("soak_proxy")
    assert soak.gap_summary([0.0, 0.0, 0.077, 0.0, 0.36]) == \
        "gap share per proxy: 0.0 (0.0-36.0) % over 5 proxies; recorded whole: 3 of 5"
    assert soak.gap_summary([0.188]) == "gap share per proxy: 18.8 (18.8-18.8) % over 1 proxies; recorded whole: 0 of 1"


def _run(soak: ModuleType, rec: Path, size: int, frames: int) -> object:
    return soak.Run(0, rec, SimpleNamespace(returncode=0), expected="h", size=size, got=size, digest="h",
                    sent_frames=frames, exit_after=0.25)


def test_a_proxys_line_says_frames_recorded_of_sent_gaps_the_exit_entry_and_the_exit_time(tmp_path: Path) -> None:
    """What matters since the tape is gone: no tape or spool figures (always 0), but frames recorded against
    frames sent, the gaps, whether the recording ends with the exit entry, and how long rpcspy took to exit."""
    soak = load_bench("soak_proxy")
    path = write_sample(tmp_path / "s.jsonl")
    sent = [e for e in sample_events() if isinstance(e, Frame) and e.dir == "a2c" and not e.injected]
    rec = soak.recorded(path)
    assert (rec.frames, rec.gap_notes, rec.gap_bytes, rec.ended, rec.incomplete) == (len(sent), 0, 0, True, False)
    line = soak.run_line(_run(soak, path, rec.frame_bytes, len(sent)), rec)
    assert f"recorded {len(sent)} of {len(sent)} frames sent, {rec.frame_bytes} B + 0 gaps 0 B = forwarded, " \
           "ends with exit; exit 0 0.25s after the client's EOF" in line
    assert "tape" not in line and "spool" not in line


def test_a_recording_with_a_gap_and_the_proxys_end_note_says_so(tmp_path: Path) -> None:
    soak = load_bench("soak_proxy")
    lines = write_sample(tmp_path / "s.jsonl").read_bytes().splitlines(keepends=True)
    gap = Note(seq=900, t=9.0, level="warning", text="observers fell behind", dir="a2c", dropped_bytes=500)
    end = Note(seq=901, t=9.0, level="warning", text=incomplete_text("the observer process was killed (SIGKILL)",
                                                                          {"a2c": 1}))
    path = tmp_path / "gap.jsonl"
    path.write_bytes(b"".join(lines[:-1]) + encode_entry(gap) + b"\n" + encode_entry(end) + b"\n" + lines[-1])
    rec = soak.recorded(path)
    assert (rec.gap_notes, rec.gap_bytes, rec.ended, rec.incomplete) == (1, 500, True, True)
    line = soak.run_line(_run(soak, path, rec.frame_bytes + 500, rec.frames + 3), rec)
    assert f"recorded {rec.frames} of {rec.frames + 3} frames sent" in line
    assert "+ 1 gaps 500 B = forwarded, ends with exit, says it is incomplete" in line


def test_exit_time_summary() -> None:
    soak = load_bench("soak_proxy")
    assert soak.exit_summary([0.5, 2.5, 1.0]) == \
        "exit after the client's EOF: 1.00 (0.50-2.50) s over 3 proxies; over 2 s: 1"
