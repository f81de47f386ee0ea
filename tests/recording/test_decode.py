"""The one recording-line decoder: its fast path for frame lines agrees with the full decoder."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rpcspy.events import Exit, Frame
from rpcspy.recording.decode import BadEntry, decode_entry, entry_or_none, fast_frame
from rpcspy.recording.format import FrameEntry, UnknownEntry, encode_frame
from rpcspy.recording.writer import event_line
from tests.recording.test_format import frame_bytes

times = st.floats(min_value=0, max_value=1e7, allow_nan=False)


@given(st.integers(0, 2**40), times, st.sampled_from(["c2a", "a2c", "err"]), frame_bytes,
       st.booleans(), st.booleans(), st.booleans())
def test_fast_path_and_full_decoder_agree_on_written_lines(seq: int, t: float, direction: str, data: bytes,
                                                           cr: bool, nl: bool, injected: bool) -> None:
    frame = Frame(seq, t, direction, data, nl, cr, injected)  # type: ignore[arg-type]
    line = encode_frame(frame)[:-1]
    full = decode_entry(line)
    assert isinstance(full, FrameEntry) and full.data() == data
    assert (full.cr, full.nl, full.injected, full.dir, full.seq) == (cr, nl, injected, direction, seq)
    fast = fast_frame(line)
    if fast is None:  # only frames not embedded as JSON take the full decoder
        assert not len(full.json)
    else:
        assert fast == full and fast.data() == data


def test_fast_path_reads_both_key_orders_and_declines_other_forms() -> None:
    seq_first = b'{"seq":4,"t":2.5e0,"kind":"frame","dir":"c2a","json":{"type":"x"},"cr":true}'
    assert fast_frame(seq_first) == decode_entry(seq_first)
    assert fast_frame(b'{"kind":"frame","seq":1,"t":0.1,"dir":"a2c","text":"hi"}') is None
    assert fast_frame(b'{"kind":"frame","seq":1,"t":0.1.2,"dir":"a2c","json":1}') is None
    assert fast_frame(event_line(Exit(1, 0.5, 0))[:-1]) is None


def test_full_decoder_keeps_unknown_kinds_and_names_what_is_wrong() -> None:
    unknown = decode_entry(b'{"kind":"later","seq":7,"t":1.0,"x":1}')
    assert isinstance(unknown, UnknownEntry) and (unknown.kind, unknown.seq) == ("later", 7)
    with pytest.raises(BadEntry) as bad:
        decode_entry(b'{"kind":"exit","seq":1,"t":1.0}')
    assert bad.value.kind == "exit" and "code" in str(bad.value)
    with pytest.raises(BadEntry) as cut:
        decode_entry(b'{"kind":"frame","seq":1,"t":1.0,"dir":"a2')
    assert cut.value.kind is None
    assert entry_or_none(b"[" * 5000) is None and entry_or_none(b"") is None
