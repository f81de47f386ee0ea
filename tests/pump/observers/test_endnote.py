"""The proxy's last word in a recording its writer did not finish: a torn line cut, seq continued, the
header written if the writer never began; every reader reads the result."""

from __future__ import annotations

import os
from pathlib import Path

from rpcspy.events import Exit, Note
from rpcspy.pump.observers.endnote import append_end, incomplete_text
from rpcspy.recording import open_recording
from rpcspy.recording.format import encode_entry
from rpcspy.recording.writer import make_header

HEADER = encode_entry(make_header(["agent"], started=1.0, pid=1))


def _end(path: Path, body: bytes) -> list[object]:
    path.write_bytes(body)
    fd = os.open(path, os.O_RDWR)
    try:
        assert append_end(fd, lambda: HEADER, 2.5, incomplete_text("the observer process was killed (SIGKILL)",
                                                                    {"c2a": 3, "a2c": 4}), 0, None)
    finally:
        os.close(fd)
    return list(open_recording(path).entries())


def test_a_torn_last_line_is_cut_and_seq_goes_on(tmp_path: Path) -> None:
    frame = b'{"kind":"frame","seq":7,"t":1.0,"dir":"a2c","json":{"type":"x","pad":"' + b"p" * 200_000 + b'"}}\n'
    entries = _end(tmp_path / "r.jsonl", HEADER + frame + b'{"kind":"frame","seq":8,"t":1.1,"dir":"a2')
    note, end = entries[-2:]
    assert isinstance(note, Note) and note.seq == 8 and "killed (SIGKILL)" in note.text
    assert "c2a 3 bytes, a2c 4 bytes" in note.text
    assert isinstance(end, Exit) and end.seq == 9 and end.code == 0


def test_a_recording_its_writer_never_began_gets_the_header(tmp_path: Path) -> None:
    for body in (b"", HEADER[:40]):
        entries = _end(tmp_path / "r.jsonl", body)
        assert [type(e) for e in entries] == [Note, Exit]
        assert [e.seq for e in entries] == [1, 2]  # type: ignore[attr-defined]


def test_a_header_alone_is_kept(tmp_path: Path) -> None:
    entries = _end(tmp_path / "r.jsonl", HEADER)
    assert [type(e) for e in entries] == [Note, Exit]
    assert (tmp_path / "r.jsonl").read_bytes().count(b'"format":"rpcspy-recording"') == 1
