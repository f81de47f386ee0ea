"""A frame nested ~1,000 levels deep (or 100,000) is recorded like any other, and recording goes on."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from rpcspy.events import Frame
from rpcspy.recording import open_recording
from rpcspy.recording.format import encode_entry, encode_frame
from rpcspy.recording.writer import make_header
from tests.pump.proxyrun import RPCSPY


def _deep(n: int, kind: str = "list") -> bytes:
    if kind == "list":
        return b"[" * n + b"]" * n
    return b'{"type":"x","d":' + b'{"a":' * n + b"1" + b"}" * n + b"}"


@pytest.mark.parametrize("depth", [900, 1000, 1001, 100_000])
@pytest.mark.parametrize("kind", ["list", "object"])
def test_a_deep_frame_round_trips_through_the_recording(tmp_path: Path, depth: int, kind: str) -> None:
    data = _deep(depth, kind)
    path = tmp_path / "r.jsonl"
    path.write_bytes(encode_entry(make_header(["x"])) + encode_frame(Frame(1, 0.1, "a2c", data))
                     + encode_frame(Frame(2, 0.2, "c2a", b'{"type":"get_state"}')))
    rec = open_recording(path)
    assert [f.data for f in rec.frames()] == [data, b'{"type":"get_state"}'] and not rec.problems


def test_the_proxy_records_deep_frames_both_ways_and_everything_after(tmp_path: Path) -> None:
    """Before the fix the first deep frame turned the recorder off: a header-only recording."""
    lines = [b'{"type":"get_state","id":"1"}', _deep(1000), _deep(5000, "object"), _deep(100_000),
             b'{"type":"get_state","id":"2"}']
    stream = b"".join(line + b"\n" for line in lines)
    rec = tmp_path / "r.jsonl"
    done = subprocess.run([*RPCSPY, "-o", str(rec), "--no-control", "--", "cat"], input=stream, capture_output=True,
                          timeout=120)
    assert done.returncode == 0 and done.stdout == stream
    assert b"turned off" not in done.stderr and b"Traceback" not in done.stderr
    recording = open_recording(rec)
    frames = list(recording.frames())
    assert [f.data for f in frames if f.dir == "c2a"] == lines
    assert [f.data for f in frames if f.dir == "a2c"] == lines
    assert not recording.problems
    check = subprocess.run([*RPCSPY, "check", "--format", "json", str(rec)], capture_output=True, timeout=120)
    assert b'"framing.too_deep"' in check.stdout and b"Traceback" not in check.stderr
