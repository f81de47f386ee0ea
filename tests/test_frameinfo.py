"""Decoding frames for display: never raises, skips snapshots, names types."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from rpcspy.events import Frame
from rpcspy.frameinfo import NOT_JSON, parse, type_keys


def test_message_update_fast_path_drops_snapshots_only() -> None:
    full = {"type": "message_update", "assistantMessageEvent": {"type": "text_delta", "contentIndex": 0, "delta": "x",
                                                                "partial": {"content": ["big"]}},
            "message": {"content": ["big"]}, "usage": {"output": 1}}
    got = parse(json.dumps(full, separators=(",", ":")).encode())
    assert got == {"type": "message_update", "usage": {"output": 1},
                   "assistantMessageEvent": {"type": "text_delta", "contentIndex": 0, "delta": "x"}}


def test_message_update_with_odd_shapes_falls_back_to_a_full_decode() -> None:
    data = b'{"type":"message_update","assistantMessageEvent":[1,2]}'
    assert parse(data) == {"type": "message_update", "assistantMessageEvent": [1, 2]}


def test_not_json() -> None:
    for data in (b"", b"not json", b'{"a":', b"\xff\xfe", b"{} {}"):
        assert parse(data) is NOT_JSON


@given(st.binary(max_size=40))
def test_parse_never_raises(data: bytes) -> None:
    parse(data)
    parse(b'{"type":"message_update"' + data)


def _keys(direction: str, obj: object) -> tuple[str, ...]:
    data = obj if isinstance(obj, bytes) else json.dumps(obj).encode()
    return type_keys(Frame(1, 0.0, direction, data))  # type: ignore[arg-type]


def test_type_keys() -> None:
    assert _keys("a2c", {"type": "response", "command": "prompt"}) == ("response", "prompt")
    assert _keys("a2c", {"type": "message_update", "assistantMessageEvent": {"type": "text_delta"}}) == (
        "message_update", "text_delta")
    assert _keys("a2c", {"type": "extension_ui_request", "method": "select"}) == ("extension_ui_request", "select")
    assert _keys("c2a", {"type": "prompt"}) == ("prompt",)
    assert _keys("c2a", b"junk") == ("invalid",)
    assert _keys("c2a", [1]) == ("invalid",)
    assert _keys("err", {"type": "prompt"}) == ("stderr",)
