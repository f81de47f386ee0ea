"""Framing rules on raw bytes: one finding per problem, at the right frame."""

from __future__ import annotations

import pytest

from rpcspy.checker.framing import Unparsed, top_members
from tests.checker.helpers import A, C, check, hits, rules

FRAMING = "framing."


def framing(findings: list) -> list:  # type: ignore[type-arg]
    return sorted((f.rule, f.frame) for f in findings if f.rule.startswith(FRAMING))


@pytest.mark.parametrize("dialect", ["auto", "pi-0.73"])
def test_clean_frames(dialect: str) -> None:
    assert framing(check(C(b'{"id":"a","type":"get_state"}'), A(b' {"type":"agent_start"} '),
                         dialect=dialect)) == []


@pytest.mark.parametrize("dialect", ["auto", "pi-0.84"])
def test_invalid_utf8_is_repaired_and_the_command_tracked(dialect: str) -> None:
    """T04 badutf8: pi runs the command with U+FFFD; its response must still correlate."""
    findings = check(C(b'{"id":"b","type":"set_session_name","name":"x\xff\xfey"}'),
                     A(b'{"id":"b","type":"response","command":"set_session_name","success":true}'), dialect=dialect)
    assert framing(findings) == [("framing.invalid_utf8", 1)]
    assert not {"correlation.unknown_id", "correlation.unanswered"} & rules(findings)


@pytest.mark.parametrize("dialect", ["auto", "pi-0.84"])
def test_unparsable_lines_expect_a_parse_error(dialect: str) -> None:
    parse = A(b'{"type":"response","command":"parse","success":false,"error":"Failed to parse command"}')
    for line in (b"", b"   ", b"\xef\xbb\xbf{}", b'{"a":1,\xe2\x80\xa8"b":2}', b'{"id":"x","ty'):
        findings = check(C(line), parse, dialect=dialect)
        assert "correlation.unexpected_response" not in rules(findings), line
        assert len(framing(findings)) == 1, (line, framing(findings))


def test_omp_skips_blank_lines_silently() -> None:
    ready = A(b'{"type":"ready","protocolVersion":1,"supportedProtocolVersions":[1],"maxFrameBytes":1,'
              b'"maxReassembledFrameBytes":1}')
    parse = A(b'{"type":"response","command":"parse","success":false,"error":"Failed to parse command"}')
    findings = check(ready, C(b""), C(b"oops"), parse)
    assert framing(findings) == [("framing.blank_line", 2), ("framing.not_json", 3)]
    assert "correlation.unexpected_response" not in rules(findings)


def test_lone_cr_line_is_blank_and_crlf() -> None:
    assert framing(check(C(b"", cr=True))) == [("framing.blank_line", 1), ("framing.crlf", 1)]


@pytest.mark.parametrize("dialect", ["auto", "pi-0.73"])
def test_noisy_info_rules_fire_once_per_direction(dialect: str) -> None:
    ls = b'{"type":"session_info_changed","name":"a\xe2\x80\xa8b"}'
    big = b'{"type":"session_info_changed","name":"' + b"x" * 70_000 + b'"}'
    findings = check(A(ls), A(ls), C(b'{"type":"set_session_name","name":"\xe2\x80\xa9"}'), A(big), A(big),
                     dialect=dialect)
    assert hits(findings, "framing.line_separator") == [1, 3]
    assert hits(findings, "framing.over_64k") == [4]


def test_over_1m_is_reported_every_time_and_alone() -> None:
    huge = b'{"type":"session_info_changed","name":"' + b"x" * 1_100_000 + b'"}'
    findings = check(A(huge), A(huge))
    assert hits(findings, "framing.over_1m") == [1, 2] and hits(findings, "framing.over_64k") == []


def test_truncated_agent_frame() -> None:
    findings = check(A(b'{"type":"agent_st', nl=False))
    assert framing(findings) == [("framing.not_json", 1), ("framing.truncated", 1)]
    [f] = [f for f in findings if f.rule == "framing.truncated"]
    assert "agent" in f.message and f.dir == "a2c"


_DEEP = b"[" * 3000 + b"]" * 3000


@pytest.mark.parametrize("dialect", ["auto", "pi-0.84"])
def test_too_deep_frames_are_reported_and_still_correlate(dialect: str) -> None:
    findings = check(C(b'{"id":"d","type":"prompt","message":"hi","images":' + _DEEP + b"}"),
                     A(b'{"id":"d","type":"response","command":"prompt","success":true}'),
                     A(b'{"type":"session_info_changed","name":' + _DEEP + b"}"),
                     C(b" " + _DEEP), A(b'{"type":"response","command":"parse","success":false,"error":"x"}'),
                     dialect=dialect)
    assert framing(findings) == [("framing.not_object", 4), ("framing.too_deep", 1), ("framing.too_deep", 3),
                                 ("framing.too_deep", 4)]
    assert [f for f in findings if f.group != "framing"] == []  # no internal error, correlation intact
    assert "nested too deeply" in findings[0].message and findings[0].dir == "c2a"


def test_too_deep_with_invalid_utf8() -> None:
    findings = check(C(b'{"id":"d","type":"set_session_name","name":"\xff","x":' + _DEEP + b"}"),
                     A(b'{"id":"d","type":"response","command":"set_session_name","success":true}'))
    assert framing(findings) == [("framing.invalid_utf8", 1), ("framing.too_deep", 1)]
    assert [f for f in findings if f.group != "framing"] == []


def test_top_members_skip_what_does_not_decode() -> None:
    deep = b'{"id":"x", "s":"}]{[,:\\"", "deep":' + _DEEP + b', "type":"prompt" ,"n":{"a":[1]}}'
    assert top_members(deep) == {"id": "x", "s": '}]{[,:"', "type": "prompt", "n": {"a": [1]}}
    assert top_members(b"\t" + _DEEP) == []
    assert top_members(b'{"id":"x","cut":' + _DEEP[:10]) == {"id": "x"}
    assert isinstance(top_members(b"  "), Unparsed)
