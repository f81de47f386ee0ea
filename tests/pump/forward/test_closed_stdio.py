"""rpcspy started with a standard descriptor closed: no hang, no traceback, a recording that says so."""

from __future__ import annotations

import os
import shlex
import subprocess
from pathlib import Path

from rpcspy.events import Exit, Note
from rpcspy.pump.forward.stdio import fill_closed_std_fds, is_closed
from rpcspy.recording import open_recording
from tests.pump.proxyrun import RPCSPY, fake


def _run_sh(redirect: str, rec: Path, agent: list[str]) -> subprocess.CompletedProcess[bytes]:
    cmd = shlex.join([*RPCSPY, "-o", str(rec), "--", *agent]) + " " + redirect
    return subprocess.run(["sh", "-c", cmd], capture_output=True, timeout=30, stdin=subprocess.DEVNULL)


def _notes(rec: Path) -> list[str]:
    return [e.text for e in open_recording(rec).entries() if isinstance(e, Note)]


def test_closed_stdin_is_end_of_input(tmp_path: Path) -> None:
    rec = tmp_path / "r.jsonl"
    done = _run_sh("<&-", rec, fake("echo"))  # echo waits for the end of its input: a hang before
    assert done.returncode == 0, done.stderr
    assert b"Traceback" not in done.stderr
    assert b"rpcspy: stdin was closed when rpcspy started" in done.stderr
    assert any("stdin was closed" in text for text in _notes(rec))
    assert isinstance(list(open_recording(rec).entries())[-1], Exit)


def test_closed_stdout_is_a_client_gone(tmp_path: Path) -> None:
    rec = tmp_path / "r.jsonl"
    done = _run_sh(">&-", rec, fake("exit", "3"))
    assert done.returncode == 3, done.stderr
    assert b"Traceback" not in done.stderr
    assert b"rpcspy: stdout was closed when rpcspy started" in done.stderr
    recording = open_recording(rec)
    assert [f.raw() for f in recording.frames() if f.dir == "a2c"] == [b'{"type":"bye"}\n']  # still recorded
    assert any("stdout was closed" in text for text in _notes(rec))


def test_closed_stderr_runs_quietly(tmp_path: Path) -> None:
    rec = tmp_path / "r.jsonl"
    done = _run_sh("2>&-", rec, fake("exit", "0"))
    assert done.returncode == 0 and done.stdout == b'{"type":"bye"}\n'
    assert [f.raw() for f in open_recording(rec).frames() if f.dir == "err"] == [b"agent says goodbye\n"]


def test_fill_closed_std_fds_puts_dev_null_on_the_closed_ones() -> None:
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child closes its own stdin and stdout, then reports
        os.close(r)
        os.close(0)
        os.close(1)
        closed = fill_closed_std_fds()
        again = fill_closed_std_fds()  # a later call (the session, after the CLI) still knows
        ok = closed == again == {0, 1} and not is_closed(0) and not is_closed(1) and os.read(0, 1) == b""
        os.write(w, b"ok" if ok else repr(closed).encode())
        os._exit(0)
    os.close(w)
    os.waitpid(pid, 0)
    assert os.read(r, 100) == b"ok"
