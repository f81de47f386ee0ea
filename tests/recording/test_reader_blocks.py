"""The native reader decodes blocks of lines at once: same entries and problems as line by line."""

from __future__ import annotations

import json

import msgspec
from hypothesis import example, given, settings
from hypothesis import strategies as st

from rpcspy.framing import iter_lines
from rpcspy.recording import open_recording, reader

HEADER = json.dumps({"format": "rpcspy-recording", "version": 1, "rpcspy": "0.1.0", "argv": ["pi"], "cwd": "/",
                     "started": "x", "started_unix": 0.0, "pid": 1}).encode()
LINES = [
    b'{"kind":"frame","seq":1,"t":0.1,"dir":"c2a","json":{"type":"get_state"}}',
    b'{"kind":"frame","seq":2,"t":0.2,"dir":"a2c","text":"not json \\u2028 x"}',
    b'{"kind":"note","seq":3,"t":0.3,"level":"info","text":"hello"}',
    b'{"kind":"exit","seq":4,"t":0.4,"code":0}',
    b'{"kind":"hologram","seq":5,"t":1.5,"x":1}',  # unknown kind: kept
    b'{"kind":"frame","seq":6,"t":0.6,"dir":"c2a"',  # cut short
    b'{"kind":"exit","seq":7,"t":0.7,"code":0} {"kind":"exit","seq":8,"t":0.8,"code":1}',  # two on a line
    b'{"kind":"frame","seq":9,"t":0.9,',  # a value over two lines: this and the next
    b'"dir":"c2a","json":{}}',
    b"",
    b"   ",
    b'{"kind":"frame","seq":10,"t":1.0,"dir":"a2c","json":{"type":"x"}}\r',
]


def line_by_line(data: bytes) -> tuple[list, list[str]]:
    """The reference: every line after the header decoded on its own."""
    rec = reader.Recording("r.jsonl", msgspec.json.decode(HEADER, type=reader.Header), "rpcspy")
    out = []
    for n, (line, had_lf) in enumerate(list(iter_lines(data))[1:], start=2):
        out.extend(rec._line(line, n, had_lf))
    return out, [str(p).replace("r.jsonl", "") for p in rec.problems]


@given(st.lists(st.sampled_from(LINES), max_size=30), st.booleans(), st.integers(1, 400), st.sampled_from([1, 2048]))
@settings(max_examples=200, deadline=None)
@example(picks=[LINES[6], LINES[7], LINES[8], LINES[0]], last_lf=True, chunk=4096, long_line=2048)  # counts alike
def test_blocks_read_like_lines(tmp_path_factory, picks, last_lf, chunk, long_line):
    data = HEADER + b"\n" + b"\n".join(picks) + (b"\n" if last_lf and picks else b"")
    path = tmp_path_factory.mktemp("r") / "r.jsonl"
    path.write_bytes(data)
    old = reader.CHUNK, reader._LONG_LINE
    reader.CHUNK = chunk  # block edges everywhere, lines longer than a read included
    reader._LONG_LINE = long_line  # 1: every block line by line, as long lines are
    try:
        rec = open_recording(path)
        got = list(rec.entries())
    finally:
        reader.CHUNK, reader._LONG_LINE = old
    want, problems = line_by_line(data)
    assert got == want
    assert [str(p).replace(str(path), "") for p in rec.problems] == problems


def test_a_block_of_short_lines_is_one_call_even_when_its_first_line_is_long(tmp_path, monkeypatch):
    """Judged by the lines' average length: a long first line (a `message_end` after many small deltas)
    does not send the whole block line by line."""
    long = b'{"kind":"frame","seq":1,"t":0.1,"dir":"a2c","json":{"type":"x","text":"' + b"a" * 5000 + b'"}}'
    short = [b'{"kind":"frame","seq":%d,"t":0.2,"dir":"a2c","json":{"type":"y"}}' % n for n in range(2, 400)]
    path = tmp_path / "r.jsonl"
    path.write_bytes(HEADER + b"\n" + b"\n".join([long, *short]) + b"\n")
    one_by_one = []
    line = reader.Recording._line
    monkeypatch.setattr(reader.Recording, "_line", lambda self, *a: one_by_one.append(a[1]) or line(self, *a))
    assert [e.seq for e in open_recording(path).entries()] == list(range(1, 400))
    assert one_by_one == []
