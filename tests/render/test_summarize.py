"""One-line summaries: safe on a terminal, cut to size."""

from __future__ import annotations

from rpcspy.render.summarize import clean, compact, content_text, cut, first_line, human_bytes, ms, quote


def test_clean_makes_controls_visible_and_keeps_newlines() -> None:
    assert clean("a\x1b[31mb\u2028c\n\td\r") == "a\\e[31mb\\u2028c\n\td\\r"


def test_quote_and_compact_are_single_line() -> None:
    assert quote("a\nb\u2028") == '"a\\nb\\u2028"'
    assert "\n" not in compact({"k": "x\ny", "n": [1, 2]})
    assert compact("x" * 50, 10) == '"' + "x" * 9 + '…"'
    assert cut("abcdef", 4) == "abc…" and cut("abc", 4) == "abc"


def test_content_text_of_message_blocks() -> None:
    content = [{"type": "text", "text": "hi"}, {"type": "image", "mimeType": "image/png", "data": "AAAA"},
               {"type": "toolCall", "name": "bash", "arguments": {"c": 1}}, 7]
    assert content_text(content) == 'hi\n[image image/png 3 B]\n[tool call bash {"c":1}]\n7'
    assert content_text("plain") == "plain"


def test_numbers_for_people() -> None:
    assert human_bytes(999) == "999 B" and human_bytes(1500) == "1.5 KB" and human_bytes(2_500_000) == "2.5 MB"
    assert ms(0.0004) == "0.4 ms" and ms(0.12) == "120 ms" and ms(3.2) == "3.20 s"
    assert first_line("\n one\ntwo\n") == " one  (+1 lines)"
