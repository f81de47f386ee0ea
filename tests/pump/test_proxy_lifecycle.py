"""Exit codes, signals, EOF, crashes, spawn failures, orphans and failing recordings."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from rpcspy.events import Exit, Note
from rpcspy.recording import RecordingError, open_recording
from tests.pump.proxyrun import RPCSPY, fake, run, spawn


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    stat = Path(f"/proc/{pid}/stat")
    return stat.exists() and stat.read_text().split()[2] != "Z"


@pytest.mark.parametrize("code", [0, 1, 42])
def test_exit_code_is_the_agents(tmp_path: Path, code: int) -> None:
    assert run(tmp_path / "r.jsonl", fake("exit", str(code))).returncode == code


def test_agent_killed_by_signal_gives_128_plus_n(tmp_path: Path) -> None:
    rec = tmp_path / "r.jsonl"
    done = run(rec, fake("selfkill", str(int(signal.SIGKILL))))
    assert done.returncode == 128 + 9
    assert done.stdout == b'{"type":"partial"'  # a crash mid-frame: what was written is delivered
    entries = list(open_recording(rec).entries())
    (last_frame,) = [f for f in open_recording(rec).frames() if f.dir == "a2c"]
    assert last_frame.nl is False
    assert isinstance(entries[-1], Exit) and entries[-1].signal == 9 and entries[-1].code == 137


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP])
def test_signals_reach_the_agent(tmp_path: Path, signum: int) -> None:
    rec = tmp_path / "r.jsonl"
    proc = spawn(rec, fake("trap"))
    assert proc.stdout.readline() == b'{"ready":true}\n'  # type: ignore[union-attr]
    proc.send_signal(signum)
    out = proc.stdout.read()  # type: ignore[union-attr]
    assert json.loads(out) == {"signal": signum}
    assert proc.wait(30) == 10 + signum
    notes = [e.text for e in open_recording(rec).entries() if isinstance(e, Note)]
    assert any(signal.Signals(signum).name in n for n in notes)


def test_client_eof_closes_agent_stdin(tmp_path: Path) -> None:
    proc = spawn(tmp_path / "r.jsonl", fake("pid"))
    pid = json.loads(proc.stdout.readline())["pid"]  # type: ignore[union-attr]
    assert _alive(pid)
    proc.stdin.close()  # type: ignore[union-attr]
    assert proc.wait(30) == 0
    assert not _alive(pid)


def test_killed_proxy_leaves_no_orphan(tmp_path: Path) -> None:
    proc = spawn(tmp_path / "r.jsonl", fake("pid"))
    pid = json.loads(proc.stdout.readline())["pid"]  # type: ignore[union-attr]
    proc.kill()  # SIGKILL: rpcspy gets no chance to clean up
    proc.wait(10)
    deadline = time.monotonic() + 10
    while _alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _alive(pid)


@pytest.mark.parametrize(("agent", "code", "reason"), [
    (["no-such-agent-xyz", "--mode", "rpc"], 127, "command not found"),
    ([os.devnull], 126, "permission denied"),
])
def test_agent_that_cannot_start(tmp_path: Path, agent: list[str], code: int, reason: str) -> None:
    rec = tmp_path / "r.jsonl"
    done = run(rec, agent)
    assert done.returncode == code
    lines = done.stderr.decode().strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("rpcspy: cannot start agent") and reason in lines[0]
    assert done.stdout == b""
    assert list(tmp_path.iterdir()) == []  # no recording of a session that never started


def test_a_failed_start_keeps_a_file_it_did_not_make(tmp_path: Path) -> None:
    """Only the recording the proxy made goes: with --overwrite, the old file was replaced (it was asked to)
    and the failed start leaves nothing at the path, nor the old file's other hard link harmed."""
    rec = tmp_path / "r.jsonl"
    rec.write_text("old")
    os.link(rec, tmp_path / "other-name")
    done = run(rec, ["no-such-agent-xyz"], b"", "--overwrite")
    assert done.returncode == 127 and not rec.exists()
    assert (tmp_path / "other-name").read_text() == "old"


def test_missing_agent_command_is_a_usage_error() -> None:
    done = subprocess.run([*RPCSPY, "--"], capture_output=True, timeout=30)
    assert done.returncode == 2 and b"AGENT_CMD" in done.stderr


def test_a_device_as_recording_is_refused_before_the_agent_starts(tmp_path: Path) -> None:
    marker = tmp_path / "agent-ran"
    done = subprocess.run([*RPCSPY, "-o", "/dev/full", "--", "sh", "-c", f"touch {marker}"], capture_output=True,
                          timeout=60)
    assert done.returncode == 2 and done.stdout == b"" and not marker.exists()
    assert b"/dev/full is a device: a recording is a regular file (--no-record records nothing)" in done.stderr


def test_closed_client_stdout_still_records(tmp_path: Path) -> None:
    rec = tmp_path / "r.jsonl"
    proc = subprocess.Popen([*RPCSPY, "-o", str(rec), "--", *fake("flood", str(4 << 20))], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc.stdout.close()  # type: ignore[union-attr]
    proc.stdin.close()  # type: ignore[union-attr]
    assert proc.wait(60) == 0
    recorded = sum(len(f.raw()) for f in open_recording(rec).frames() if f.dir == "a2c")
    assert recorded >= 4 << 20
    notes = [e.text for e in open_recording(rec).entries() if isinstance(e, Note)]
    assert any("client stdout closed" in n for n in notes)


def test_default_recording_location_and_env(tmp_path: Path) -> None:
    done = subprocess.run([*RPCSPY, "--", *fake("exit", "0")], capture_output=True, cwd=tmp_path, timeout=30)
    assert done.returncode == 0
    (rec,) = (tmp_path / "recordings").iterdir()
    assert rec.name.endswith("Z-fake_agent.jsonl") and (rec.stat().st_mode & 0o777) == 0o600
    other = tmp_path / "elsewhere"
    subprocess.run([*RPCSPY, "--", *fake("exit", "0")], capture_output=True, cwd=tmp_path, timeout=30,
                   env={**os.environ, "RPCSPY_DIR": str(other)})
    assert len(list(other.iterdir())) == 1


def test_agent_options_are_not_swallowed(tmp_path: Path) -> None:
    rec = tmp_path / "r.jsonl"
    agent = [sys.executable, "-c", "import sys, json; print(json.dumps(sys.argv[1:]))", "-o", "--help", "--dir", "x"]
    done = run(rec, agent)
    assert json.loads(done.stdout) == ["-o", "--help", "--dir", "x"]


def test_help_and_module_entry() -> None:
    done = subprocess.run([*RPCSPY, "--help"], capture_output=True, timeout=30)
    assert done.returncode == 0 and b"AGENT_CMD" in done.stdout and b"run" in done.stdout
    done = subprocess.run([*RPCSPY, "run", "--help"], capture_output=True, timeout=30)
    assert b"--output" in done.stdout and b"RPCSPY_DIR" in done.stdout


def test_killed_proxy_still_leaves_a_complete_recording(tmp_path: Path) -> None:
    """The observer process outlives a SIGKILLed proxy and records all that was forwarded."""
    rec = tmp_path / "r.jsonl"
    proc = spawn(rec, fake("respond"))
    sent = [b'{"id":"k%d","type":"get_state"}\n' % i for i in range(20)]
    for line in sent:
        proc.stdin.write(line)  # type: ignore[union-attr]
    proc.stdin.flush()  # type: ignore[union-attr]
    for _ in range(40):  # each command: an event and a response
        proc.stdout.readline()  # type: ignore[union-attr]
    proc.kill()
    proc.wait(10)
    deadline = time.monotonic() + 10
    frames: list = []
    while time.monotonic() < deadline:
        frames = list(open_recording(rec).frames())
        if len([f for f in frames if f.dir == "a2c"]) >= 40:
            break
        time.sleep(0.1)
    assert [f.raw() for f in frames if f.dir == "c2a"] == sent
    assert len([f for f in frames if f.dir == "a2c" and b'"response"' in f.data]) == 20


def forwarded(rec: Path) -> int:
    """How many "forwarded SIGTERM" notes the live recording holds so far (none while it is still empty:
    the observer process writes it after the client may have the agent's first line)."""
    try:
        return sum(1 for e in open_recording(rec).entries()
                   if isinstance(e, Note) and e.text.startswith("forwarded SIGTERM"))
    except RecordingError:
        return 0


def test_third_signal_kills_an_agent_that_ignores_them(tmp_path: Path) -> None:
    """README: a third signal kills the agent, so a stuck agent cannot trap the user."""
    rec = tmp_path / "r.jsonl"
    proc = spawn(rec, fake("deaf"))
    assert proc.stdout.readline() == b'{"ready":true}\n'  # type: ignore[union-attr]
    for sent in (1, 2):
        proc.send_signal(signal.SIGTERM)
        deadline = time.monotonic() + 60  # two signals sent at once could be delivered as one: wait for each
        while forwarded(rec) < sent and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.05)
    assert proc.poll() is None  # two are forwarded and ignored
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(10) == 128 + signal.SIGKILL


def test_client_sees_eof_before_the_observers_finish(tmp_path: Path) -> None:
    """The client is not kept waiting for the recording and checks of a backlog."""
    stream = tmp_path / "stream.jsonl"
    line = b'{"type":"message_update","assistantMessageEvent":{"type":"text_delta","delta":"%d"}}\n'
    # a second or two of recording and checking, a blink to relay
    stream.write_bytes(b"".join(line % i for i in range(50_000)))
    rec = tmp_path / "r.jsonl"
    proc = subprocess.Popen([*RPCSPY, "-o", str(rec), "--", "cat", str(stream)], stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    got = proc.stdout.read()  # type: ignore[union-attr]
    recorded_at_eof = rec.stat().st_size if rec.exists() else 0
    proc.wait(120)
    assert got == stream.read_bytes()
    assert recorded_at_eof < rec.stat().st_size, "the client's stdout stayed open until the recording was complete"
    assert proc.returncode == 0
    assert sum(1 for f in open_recording(rec).frames() if f.dir == "a2c") == 50_000


@pytest.mark.parametrize(("drain", "gap_after"), [(0.5, 0.2), (0.2, 0.5), (0.3, 0.0)])
def test_a_pipe_a_grandchild_holds_is_given_up_after_the_drain_time_plus_the_stall_time(
        tmp_path: Path, drain: float, gap_after: float) -> None:
    """The agent exits while a child of its own keeps its stdout open: the proxy waits for that relay the
    drain time plus --gap-after (a relay may first wait that long for stalled observers), then says so
    and ends; the note names the patience (before: the stall time counted only when at least the
    drain time, so (0.5, 0.2) said 0.5 s)."""
    import threading

    from rpcspy.pump.proxy import ProxyConfig, ProxySession, relay_patience

    rec = tmp_path / "r.jsonl"
    out_r, out_w = os.pipe()
    null = os.open(os.devnull, os.O_RDONLY)
    config = ProxyConfig(argv=fake("grandchild"), record_path=str(rec), stdin=null, stdout=out_w,
                         drain_timeout=drain, gap_after=gap_after)
    got = bytearray()
    reader = threading.Thread(target=lambda: got.extend(os.read(out_r, 1 << 16)), daemon=True)
    reader.start()
    try:
        assert ProxySession(config).run() == 0
    finally:
        reader.join(60)
        grandchild = json.loads(bytes(got))["grandchild"]
        os.kill(grandchild, signal.SIGKILL)
        os.close(out_w)
        os.close(null)
    assert relay_patience(drain, gap_after) == drain + gap_after
    notes = [e.text for e in open_recording(rec).entries() if isinstance(e, Note)]
    assert f"a2c still open {drain + gap_after:g}s after the agent exited (a child process holds the pipe); " \
           "stopped waiting" in notes, notes
