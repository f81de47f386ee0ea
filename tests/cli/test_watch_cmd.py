"""``rpcspy watch REC``: a recording shown as it grows (live sessions: tests/interactive/test_inject_agents.py)."""

from __future__ import annotations

import fcntl
import re
import subprocess
import sys
import threading
import time
from pathlib import Path

from tests.paths import REPO

RPCSPY = [sys.executable, "-m", "rpcspy"]
SAMPLE = REPO / "recordings" / "pi-0.73.1-basic.jsonl"


def headlines(text: str) -> list[str]:
    return [ln for ln in text.splitlines() if re.match(r"\s+\d+\.\d{3}\s+#\d+ ", ln)]


def watch(*args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*RPCSPY, "watch", "--width", "120", *args], check=False, capture_output=True, text=True,
                          timeout=timeout)


def test_follows_a_recording_until_its_exit(tmp_path: Path) -> None:
    data = SAMPLE.read_bytes()
    growing = tmp_path / "growing.jsonl"
    cut = data.index(b'"type":"agent_end"')  # the writer stops in the middle of a line for a while
    growing.write_bytes(data[:cut])
    finished = threading.Event()
    writer = open(growing, "ab")  # noqa: SIM115 - held by the thread, as an rpcspy recording holds its file
    fcntl.flock(writer, fcntl.LOCK_EX)  # what every rpcspy writer holds while it records

    def write_the_rest() -> None:
        time.sleep(1.5)
        with writer:
            writer.write(data[cut:])
        finished.set()

    threading.Thread(target=write_the_rest, daemon=True).start()
    start = time.monotonic()
    r = watch(str(growing))
    assert finished.is_set() and time.monotonic() - start >= 1.5, "it waited for the rest"
    assert r.returncode == 0, r.stderr
    out = r.stdout
    for needle in ("→ get_state #s1", "✓ prompt #p1", "Hello \\u2028world!", "agent_end", "■ exit 0"):
        assert needle in out
    assert out.index("→ get_state #s1") < out.index("agent_end") < out.index("■ exit 0")
    shown = subprocess.run([*RPCSPY, "show", "--width", "120", str(SAMPLE)], check=False, capture_output=True, text=True).stdout
    assert headlines(out) == headlines(shown), "the same items as rpcspy show"


def test_a_recording_nobody_writes_is_shown_once_and_not_followed_forever(tmp_path: Path) -> None:
    """A recording without its exit entry (a proxy killed with SIGKILL) that no rpcspy holds any more."""
    partial = tmp_path / "partial.jsonl"
    data = SAMPLE.read_bytes()
    partial.write_bytes(data[: data.index(b'"kind":"exit"') - 1])
    r = watch(str(partial), timeout=60)  # the timeout is only a hang guard
    assert r.returncode == 0 and "→ get_state #s1" in r.stdout and "exit 0" not in r.stdout
    assert "the recording ends here without the session's exit: no rpcspy is writing it" in r.stdout


def test_no_follow_stops_at_the_end_of_what_is_there(tmp_path: Path) -> None:
    partial = tmp_path / "partial.jsonl"
    data = SAMPLE.read_bytes()
    partial.write_bytes(data[: data.index(b'"kind":"exit"') - 1])
    r = watch("--no-follow", str(partial), timeout=30)
    assert r.returncode == 0 and "→ get_state #s1" in r.stdout and "exit 0" not in r.stdout


def test_a_transcript_is_shown_whole() -> None:
    r = watch(str(REPO / "tests" / "golden" / "inputs" / "pi073_60_extension_ui.jsonl"))
    assert r.returncode == 0 and "dialog select" in r.stdout and "answer" in r.stdout


def test_no_live_session(tmp_path: Path) -> None:
    r = subprocess.run([*RPCSPY, "watch"], check=False, capture_output=True, text=True, timeout=60,
                       env={"PATH": "/usr/bin:/bin", "XDG_RUNTIME_DIR": str(tmp_path), "PYTHONPATH": str(REPO)})
    assert r.returncode == 1 and "no live rpcspy session" in r.stderr
