"""recording.*: truncated, damaged, empty and killed sessions do not look clean (check, show, stats)."""

from __future__ import annotations

import json
import signal
import subprocess
import time
from pathlib import Path

from click.testing import CliRunner

from rpcspy.checker.recording import MAX_LINES, RecordingAudit
from rpcspy.cli import main
from rpcspy.events import Exit, Frame
from rpcspy.recording import open_recording
from tests.pump.proxyrun import RPCSPY, fake

HEADER = ('{"format":"rpcspy-recording","version":1,"rpcspy":"t","argv":["a"],"cwd":"/","started":"",'
          '"started_unix":0,"pid":1}\n')
FRAME = '{"kind":"frame","seq":%d,"t":0.%d,"dir":"c2a","json":{"type":"get_state","id":"%d"}}\n'
EXIT = '{"kind":"exit","seq":99,"t":1.0,"code":0}\n'


def _write(path: Path, *lines: str) -> str:
    path.write_text(HEADER + "".join(lines), encoding="utf-8")
    return str(path)


def _check(path: str, *args: str) -> tuple[int, list[dict]]:
    res = CliRunner().invoke(main, ["check", "--format", "json", "--fail-on", "warning", *args, path])
    found = [json.loads(line) for line in res.stdout.splitlines() if line.startswith("{")]
    return res.exit_code, found


def _rules(found: list[dict]) -> list[str]:
    return [f["rule"] for f in found if f["rule"].startswith("recording.")]


def test_a_complete_recording_is_clean(tmp_path: Path) -> None:
    code, found = _check(_write(tmp_path / "r.jsonl", FRAME % (1, 1, 1), EXIT))
    assert _rules(found) == []


def test_a_killed_session_is_flagged_by_check_and_show(tmp_path: Path) -> None:
    """A real proxy killed with SIGKILL mid-session: no exit entry (and perhaps a cut line)."""
    rec = tmp_path / "r.jsonl"
    proc = subprocess.Popen([*RPCSPY, "-o", str(rec), "--no-control", "--", *fake("echo")], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(b'{"type":"get_state","id":"1"}\n')
    proc.stdin.flush()
    proc.stdout.readline()
    for _ in range(200):  # until the observer process has written the frame
        if b'"seq"' in rec.read_bytes():
            break
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)
    code, found = _check(str(rec))
    assert code == 1 and "recording.no_exit" in _rules(found)
    show = CliRunner().invoke(main, ["show", str(rec)])
    assert show.exit_code == 0 and "recording.no_exit" in show.stdout
    # a line cut by the kill
    cut = tmp_path / "cut.jsonl"
    cut.write_bytes(rec.read_bytes() + b'{"kind":"frame","seq":50,"t":0.5,"dir":"a2c","json":{"ty')
    code, found = _check(str(cut))
    assert code == 1 and _rules(found) == ["recording.truncated", "recording.no_exit"]
    assert [f["extra"].get("line") for f in found if f["rule"] == "recording.truncated"] == [
        len(cut.read_bytes().splitlines())]
    assert "recording.truncated" in CliRunner().invoke(main, ["show", str(cut)]).stdout


def test_an_empty_recording_is_flagged(tmp_path: Path) -> None:
    path = _write(tmp_path / "r.jsonl")
    code, found = _check(path)
    assert code == 1 and _rules(found) == ["recording.no_frames", "recording.no_exit"]
    assert code == 1 and _check(path, "--ignore", "recording.no_exit")[1][0]["rule"] == "recording.no_frames"
    show = CliRunner().invoke(main, ["show", path])
    assert "recording.no_frames" in show.stdout
    stats = CliRunner().invoke(main, ["stats", "--format", "json", path])
    assert "recording.no_frames" in stats.stdout


def test_damaged_lines_are_findings_with_their_line(tmp_path: Path) -> None:
    lines = [FRAME % (n, n, n) for n in range(1, 4)]
    path = _write(tmp_path / "r.jsonl", lines[0], "garbage\n", lines[1], '{"kind":"frame","seq":"x"}\n', lines[2],
                  EXIT)
    code, found = _check(path)
    bad = [f for f in found if f["rule"] == "recording.unreadable_line"]
    assert code == 1 and [f["extra"]["line"] for f in bad] == [3, 5]
    assert [f.data for f in open_recording(path).frames()] == [ln.split('"json":')[1][:-2].encode() for ln in lines]


def test_a_split_line_beside_a_doubled_one_is_read_line_by_line(tmp_path: Path) -> None:
    """One entry over two lines and two entries on one line: as many lines as entries, yet no line holds
    its own entry. Every dialect (a typed block for pi-0.84, a plain one for auto) says which lines are
    unreadable and checks only the frame on a line of its own; a typed block used to misalign and crash."""
    path = _write(tmp_path / "r.jsonl", '{"kind":"frame","seq":1,"t":0.1,"dir":"c2a"\n',
                  '"json":{"id":"s1","type":"get_state"}}\n',
                  '{"kind":"note","seq":2,"t":0.2,"level":"info","text":"a"},'
                  '{"kind":"note","seq":3,"t":0.3,"level":"info","text":"b"}\n',
                  '{"kind":"frame","seq":4,"t":0.4,"dir":"c2a","json":{"id":"s2","type":"get_state"}}\n')
    runs = [_check(path, "--dialect", d) for d in ("pi-0.84", "auto")]
    assert runs[0] == runs[1]
    code, found = runs[0]
    bad = [f["extra"]["line"] for f in found if f["rule"] == "recording.unreadable_line"]
    unanswered = [f["message"] for f in found if f["rule"] == "correlation.unanswered"]
    assert code == 1 and bad == [2, 3, 4] and len(unanswered) == 1 and '"s2"' in unanswered[0]


def test_many_damaged_lines_are_summed_up() -> None:
    class P:
        def __init__(self, n: int) -> None:
            self.line, self.reason, self.truncated = n, "unreadable line", False

    audit = RecordingAudit()
    audit.feed(Frame(1, 0.1, "c2a", b"{}"))
    audit.feed(Exit(2, 0.2, 0))
    found = audit.finish([P(n) for n in range(2, 2 + MAX_LINES + 5)])
    assert len(found) == MAX_LINES + 1 and found[-1].extra == {"more": 5}
    assert [f.seq for f in found] == list(range(3, 3 + MAX_LINES + 1))


def test_transcripts_are_not_expected_to_have_an_exit_entry() -> None:
    audit = RecordingAudit("raw-transcript")
    audit.feed(Frame(1, 0.1, "c2a", b"{}"))
    assert audit.finish([]) == []
