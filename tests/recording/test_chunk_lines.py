"""The recorder's chunk path writes, byte for byte, what the per-frame writer writes.

:meth:`RecordingWriter.write_lines` encodes a chunk's frames from their lines in one decode and one
formatting pass (:func:`rpcspy.recording.format.chunk_lines`); the reference is the writer fed one
:class:`Frame` at a time (:meth:`RecordingWriter.write_event`, :func:`frame_pieces`), as the recorder
did before. Streams mix valid JSON, lines that are not JSON, CR LF, lines that look like parts of a
JSON array (``1,2``, a string cut by a line end), invalid UTF-8, surrounding whitespace, deep nesting,
huge lines, and are cut into chunks anywhere, with or without a last line ending at EOF.
"""

from __future__ import annotations

import json
import os
import tempfile

from hypothesis import given, settings
from hypothesis import strategies as st

from rpcspy.events import Eof, Frame, frames_of
from rpcspy.framing import iter_lines, split_cr
from rpcspy.pump.forward.hub import Dispatcher
from rpcspy.pump.observers.recorder import Recorder
from rpcspy.recording.format import SMALL_FRAME, chunk_lines, frame_pieces
from rpcspy.recording.writer import RecordingWriter, make_header

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)
TRICKY = [b"", b" {}", b"{} ", b"\t1", b"1\t", b"[1", b"2],3", b' "a', b'"', b'",2', b"1,2", b"\xff", b'"\xc3"',
          b"[" * 1100 + b"]" * 1100, b"{}", b'{"a":1}', b"7", b'"a', b'b"', b"[", b"]", b"{", b"}", b",", b"1 ",
          b'"\\ud800"', b'"\xed\xa0\x80"', b"\x00", b'{"a":1}\r', b'"' + b"x" * SMALL_FRAME + b'"',
          b'"' + b"x" * (SMALL_FRAME - 2) + b'"', b'"' + b"\xc3\xa9" * (SMALL_FRAME // 2) + b'"', b"1e999", b"-0",
          b'"\x7f"', b'"\xe2\x80\xa8"', b"tru", b"nul", b"true", b'{"a":1,}', b"[1,]", b"0123"]
line = st.one_of(
    json_values.map(lambda v: json.dumps(v, ensure_ascii=False).encode("utf-8", "surrogatepass")),
    json_values.map(lambda v: json.dumps(v, separators=(",", ":")).encode()),
    st.binary(max_size=60).filter(lambda b: b"\n" not in b),
    st.text(max_size=30).map(lambda s: s.replace("\n", "").encode("utf-8", "surrogatepass")),
    st.sampled_from(TRICKY),
    st.integers(1, 200_000).map(lambda n: b'{"big":"' + b"y" * n + b'"}'),
)


@settings(max_examples=600, deadline=None)
@given(st.lists(st.tuples(line, st.booleans()), max_size=16), st.integers(1, 10**6), st.floats(0, 1e6),
       st.sampled_from(["a2c", "c2a", "err"]), st.booleans())
def test_chunk_lines_is_frame_pieces_or_declines(rows: list, first: int, t: float, direction: str,
                                                  injected: bool) -> None:
    lines = [data + b"\r" if cr else data for data, cr in rows]
    frames = frames_of(first, t, direction, lines, injected)  # type: ignore[arg-type]
    out = chunk_lines(first, t, direction, lines, injected)  # type: ignore[arg-type]
    if out is not None:  # it declines (None) whenever a line is not embeddable as it stands
        assert out == b"".join(b"".join(frame_pieces(f)) for f in frames)
    if lines and all(not cr and f.data == data and _embeddable_alone(data) for (data, cr), f in zip(rows, frames, strict=False)):
        assert out is not None  # and only then


def _embeddable_alone(data: bytes) -> bool:
    return b'"json":' in b"".join(frame_pieces(Frame(1, 0.0, "a2c", data)))[:60]


def record(path: str, make) -> bytes:  # type: ignore[no-untyped-def]
    writer = RecordingWriter(path, make_header(["agent"], started=1.0, pid=1), warn=_fail)
    make(writer)
    writer.close()
    with open(path, "rb") as f:
        return f.read()


def _fail(text: str) -> None:
    raise AssertionError(text)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["a2c", "c2a"]), st.lists(line, min_size=1, max_size=6),
                          st.booleans(), st.booleans()), max_size=8),
       st.data())
def test_the_recorder_fed_chunks_writes_what_the_frame_writer_writes(streams: list, data: st.DataObject) -> None:
    """Whole recordings: chunks cut anywhere through the dispatcher and the recorder, against the
    frames the same bytes make (:func:`iter_lines`), each written by ``write_event``."""
    chunks: list[tuple[str, bytes, bool]] = []
    for direction, lines, crlf, injected in streams:
        raw = b"".join(x + (b"\r\n" if crlf and i % 2 else b"\n") for i, x in enumerate(lines))
        cuts = sorted(data.draw(st.lists(st.integers(0, len(raw)), max_size=4)))
        for a, b in zip([0, *cuts], [*cuts, len(raw)], strict=False):
            if a < b:
                chunks.append((direction, raw[a:b], injected))
    ends = data.draw(st.sampled_from([b"", b'{"last":1}', b"last without LF\r", b"\xfe"]))
    with tempfile.TemporaryDirectory() as tmp:
        def live(writer: RecordingWriter) -> None:
            d = Dispatcher([Recorder(writer)], warn=_fail)
            for n, (direction, chunk, injected) in enumerate(chunks):
                d.data(direction, float(n), chunk, injected)  # type: ignore[arg-type]
            d.data("a2c", 99.0, ends)
            d.eof("a2c", 100.0)
            d.eof("c2a", 100.0)

        def reference(writer: RecordingWriter) -> None:
            seq = 0
            pending = {"a2c": b"", "c2a": b""}
            order: list[tuple[str, float, bytes, bool]] = []
            for n, (direction, chunk, injected) in enumerate(chunks):
                buf = pending[direction] + chunk
                *done, pending[direction] = buf.split(b"\n")
                order += [(direction, float(n), x, injected) for x in done]
            buf = pending["a2c"] + ends
            *done, pending["a2c"] = buf.split(b"\n")
            order += [("a2c", 99.0, x, False) for x in done]
            for direction, t, x, injected in order:
                seq += 1
                body, cr = split_cr(x)
                writer.write_event(Frame(seq, t, direction, body, True, cr, injected))  # type: ignore[arg-type]
            for direction in ("a2c", "c2a"):
                if pending[direction]:
                    seq += 1
                    body, cr = split_cr(pending[direction])
                    writer.write_event(Frame(seq, 100.0, direction, body, False, cr))  # type: ignore[arg-type]
                seq += 1
                writer.write_event(Eof(seq, 100.0, direction))  # type: ignore[arg-type]

        assert record(os.path.join(tmp, "live"), live) == record(os.path.join(tmp, "ref"), reference)


def test_iter_lines_agrees_with_the_reference_split() -> None:
    assert list(iter_lines(b"a\nb\r\nc")) == [(b"a", True), (b"b\r", True), (b"c", False)]
