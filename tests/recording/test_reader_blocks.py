"""The native reader decodes blocks of lines at once: same entries and problems as line by line."""

from __future__ import annotations

import json

import msgspec
from hypothesis import example, given, settings
from hypothesis import strategies as st

from rpcspy.checker.framing import KIB64
from rpcspy.framing import iter_lines
from rpcspy.protocol import validation
from rpcspy.recording import open_recording, reader
from rpcspy.recording.decode import TYPED_MAX, TypedBlock

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


TYPED = validation.frame_union("pi-0.84")[0]
FRAMES = [  # pi-0.84 frames (and not) to read typed: clean, a schema issue, not an object, a client's
    b'{"kind":"frame","seq":11,"t":1.1,"dir":"a2c","json":{"type":"agent_start"}}',
    b'{"kind":"frame","seq":12,"t":1.2,"dir":"a2c","json":{"type":"agent_start","x":1}}',
    b'{"kind":"frame","seq":13,"t":1.3,"dir":"a2c","json":[1,2]}',
    b'{"kind":"frame","seq":14,"t":1.4,"dir":"c2a","json":{"type":"get_state","id":"a"},"cr":true}',
    b'{"kind":"frame","seq":15,"t":1.5,"dir":"a2c","json":null}',
]


@given(st.lists(st.sampled_from(LINES + FRAMES * 3), max_size=30), st.booleans(), st.integers(1, 400),
       st.sampled_from([1, 2048]), st.sampled_from([1, 100, 16 << 10]), st.booleans(), st.sampled_from([1, 7, 64 << 10]))
@settings(max_examples=300, deadline=None)
@example(picks=[LINES[6], LINES[7], LINES[8], LINES[0]], last_lf=True, chunk=4096, long_line=2048, block=16 << 10,
         typed=False, first=64 << 10)  # counts alike
def test_blocks_read_like_lines(tmp_path_factory, picks, last_lf, chunk, long_line, block, typed, first):
    """Typed or not, every entry as line by line (a typed block's frames read again with ``entry``), and a
    typed frame's JSON as the frame union decodes it alone."""
    data = HEADER + b"\n" + b"\n".join(picks) + (b"\n" if last_lf and picks else b"")
    _compare(tmp_path_factory, data, chunk, long_line, block, typed, first)


def _compare(tmp_path_factory, data: bytes, chunk: int, long_line: int, block: int, typed: bool, first: int) -> None:
    path = tmp_path_factory.mktemp("r") / "r.jsonl"
    path.write_bytes(data)
    old = reader.CHUNK, reader._LONG_LINE, reader.BLOCK, reader.FIRST_READ
    reader.CHUNK = chunk  # block edges everywhere, lines longer than a read included
    reader._LONG_LINE = long_line  # 1: every block line by line, as long lines are
    reader.BLOCK = block
    reader.FIRST_READ = first  # 1 or 7: reads of growing sizes (1, 2, 4, ... up to CHUNK)
    got = []
    try:
        rec = open_recording(path)
        for b in rec.blocks((lambda: TYPED) if typed else None):
            if type(b) is not TypedBlock:
                got += b
                continue
            for i, e in enumerate(b):
                if type(e) is b.frame_class:
                    got.append(b.entry(i))
                    assert e.json == (None if bytes(got[-1].json) in (b"", b"null")
                                      else msgspec.json.decode(got[-1].json, type=TYPED))
                else:
                    got.append(e)
    finally:
        reader.CHUNK, reader._LONG_LINE, reader.BLOCK, reader.FIRST_READ = old
    want, problems = line_by_line(data)
    assert got == want
    assert [str(p).replace(str(path), "") for p in rec.problems] == problems


DAMAGE = {  # a LF put in after (or in place of, for a comma: one lost) a byte, or a lost LF become a byte
    "split,": b",", "split:": b":", "split}": b"}", 'split"': b'"', "join,": b",", "join ": b" ", "join": b"",
}


def _damage(lines: list[bytes], ops: list[tuple[str, int, int]]) -> bytes:
    """The ``lines`` damaged: for each op, line ``i`` (cyclically) split at the ``n``-th (cyclically) of
    its bytes the op names, or joined to the next line by that byte."""
    lines = list(lines)
    for op, i, n in ops:
        i %= len(lines)
        line, byte = lines[i], DAMAGE[op]
        if op.startswith("split"):
            at = [j for j in range(len(line)) if line.startswith(byte, j)]
            if at:
                j = at[n % len(at)]
                lines[i:i + 1] = [line[:j + (byte != b",")], line[j + 1:]]
        elif i + 1 < len(lines):
            lines[i:i + 2] = [line + byte + lines[i + 1]]
    return b"\n".join(lines) + b"\n"


@given(st.lists(st.sampled_from(LINES[:4] + FRAMES * 2), min_size=1, max_size=20),
       st.lists(st.tuples(st.sampled_from(["split,", "join,"] * 4 + sorted(DAMAGE)), st.integers(0, 30),
                          st.integers(0, 100)), min_size=1, max_size=4),  # mostly the damage the array reads
       st.booleans(), st.sampled_from([1, 2048]), st.booleans())
@settings(max_examples=300, deadline=None)
@example(picks=[FRAMES[3], LINES[2], LINES[2], FRAMES[3]], ops=[("split,", 0, 3), ("join,", 2, 0)],
         typed=True, long_line=2048, big=True)  # tests/checker/test_recording.py's split line: counts alike
def test_damaged_layouts_read_like_lines(tmp_path_factory, picks, ops, typed, long_line, big):
    """Lines split and joined at random, even so that there are as many entries as lines (one over two
    lines, two on another): the blocks, typed or not, read every entry and problem as line by line."""
    body = _damage(picks, ops)
    _compare(tmp_path_factory, HEADER + b"\n" + body, 64 << 10 if big else 4096, long_line, 16 << 10, typed, 64 << 10)


def test_short_frames_come_typed_when_asked(tmp_path):
    lines = [FRAMES[0].replace(b'"seq":11', b'"seq":%d' % n) for n in range(1, 300)]
    path = tmp_path / "r.jsonl"
    path.write_bytes(HEADER + b"\n" + b"\n".join(lines) + b"\n")
    blocks = list(open_recording(path).blocks(lambda: TYPED))
    assert all(type(b) is TypedBlock for b in blocks) and sum(map(len, blocks)) == 299
    assert {type(e.json).__name__ for b in blocks for e in b} == {"AgentStart"}
    assert all(type(b) is list for b in open_recording(path).blocks(lambda: None))


def test_a_typed_block_holds_no_frame_over_64k():
    """The checker's lane takes a typed frame without measuring it (``Checker.feed_block``)."""
    assert TYPED_MAX <= KIB64


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
