"""A frame nested ~1,000 levels deep (or 100,000) is recorded like any other, and recording goes on."""

from __future__ import annotations

import json
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


DEEP = 3000
"""Deeper than msgspec (and the stdlib) decode: every reader must say so, never raise RecursionError."""


def _deep_inputs(tmp_path: Path) -> dict[str, Path]:
    """The same deep frames as a recording with the JSON embedded by hand (the writer would store it as text),
    a structured transcript (one record deep itself) and a raw one."""
    deep_update = b'{"type":"message_update","x":' + _deep(DEEP) + b"}"
    frames = [("c2a", b'{"type":"get_state","id":"a"}'), ("a2c", deep_update), ("a2c", _deep(DEEP)),
              ("c2a", deep_update)]
    rec = tmp_path / "embedded.jsonl"
    rec.write_bytes(encode_entry(make_header(["pi"])) + b"".join(
        b'{"kind":"frame","seq":%d,"t":0.1,"dir":"%s","json":%s}\n' % (n, d.encode(), data)
        for n, (d, data) in enumerate(frames, start=1)))
    structured = tmp_path / "structured.jsonl"
    structured.write_text("".join(json.dumps({"t": n / 10, "dir": "in" if d == "c2a" else "out", "raw": data.decode()})
                                  + "\n" for n, (d, data) in enumerate(frames, start=1))
                          + '{"t":1,"dir":"out","raw":"x","y":' + "[" * DEEP + "]" * DEEP + "}\n")
    raw = tmp_path / "raw.txt"
    raw.write_bytes(b"".join((b">> " if d == "c2a" else b"") + data + b"\n" for d, data in frames))
    return {"embedded": rec, "structured": structured, "raw": raw}


@pytest.mark.parametrize("kind", ["embedded", "structured", "raw"])
def test_frames_nested_3000_deep_are_reported_by_the_reader_and_check(tmp_path: Path, kind: str) -> None:
    path = _deep_inputs(tmp_path)[kind]
    rec = open_recording(path)
    frames = list(rec.frames())  # the reader (and for transcripts, their loading): no exception
    if kind == "embedded":  # a deep embedded value is a line that does not decode: said, and skipped
        assert [p.line for p in rec.problems] == [3, 4, 5] and len(frames) == 1
        assert all("nested too deeply" in p.reason for p in rec.problems)
    elif kind == "structured":  # the deep record is skipped; deep frames inside records are kept as bytes
        assert len(frames) == 4 and [p.line for p in rec.problems] == [5]
    else:
        assert len(frames) == 4 and not rec.problems
    for dialect in ("auto", "pi-0.84"):
        check = subprocess.run([*RPCSPY, "check", "--format", "json", "--dialect", dialect, str(path)],
                               capture_output=True, timeout=120)
        assert check.returncode in (0, 1) and b"Traceback" not in check.stderr, check.stderr
        rules = [json.loads(line)["rule"] for line in check.stdout.splitlines()]
        assert "checker.internal_error" not in rules
        if kind == "embedded":
            assert rules.count("recording.unreadable_line") == 3
        else:
            assert rules.count("framing.too_deep") == 3  # the three deep frames, both directions
