"""One event hierarchy: an event other than a frame is the recording's entry, written and read back as itself."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from rpcspy.events import Eof, Exit, Finding, Frame, Note, SpawnFailed, Start
from rpcspy.recording.decode import decode_entry
from rpcspy.recording.entries import entry_to_event
from rpcspy.recording.format import UnknownEntry
from rpcspy.recording.writer import event_line

_seq = st.integers(0, 2**63 - 1)
_t = st.floats(0, 1e6, allow_nan=False).map(lambda t: round(t, 6))
_dir = st.sampled_from(["c2a", "a2c", "err"])
_text = st.text(max_size=40)
_json = st.recursive(st.none() | st.booleans() | st.integers(-(2**53), 2**53) | _text,
                     lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_text, inner, max_size=3),
                     max_leaves=8)

EVENTS = st.one_of(
    st.builds(Start, _seq, _t, st.integers(0, 2**31), st.lists(_text, max_size=4)),
    st.builds(SpawnFailed, _seq, _t, _text, st.integers(0, 255)),
    st.builds(Eof, _seq, _t, _dir),
    st.builds(Exit, _seq, _t, st.integers(-255, 255), st.none() | st.integers(1, 64)),
    st.builds(Note, _seq, _t, st.sampled_from(["info", "warning", "error"]), _text, st.none() | _dir,
              st.integers(0, 2**40)),
    st.builds(Finding, _seq, _t, _text, st.sampled_from(["error", "warning", "info"]), _text, _text,
              st.none() | _seq, st.none() | _dir, st.none() | _text, st.none() | _seq,
              st.dictionaries(_text, _json, max_size=3)),
)


@settings(max_examples=300, deadline=None)
@given(EVENTS)
def test_an_event_is_read_back_as_itself(event: Any) -> None:
    line = event_line(event)
    assert line.endswith(b"\n") and line.count(b"\n") == 1
    entry = decode_entry(line[:-1])
    assert type(entry) is type(event) and entry == event and entry_to_event(entry) is entry


def test_a_frame_is_stored_as_a_frame_entry_and_read_back_as_a_frame() -> None:
    for frame in (Frame(1, 0.5, "a2c", b'{"type":"agent_start"}'), Frame(2, 0.5, "err", b"\xff", False, True)):
        assert entry_to_event(decode_entry(event_line(frame)[:-1])) == frame


def test_a_note_of_an_unknown_level_and_an_unknown_kind_read_as_notes() -> None:
    assert decode_entry(b'{"kind":"note","seq":1,"t":0.0,"level":"debug","text":"x"}') == Note(1, 0.0, "info", "x")
    unknown = decode_entry(b'{"kind":"bookmark","seq":2,"t":1.0,"label":"here"}')
    assert isinstance(unknown, UnknownEntry)
    note = entry_to_event(unknown)
    assert isinstance(note, Note) and note.level == "warning" and "bookmark" in note.text
