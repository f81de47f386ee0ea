"""Extension UI dialogs: reading requests defensively, turning what is typed into answers."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rpcspy.interactive.dialogs import Dialog
from tests.paths import REPO

UI = REPO / "tests" / "golden" / "inputs" / "pi073_60_extension_ui.jsonl"


def requests() -> list[dict]:
    from rpcspy.recording import open_recording

    out = []
    for frame in open_recording(UI).frames():
        obj = json.loads(frame.data) if frame.data.startswith(b"{") else None
        if isinstance(obj, dict) and obj.get("type") == "extension_ui_request" and \
                obj.get("method") in ("select", "confirm", "input", "editor"):
            out.append(obj)
    return out


def test_recorded_dialogs_are_read_and_answered() -> None:
    by_title = {r["title"]: Dialog.from_request(r) for r in requests()}
    select = by_title["Pick one"]
    assert (select.options, select.timeout_ms) == (("A", "B"), 800)
    assert select.lines() == ["select: Pick one  (times out after 0.8 s)", "  1. A", "  2. B"]
    assert select.answer("2") == {"type": "extension_ui_response", "id": select.id, "value": "B"}
    assert select.answer(" A ") == {"type": "extension_ui_response", "id": select.id, "value": "A"}
    with pytest.raises(ValueError, match="1 to 2"):
        select.answer("3")
    confirm = by_title["Sure?"]
    assert confirm.lines() == ["confirm: Sure?", "Really do it?"]
    assert confirm.answer("Y")["confirmed"] is True and confirm.answer("no")["confirmed"] is False
    with pytest.raises(ValueError, match="y or n"):
        confirm.answer("perhaps")
    editor = by_title["Edit some text"]
    assert editor.prefill == "Line 1\nLine 2\nLine 3" and editor.answer("a\nb")["value"] == "a\nb"
    assert editor.cancel() == {"type": "extension_ui_response", "id": editor.id, "cancelled": True}
    name = [d for t, d in by_title.items() if t == "Your name"]
    assert name and name[0].answer("")["value"] == ""


def test_omp_option_details_are_shown() -> None:
    d = Dialog.from_request({"type": "extension_ui_request", "id": "1", "method": "select", "title": "T",
                             "options": ["a", "b"], "optionDetails": [{"description": "first"}, {}]})
    assert d.lines() == ["select: T", "  1. a  - first", "  2. b"]


def test_untrusted_text_cannot_drive_the_terminal() -> None:
    d = Dialog.from_request({"id": 1, "method": "confirm", "title": "\x1b[2Jboom", "message": "a\u2028b"})
    assert "\x1b" not in "".join(d.lines()) and "\u2028" not in "".join(d.lines())


@given(st.dictionaries(st.sampled_from(["id", "method", "title", "message", "options", "timeout", "prefill",
                                        "placeholder", "optionDetails"]),
                       st.none() | st.integers() | st.text() | st.lists(st.text() | st.integers() | st.none())
                       | st.booleans()))
def test_any_request_shape_is_survived(req: dict) -> None:
    d = Dialog.from_request(req)
    assert isinstance(d.lines(), list) and d.prompt()
    assert d.cancel()["cancelled"] is True
