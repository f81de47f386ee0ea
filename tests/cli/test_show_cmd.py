"""``rpcspy show``: the timeline, --frames, --raw byte for byte, filters, errors."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from rpcspy.cli import main
from rpcspy.recording.transcripts import PARTIAL_MARK
from tests.render.sample import write_sample

ROOT = Path(__file__).resolve().parents[2]
T04 = ROOT / "tests/golden/inputs/pi073_04_framing_and_errors.jsonl"
MISUSE = ROOT / "recordings" / "pi-0.73.1-misuse.jsonl"


@pytest.fixture(scope="module")
def sample(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_sample(tmp_path_factory.mktemp("show") / "sample.jsonl")


def show(*args: str) -> tuple[int, str, bytes]:
    res = CliRunner().invoke(main, ["show", *args], env={"COLUMNS": "100"})
    return res.exit_code, res.output, res.stdout_bytes


def test_timeline_in_a_pipe_is_plain_and_100_wide(sample: Path) -> None:
    code, out, _ = show(str(sample))
    assert code == 0, out
    lines = out.splitlines()
    assert lines[0] == "sample.jsonl: proxy by rpcspy 0.1.0, 2026-11-22T08:00:00.000000Z: pi --mode rpc"
    assert "\x1b" not in out and max(len(x) for x in lines) <= 100
    assert "    1.100     #5 ← ✓ prompt #p1 (100 ms)" in lines
    assert any("⚠ warning correlation.idless_error" in x for x in lines)
    assert lines[-1] == "── 26 items · 3 findings"


def test_colour_when_asked(sample: Path) -> None:
    _, out, _ = show(str(sample), "--color", "always")
    assert "\x1b[" in out


class _Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize(("no_color", "option", "coloured"), [
    ("", "auto", True), ("1", "auto", False), ("1", "always", True), ("", "never", False)])
def test_no_color_is_honoured_on_a_terminal_unless_colour_is_forced(monkeypatch: pytest.MonkeyPatch, no_color: str,
                                                                   option: str, coloured: bool) -> None:
    from rpcspy.cli.recfile import make_console

    monkeypatch.setenv("NO_COLOR", no_color)
    monkeypatch.setenv("TERM", "xterm-256color")
    out = _Tty()
    make_console(out, color=option, width=80).print("[red]red[/] [bold]bold[/]", markup=True)
    assert ("\x1b[31m" in out.getvalue()) is coloured
    assert ("\x1b[1m" in out.getvalue()) is (option != "never")  # NO_COLOR is about colour, not bold


def test_frames_mode_has_a_line_per_frame(sample: Path) -> None:
    _, out, _ = show(str(sample), "--frames", "--type", "message_update")
    rows = [x for x in out.splitlines() if x.split()[2:4] == ["←", "message_update"]]
    assert len(rows) == 11
    assert out.splitlines()[-1] == "── 11 items · 29 hidden by the filter · 1 finding"


def test_filters_apply(sample: Path) -> None:
    _, out, _ = show(str(sample), "--with-findings")
    assert out.splitlines()[-1] == "── 3 items · 23 hidden by the filter · 3 findings"
    assert "[--with-findings]" in out.splitlines()[0]
    _, out, _ = show(str(sample), "--dir", "err")
    assert "stderr  2 lines" in out and "prompt" not in out
    code, out, _ = show(str(sample), "--time", "x")
    assert code == 2 and "bad --time" in out


@pytest.mark.skipif(not MISUSE.exists(), reason="recordings/ is not in this checkout")
def test_with_findings_keeps_a_frame_whose_finding_comes_after_a_later_frame() -> None:
    """misuse.prompt_while_streaming (finding #26) is about prompt #24 but written after frame #25."""
    _, out, _ = show("--with-findings", str(MISUSE))
    lines = out.splitlines()
    assert any(x.split()[1:4] == ["#24", "→", "prompt"] for x in lines)
    assert any(x.split()[1:5] == ["#26", "⚠", "warning", "misuse.prompt_while_streaming:"] for x in lines)
    assert lines[-1] == "── 7 items · 21 hidden by the filter · 6 findings"
    _, _, raw = show("--raw", "--with-findings", str(MISUSE))
    assert len(raw.splitlines()) == 6 and b'"id": "p2", "type": "prompt"' in raw


def test_raw_agent_stdout_byte_for_byte_from_a_recording(sample: Path) -> None:
    from rpcspy.recording import open_recording

    expected = b"".join(f.raw() for f in open_recording(sample).frames() if f.dir == "a2c")
    code, _, raw = show("--raw", "--dir", "a2c", str(sample))
    assert code == 0 and raw == expected
    assert raw.endswith(b'{"type":"agent_start"')  # the last line had no LF, and still has none


def test_raw_rebuilds_a_transcripts_streams_exactly() -> None:
    want: dict[str, bytes] = {"in": b"", "out": b""}
    with open(T04, "rb") as f:
        for line in f:
            rec = json.loads(line)
            if rec["dir"] in want:
                raw = rec["raw"].encode("utf-8", "surrogateescape")
                if raw.endswith(PARTIAL_MARK):  # the harness's note for a write without LF: no LF on the wire
                    want[rec["dir"]] += raw[: -len(PARTIAL_MARK)]
                else:
                    want[rec["dir"]] += raw + b"\n"
    assert show("--raw", "--dir", "agent", str(T04))[2] == want["out"]
    client = show("--raw", "--dir", "c2a", str(T04))[2]
    assert client == want["in"] and b"\r\n" in client and b"\xff" in client


def test_raw_with_type_filter(sample: Path) -> None:
    _, _, raw = show("--raw", "--type", "prompt", str(sample))
    lines = raw.splitlines()
    assert [json.loads(x)["type"] for x in lines] == ["prompt", "response"]


def test_check_runs_the_checker() -> None:
    code, out, _ = show("--check", "--seq", "1..13", str(T04))
    assert code == 0, out
    assert "framing.crlf" in out and "framing.not_json" in out


def test_unreadable_recordings_fail_with_a_reason(tmp_path: Path) -> None:
    code, out, _ = show(str(tmp_path / "missing.jsonl"))
    assert code == 2 and "no such file" in out
    bad = tmp_path / "bad.jsonl"
    bad.write_text("hello\n")
    code, out, _ = show(str(bad))
    assert code == 2 and "not an rpcspy recording" in out


def test_a_closed_pipe_is_not_an_error(tmp_path: Path) -> None:
    big = T04
    proc = subprocess.Popen([sys.executable, "-m", "rpcspy", "show", "--frames", str(big)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT)
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.read(100)
    proc.stdout.close()
    err = proc.stderr.read()
    assert proc.wait(timeout=30) == 0
    assert b"Traceback" not in err


def test_a_bad_time_says_what_to_write_not_pythons_message() -> None:
    r = CliRunner().invoke(main, ["show", "--time", "abc", str(MISUSE)])
    assert r.exit_code == 2
    assert "bad --time 'abc': 'abc' is not a number; use FROM..TO in seconds" in r.stderr
    assert "could not convert" not in r.stderr
