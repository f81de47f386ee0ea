"""The streaming reader: native recordings, transcripts, and clear errors."""

import json
from pathlib import Path

import pytest

from rpcspy.events import Note
from rpcspy.recording import FORMAT_VERSION, RecordingError, open_recording
from rpcspy.recording.format import FrameEntry, UnknownEntry
from tests.paths import DATA

HEADER = {"format": "rpcspy-recording", "version": 1, "rpcspy": "0.1.0", "argv": ["pi"], "cwd": "/", "started": "x",
          "started_unix": 0.0, "pid": 1}


def write(tmp_path: Path, *lines: str | bytes) -> Path:
    path = tmp_path / "r.jsonl"
    path.write_bytes(b"".join((ln.encode() if isinstance(ln, str) else ln) for ln in lines))
    return path


def test_truncated_last_line_is_reported_not_raised(tmp_path: Path) -> None:
    path = write(tmp_path, json.dumps(HEADER) + "\n",
                 '{"kind":"frame","seq":1,"t":0.1,"dir":"c2a","json":{"type":"get_state"}}\n',
                 '{"kind":"frame","seq":2,"t":0.2,"dir":"a2c","json":{"type":"resp')
    rec = open_recording(path)
    assert [f.data for f in rec.frames()] == [b'{"type":"get_state"}']
    # "FILE:N" is a frame number everywhere; a line of the file is said in words
    assert len(rec.problems) == 1 and rec.problems[0].truncated
    assert str(rec.problems[0]).startswith(f"{path}: line 3: truncated last line: ")


def test_unknown_entry_kinds_are_passed_through(tmp_path: Path) -> None:
    path = write(tmp_path, json.dumps(HEADER) + "\n", '{"kind":"hologram","seq":3,"t":1.5,"x":1}\n')
    (entry,) = list(open_recording(path).entries())
    assert isinstance(entry, UnknownEntry) and entry.kind == "hologram" and entry.seq == 3


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"", "empty file"),
        (b'{"hello": 1}\n', "not an rpcspy recording"),
        (json.dumps({**HEADER, "version": FORMAT_VERSION + 1}).encode() + b"\n", "newer than this rpcspy reads"),
        (json.dumps({**HEADER, "argv": 5}).encode() + b"\n", "bad recording header"),
    ],
)
def test_bad_files_give_a_reason(tmp_path: Path, content: bytes, message: str) -> None:
    with pytest.raises(RecordingError, match=message):
        open_recording(write(tmp_path, content))


def test_missing_and_directory(tmp_path: Path) -> None:
    with pytest.raises(RecordingError, match="no such file"):
        open_recording(tmp_path / "nope.jsonl")
    with pytest.raises(RecordingError, match="is a directory"):
        open_recording(tmp_path)


def test_structured_transcript_keeps_exact_bytes() -> None:
    rec = open_recording(DATA / "transcripts/structured/04_framing_and_errors.jsonl")
    assert rec.kind == "structured-transcript"
    assert rec.header.argv[:3] == ["pi", "--mode", "rpc"]
    frames = list(rec.frames())
    crlf = next(f for f in frames if b'"crlf"' in f.data and f.dir == "c2a")
    assert crlf.cr and crlf.raw().endswith(b"\r\n")
    bad = next(f for f in frames if b"badutf8" in f.data and f.dir == "c2a")
    assert b"x\xff\xfey" in bad.data


def test_raw_transcript_matches_structured() -> None:
    raw = open_recording(DATA / "transcripts/04_framing_and_errors.jsonl")
    structured = open_recording(DATA / "transcripts/structured/04_framing_and_errors.jsonl")
    assert raw.kind == "raw-transcript"
    assert [(f.dir, f.raw()) for f in raw.frames()] == [(f.dir, f.raw()) for f in structured.frames()]
    assert any(isinstance(e, Note) for e in raw.entries())


def test_every_transcript_in_tests_data_reads_cleanly() -> None:
    paths = sorted(DATA.glob("transcripts*/**/*.jsonl"))
    assert len(paths) > 30
    for path in paths:
        rec = open_recording(path)
        entries = list(rec.entries())
        assert any(isinstance(e, FrameEntry) for e in entries), path
        assert not rec.problems, path


@pytest.mark.parametrize("layout", ["", "structured/"])
def test_partial_client_writes_are_joined_as_on_the_wire(layout: str) -> None:
    split = [f for f in open_recording(DATA / f"transcripts/{layout}04_framing_and_errors.jsonl").frames()
             if f.dir == "c2a" and b"spl" in f.data]
    assert [f.data for f in split] == [b'{"id":"split","type":"get_state"}']
    last = [f for f in open_recording(DATA / f"transcripts/{layout}06_eof_without_trailing_newline.jsonl").frames()
            if f.dir == "c2a"][-1]
    assert last.data == b'{"id":"last","type":"get_state"}' and last.nl is False
