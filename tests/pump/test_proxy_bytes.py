"""The relay is byte-exact in both directions, and the recording holds the same bytes."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rpcspy.events import Eof, Exit, Start
from rpcspy.recording import open_recording
from tests.pump.proxyrun import fake, run, spawn

PIECES = [b"\n", b"\r\n", b"\r", "\u2028".encode(), "\u2029".encode(), b"\x00", b"\xff\xfe", b'{"type":"get_state"}',
          b"null", b"\xe2\x80", b"{", b"}"]
streams = st.lists(st.one_of(st.binary(max_size=64), st.sampled_from(PIECES)), min_size=1, max_size=40).map(b"".join)


def recorded(path: Path, direction: str) -> bytes:
    return b"".join(f.raw() for f in open_recording(path).frames() if f.dir == direction)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=streams, cuts=st.lists(st.integers(min_value=1, max_value=300), max_size=6))
def test_random_streams_and_chunking_pass_untouched(tmp_path: Path, data: bytes, cuts: list[int]) -> None:
    rec = tmp_path / f"r{time.monotonic_ns()}.jsonl"
    proc = spawn(rec, fake("echo"))
    assert proc.stdin is not None
    pos = 0
    for cut in cuts:  # separate writes: the agent sees the stream in pieces
        proc.stdin.write(data[pos:pos + cut])
        proc.stdin.flush()
        pos += cut
    proc.stdin.write(data[pos:])
    proc.stdin.close()
    out = proc.stdout.read()  # type: ignore[union-attr]
    assert proc.wait(30) == 0
    assert out == data
    assert recorded(rec, "c2a") == data
    assert recorded(rec, "a2c") == data


def test_hundred_megabyte_frame(tmp_path: Path) -> None:
    rec = tmp_path / "big.jsonl"
    frame = b'{"type":"message_update","delta":"' + b"x\xe2\x80\xa8" * (25 << 20) + b'"}\n'
    done = run(rec, fake("echo"), frame + b'{"type":"after"}', timeout=120)
    assert done.returncode == 0
    assert done.stdout == frame + b'{"type":"after"}'
    frames = [f for f in open_recording(rec).frames() if f.dir == "a2c"]
    assert [len(f.data) for f in frames] == [len(frame) - 1, 16]
    assert frames[0].raw() == frame and frames[1].nl is False


def test_recording_lifecycle_entries(tmp_path: Path) -> None:
    rec = tmp_path / "r.jsonl"
    done = run(rec, fake("exit", "3"), b'{"type":"x"}\n')
    assert done.returncode == 3
    assert done.stdout == b'{"type":"bye"}\n'
    assert b"agent says goodbye\n" in done.stderr
    recording = open_recording(rec)
    entries = list(recording.entries())
    assert isinstance(entries[0], Start) and entries[0].argv == fake("exit", "3")
    assert isinstance(entries[-1], Exit) and entries[-1].code == 3 and entries[-1].signal is None
    assert {e.dir for e in entries if isinstance(e, Eof)} == {"c2a", "a2c", "err"}
    assert recorded(rec, "err") == b"agent says goodbye\n"
    seqs = [e.seq for e in entries]
    assert seqs == sorted(seqs) and len(set(seqs)) == len(seqs)
    times = [e.t for e in entries]
    assert times == sorted(times)
    assert recording.header.mode == "proxy" and recording.header.argv == fake("exit", "3")


def test_backpressure_slow_client_keeps_memory_flat(tmp_path: Path) -> None:
    """A client that does not read stalls the agent instead of filling rpcspy's memory."""
    rec = tmp_path / "r.jsonl"
    proc = spawn(rec, fake("flood", str(200 << 20)))
    time.sleep(1.5)
    rss = _rss_kb(proc.pid)
    assert proc.poll() is None  # still blocked on the unread stdout
    drained = 0
    while chunk := proc.stdout.read1(1 << 20):  # type: ignore[union-attr]
        drained += len(chunk)
    proc.stdin.close()  # type: ignore[union-attr]
    assert proc.wait(60) == 0
    assert drained >= 200 << 20
    assert rss < 64 * 1024, f"rpcspy held {rss} KiB while the client was not reading"


def _rss_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise AssertionError("no VmRSS")


def test_no_record_writes_nothing(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "rpcspy", "--no-record", "--", *fake("echo")], input=b"hi\n",
                          capture_output=True, cwd=tmp_path, timeout=30)
    assert done.stdout == b"hi\n" and done.returncode == 0
    assert list(tmp_path.iterdir()) == []
