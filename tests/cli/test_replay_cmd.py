"""`rpcspy replay` as a process: answers on stdin/stdout, exits like the recording, starts fast."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner

from rpcspy.cli.replay_cmd import command
from rpcspy.recording.reader import open_recording
from tests.paths import DATA, REPO
from tests.replay.helpers import Rec

T = str(DATA / "transcripts/structured")
PY = [sys.executable, "-m", "rpcspy", "replay"]


def run(args: list[str], stdin: bytes, timeout: float = 30) -> subprocess.CompletedProcess:
    return subprocess.run(PY + args, input=stdin, capture_output=True, timeout=timeout)


def test_answers_with_live_ids_and_reports_unconsumed():
    p = run(["--speed", "0", f"{T}/01_basic_text_prompt.jsonl"], b'{"id":"mine","type":"get_state"}\n')
    assert p.returncode == 0
    first = json.loads(p.stdout.split(b"\n")[0])
    assert first["id"] == "mine" and first["command"] == "get_state" and first["success"] is True
    assert b"6 recorded client frame(s) not consumed" in p.stderr


def _ids(stdout: bytes) -> list:
    return [json.loads(line).get("id") for line in stdout.splitlines() if json.loads(line).get("type") == "response"]


def test_polled_commands_sent_at_once_keep_their_ids():
    """--reuse: all three answers are owed before the first is played; each gets its own id."""
    stdin = b'{"id":"A","type":"get_state"}\n{"id":"A2","type":"get_state"}\n{"id":"A3","type":"get_state"}\n'
    p = run(["--speed", "0", "--reuse", str(REPO / "recordings/pi-0.73.1-basic.jsonl")], stdin)
    assert p.returncode == 0 and _ids(p.stdout) == ["A", "A2", "A3"]


def test_recorded_client_reusing_an_id(tmp_path: Path):
    r = Rec()
    for k, t in enumerate((1.0, 2.0)):
        r.at(t).c({"id": "req", "type": "get_state"})
        r.a({"id": "req", "type": "response", "command": "get_state", "success": True, "data": {"n": k}}, dt=0.01)
    path = r.at(3.0).eof().exit(0).write(tmp_path / "dup.jsonl")
    p = run(["--speed", "0", str(path)], b'{"id":"A","type":"get_state"}\n{"id":"A2","type":"get_state"}\n')
    assert p.returncode == 0 and _ids(p.stdout) == ["A", "A2"]
    assert [json.loads(line)["data"]["n"] for line in p.stdout.splitlines()] == [0, 1]


def _answers_after_both(command: dict) -> Rec:
    """Two ``command``s, then both answers (``data.n`` 0 and 1, in that order)."""
    r = Rec()
    r.at(1.0).c(command)
    r.at(2.0).c(command)
    for k in (0, 1):
        r.a({**({"id": command["id"]} if "id" in command else {}), "type": "response", "command": "get_state",
             "success": True, "data": {"n": k}}, dt=0.01)
    return r.at(3.0).eof().exit(0)


def _answered(stdout: bytes) -> list[tuple[str, int]]:
    return [(f.get("id"), f["data"]["n"]) for f in map(json.loads, stdout.splitlines()) if f["type"] == "response"]


def test_idless_answers_recorded_after_a_later_command_keep_their_order(tmp_path: Path):
    """Both id-less answers follow the second command: the first answers the first command (as check,
    show and stats pair them), so the live client's ``x`` hears back first, with the first answer."""
    path = _answers_after_both({"type": "get_state"}).write(tmp_path / "idless.jsonl")
    p = run(["--speed", "0", str(path)], b'{"id":"x","type":"get_state"}\n{"id":"y","type":"get_state"}\n')
    assert p.returncode == 0 and b"diverg" not in p.stderr
    assert _answered(p.stdout) == [("x", 0), ("y", 1)]


def test_an_id_reused_while_waiting_answers_the_older_command_first(tmp_path: Path):
    """The recorded client reused ``r`` before its answer: the first answer is the first command's."""
    path = _answers_after_both({"id": "r", "type": "get_state"}).write(tmp_path / "reused.jsonl")
    p = run(["--speed", "0", str(path)], b'{"id":"x","type":"get_state"}\n{"id":"y","type":"get_state"}\n')
    assert p.returncode == 0 and b"diverg" not in p.stderr
    assert _answered(p.stdout) == [("x", 0), ("y", 1)]


def test_omp_ready_sent_before_any_command():
    """omp's recorded ready came after the client's first command; a client may wait for it first."""
    proc = subprocess.Popen(PY + ["--speed", "1", str(REPO / "recordings/omp-18.2.3-basic.jsonl")],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    try:
        import select

        assert select.select([proc.stdout], [], [], 10)[0], "no ready before the first command"
        assert json.loads(proc.stdout.readline())["type"] == "ready"
        proc.stdin.write(b'{"id":"mine","type":"get_state"}\n')
        proc.stdin.close()
        rest = [json.loads(line) for line in proc.stdout]
    finally:
        proc.kill()
        proc.wait(10)
    assert [f["type"] for f in rest].count("ready") == 0
    assert {"id": "mine", "type": "response"}.items() <= rest[2].items()


def test_strict_exit_status_and_report_file(tmp_path: Path):
    report = tmp_path / "r.json"
    p = run(["--strict", "--speed", "0", "--report", str(report), f"{T}/01_basic_text_prompt.jsonl"],
            b'{"id":"x","type":"prompt","message":"other"}\n{"id":"s1","type":"get_state"}\n')
    assert p.returncode == 3
    assert json.loads(p.stdout)["error"].startswith("rpcspy replay: no recorded match")
    rep = json.loads(report.read_text())
    assert rep["final"] and rep["divergences"][0]["path"] == "$.message" and rep["matched"] == 0


def test_exit_code_from_recording():
    stdin = b"".join(f.raw() for f in open_recording(f"{T}/05_null_frame_crash.jsonl").frames() if f.dir == "c2a")
    p = run(["--speed", "0", f"{T}/05_null_frame_crash.jsonl"], stdin)
    assert p.returncode == 1 and b"TypeError" in p.stderr
    q = run(["--speed", "0", "--no-stderr", f"{T}/05_null_frame_crash.jsonl"], stdin)
    assert b"TypeError" not in q.stderr


def test_records_the_replay_session(tmp_path: Path):
    out = tmp_path / "replay.jsonl"
    run(["--speed", "0", "-o", str(out), f"{T}/01_basic_text_prompt.jsonl"], b'{"id":"s1","type":"get_state"}\n')
    rec = open_recording(out)
    assert rec.header.mode == "replay" and rec.header.source.endswith("01_basic_text_prompt.jsonl")
    assert [f.dir for f in rec.frames()] == ["c2a", "a2c"]


def test_the_first_command_is_answered_at_once():
    """The replay answers the first command as soon as it comes, whatever else the recording holds.

    How fast (first byte after spawn against ``cat``) is measured in bench/bench_replay.py, not here:
    timed assertions flake on a loaded machine.
    """
    proc = subprocess.Popen(PY + ["--speed", "0", f"{T}/10_streaming_steer_followup_queue.jsonl"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(b'{"id":"s0","type":"get_state"}\n')
    proc.stdin.flush()
    line = proc.stdout.readline()  # the client's input is still open: the answer cannot wait for its end
    proc.stdin.close()
    proc.wait(60)
    answer = json.loads(line)
    assert answer["type"] == "response" and answer["id"] == "s0" and answer["command"] == "get_state"


def test_usage_errors():
    r = CliRunner().invoke(command, ["--client", f"{T}/01_basic_text_prompt.jsonl"])
    assert r.exit_code == 2 and "needs the agent command" in r.output
    r = CliRunner().invoke(command, [f"{T}/01_basic_text_prompt.jsonl", "--", "pi"])
    assert r.exit_code == 2 and "needs --client" in r.output
    r = CliRunner().invoke(command, ["--redact", "(", f"{T}/01_basic_text_prompt.jsonl"])
    assert r.exit_code == 2 and "bad --redact" in r.output
    r = CliRunner().invoke(command, ["/nonexistent.jsonl"])
    assert r.exit_code == 2


def test_help_explains_default_match():
    r = CliRunner().invoke(command, ["--help"])
    assert "exact (default)" in r.output and "--speed" in r.output and "Exit status" in r.output


def test_not_a_recording(tmp_path: Path):
    bad = tmp_path / "x.jsonl"
    bad.write_text("hello\n")
    p = run([str(bad)], b"")
    assert p.returncode == 2 and b"not an rpcspy recording" in p.stderr


def test_sigterm_exits_143_with_final_report(tmp_path: Path):
    import signal

    report = tmp_path / "r.json"
    proc = subprocess.Popen(PY + ["--report", str(report), f"{T}/01_basic_text_prompt.jsonl"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc.stdin.write(b'{"id":"x","type":"get_state"}\n')
    proc.stdin.flush()
    assert proc.stdout.readline().startswith(b'{"id":"x"')
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(10) == 143
    rep = json.loads(report.read_text())
    assert rep["final"] and rep["matched"] == 1 and rep["exit_code"] == 143


def test_a_divergence_is_said_on_stderr_as_it_happens():
    """A client that waits for a run after an unmatched command must not hang with nothing on the screen."""
    import select

    proc = subprocess.Popen([*PY, "--speed", "0", "--no-stderr", f"{T}/01_basic_text_prompt.jsonl"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        assert proc.stdin is not None and proc.stderr is not None
        proc.stdin.write(b'{"id":"p","type":"prompt","message":"never recorded"}\n')
        proc.stdin.flush()
        ready, _, _ = select.select([proc.stderr], [], [], 30)  # hang guard only: the input is still open
        assert ready, "nothing on stderr while the client waits"
        line = proc.stderr.readline().decode()
        assert line.startswith("rpcspy replay: diverged: live line 1 prompt: ")
        assert proc.poll() is None  # said while the replay runs, not at its exit
    finally:
        proc.kill()
        proc.wait()


def test_the_live_divergence_line_carries_no_terminal_control():
    """The unmatched command's type is the client's text: an escape in it is shown, never sent raw."""
    p = run(["--speed", "0", "--no-stderr", f"{T}/01_basic_text_prompt.jsonl"],
            b'{"id":"p","type":"x\\u001b]0;PWNED\\u0007"}\n')
    line = next(ln for ln in p.stderr.split(b"\n") if ln.startswith(b"rpcspy replay: diverged:"))
    assert b"\x1b" not in line and b"\x07" not in line and b"\\x1b]0;PWNED" in line
