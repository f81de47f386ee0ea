"""Frame entries keep exact bytes; valid JSON is embedded verbatim for jq."""

import json
import os
import tempfile

import msgspec
from hypothesis import given, settings
from hypothesis import strategies as st

from rpcspy.events import Frame
from rpcspy.recording.format import SMALL_FRAME, FrameEntry, encode_frame
from rpcspy.recording.reader import open_recording
from rpcspy.recording.writer import RecordingWriter, make_header

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)
frame_bytes = st.one_of(
    json_values.map(lambda v: json.dumps(v, ensure_ascii=False).encode()),
    st.binary(max_size=80).filter(lambda b: b"\n" not in b),
    st.text(max_size=40).map(lambda s: s.replace("\n", "").encode("utf-8", "surrogatepass")),
)
decoder = msgspec.json.Decoder(FrameEntry)


@given(frame_bytes, st.booleans(), st.booleans(), st.booleans())
def test_frame_entry_round_trips_exact_bytes(data: bytes, cr: bool, nl: bool, injected: bool) -> None:
    frame = Frame(7, 1.2345678, "a2c", data, nl, cr, injected)
    line = encode_frame(frame)
    assert line.endswith(b"\n") and line.count(b"\n") == 1
    entry = decoder.decode(line[:-1])
    assert entry.to_frame().raw() == frame.raw()
    assert entry.seq == 7 and entry.t == 1.234568 and entry.injected == injected


def test_valid_json_is_embedded_verbatim_and_jq_readable() -> None:
    data = '{"type":"message_update","delta":"a\u2028b","n":1.50}'.encode()
    line = encode_frame(Frame(1, 0.0, "a2c", data))
    assert data in line
    assert json.loads(line)["json"] == {"type": "message_update", "delta": "a\u2028b", "n": 1.5}


def test_forms_chosen_by_content() -> None:
    def form(data: bytes) -> str:
        obj = json.loads(encode_frame(Frame(1, 0.0, "c2a", data)))
        return next(k for k in ("json", "text", "b64") if k in obj)

    assert form(b'{"a":1}') == "json"
    assert form(b"null") == "json"
    assert form(b" {}") == "text"  # surrounding whitespace would be lost in an embedding
    assert form(b'{"a":1') == "text"
    assert form(b"") == "text"
    assert form(b'{"a":"\xff"}') == "b64"  # msgspec alone would accept this: UTF-8 is checked too


@settings(max_examples=25, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["c2a", "a2c", "err"]), frame_bytes, st.booleans()), max_size=20))
def test_writer_and_reader_round_trip(frames: list) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "r.jsonl")
        warnings: list[str] = []
        writer = RecordingWriter(path, make_header(["agent"]), warn=warnings.append)
        written = [Frame(i + 1, i * 0.5, d, data, True, cr) for i, (d, data, cr) in enumerate(frames)]
        for f in written:
            writer.write_event(f)
        writer.close()
        assert not warnings
        rec = open_recording(path)
        assert rec.kind == "rpcspy" and rec.header.argv == ["agent"]
        assert [(f.seq, f.dir, f.raw()) for f in rec.frames()] == [(f.seq, f.dir, f.raw()) for f in written]
        assert not rec.problems


_tricky = st.sampled_from([b"", b" {}", b"{} ", b"\t1", b"1\t", b"[1", b"2],3", b' "a', b'"', b'",2', b"1,2", b"\xff",
                           b'"\xc3"', b"[" * 1100 + b"]" * 1100, b"{}", b'{"a":1}', b"7",
                           b'"' + b"x" * SMALL_FRAME + b'"', b'"' + b"x" * (SMALL_FRAME - 2) + b'"'])


@settings(max_examples=400)
@given(st.lists(st.tuples(st.one_of(frame_bytes, _tricky), st.booleans(), st.booleans(), st.booleans(),
                          st.sampled_from([0.5, 1.25])), max_size=12),
       st.sampled_from(["a2c", "c2a", "err"]))
def test_frames_lines_are_frame_pieces_byte_for_byte(rows: list, direction: str) -> None:
    """The batch encoder writes what the per-frame encoder writes."""
    from rpcspy.recording.format import frame_pieces, frames_lines

    frames = [Frame(i + 1, t, direction, data, nl, cr, injected)  # type: ignore[arg-type]
              for i, (data, cr, nl, injected, t) in enumerate(rows)]
    assert b"".join(frames_lines(frames)) == b"".join(b"".join(frame_pieces(f)) for f in frames)

