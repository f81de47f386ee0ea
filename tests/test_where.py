"""``--where``: JMESPath expressions on frames and the other entries."""

from __future__ import annotations

import pytest

from rpcspy.events import Exit, Finding, Frame, Note
from rpcspy.filters import build_filter
from rpcspy.where import WhereError, compile_where, event_document, frame_document, truthy

PROMPT = Frame(1, 1.0, "c2a", b'{"id":"p","type":"prompt","message":"Hello World"}')
RESP = Frame(2, 1.5, "a2c", b'{"id":"p","type":"response","command":"prompt","success":true}')
UPDATE = Frame(3, 2.0, "a2c", b'{"type":"message_update","assistantMessageEvent":{"type":"text_delta","delta":"x"},'
                              b'"message":{"role":"assistant","content":[{"type":"text","text":"Hi x"}]}}')
ERR = Frame(4, 3.0, "err", b"boom \xff")
ALL = [PROMPT, RESP, UPDATE, ERR]


def seqs(expr: str) -> list[int]:
    where = compile_where(expr)
    return [f.seq for f in ALL if where.match_frame(f)]


def test_paths_and_comparisons_on_the_frame_json() -> None:
    assert seqs("type == 'prompt'") == [1]
    assert seqs("command == 'prompt' && success") == [2]
    assert seqs("assistantMessageEvent.type == 'text_delta'") == [3]
    assert seqs("id") == [1, 2]
    assert seqs("type != 'prompt'") == [2, 3, 4]


def test_message_update_is_seen_whole() -> None:
    """The display decoder drops message_update snapshots; --where must still see them."""
    assert seqs("message.content[0].text == 'Hi x'") == [3]


def test_recording_fields() -> None:
    assert seqs("_dir == 'a2c'") == [2, 3]
    assert seqs("_seq >= `2` && _t < `3`") == [2, 3]
    assert seqs("_kind == 'frame'") == [1, 2, 3, 4]
    assert seqs("contains(_text, 'boom')") == [4]
    assert frame_document(ERR) == {"_dir": "err", "_seq": 4, "_t": 3.0, "_kind": "frame", "_text": "boom \ufffd"}


def test_a_type_error_fails_the_entry_not_the_command() -> None:
    assert seqs("contains(message, 'World')") == [1]  # message is an object in UPDATE, absent elsewhere


def test_jmespath_truthiness() -> None:
    assert truthy(0) and truthy("x") and truthy([0])
    assert not any(truthy(v) for v in (None, False, "", [], {}))
    assert seqs("`0`") == [1, 2, 3, 4] and seqs("`[]`") == []


@pytest.mark.parametrize(("expr", "position", "reason"), [
    ("type == 'prompt", 8, "Unclosed ' delimiter"),
    ("type ==", 7, "incomplete expression"),
    ("type == == 'x'", 8, "unexpected '=='"),
])
def test_syntax_errors_say_where(expr: str, position: int, reason: str) -> None:
    with pytest.raises(WhereError) as err:
        compile_where(expr)
    assert err.value.position == position and err.value.reason == reason
    text = str(err.value)
    assert f"at column {position + 1}: {reason}" in text
    line, caret = text.splitlines()[1:]
    assert caret.index("^") == line.index(expr) + position


@pytest.mark.parametrize(("expr", "reason"), [("nosuch(type)", "Unknown function"),
                                              ("length(a, b)", "Expected 1 argument"), ("  ", "empty")])
def test_functions_are_checked_before_any_frame(expr: str, reason: str) -> None:
    with pytest.raises(WhereError, match=reason):
        compile_where(expr)


def test_other_entries() -> None:
    assert event_document(Exit(9, 4.0, 1)) == {"code": 1, "signal": None, "_kind": "exit", "_seq": 9, "_t": 4.0,
                                               "_dir": None}
    f = build_filter(where="_kind == 'exit' && code != `0`")
    assert f.match_event(Exit(9, 4.0, 1)) and not f.match_event(Exit(9, 4.0, 0))
    assert not f.match_event(Note(1, 0.0, "info", "hello"))


def test_in_the_filter() -> None:
    f = build_filter(where="type == 'prompt'", dirs=["c2a"])
    assert f.active and f.describe() == "--dir c2a --where \"type == 'prompt'\""
    assert [x.seq for x in ALL if f.match_frame(x)] == [1]
    finding = Finding(7, 2.0, "misuse.x", "warning", "misuse", "no", frame=1, dir="c2a")
    assert f.match_finding(finding, frame_where=True)  # its frame passes
    assert not f.match_finding(finding)  # on its own it has no type
    assert build_filter(where="rule == 'misuse.x'").match_finding(finding)
    with pytest.raises(ValueError, match="column"):
        build_filter(where="type ==")


def test_a_frame_that_is_not_utf8_is_its_text() -> None:
    """An agent's stray bytes (not UTF-8 from the first byte) made ``show --where`` crash."""
    stray = Frame(5, 4.0, "a2c", b"\xff\xfe not utf-8")
    assert frame_document(stray)["_text"] == "\ufffd\ufffd not utf-8"
    assert not compile_where("type == 'prompt'").match_frame(stray)
