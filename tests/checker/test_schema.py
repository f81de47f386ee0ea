"""Schema rules: mapping validator issues to findings, dialect choice and auto-detection."""

from __future__ import annotations

import pytest

from rpcspy.checker import Checker, detect_dialect
from rpcspy.checker.findings import Sink
from rpcspy.checker.schema import DEFERRED_CAP, SchemaChecker, known_dialects, traits_of
from rpcspy.protocol.issues import SchemaIssue
from tests.checker.helpers import A, C, check, cmd, ev, hits, ok, to_frames


@pytest.mark.parametrize("kind", ["unknown_type", "missing_field", "wrong_type", "bad_enum", "unknown_field",
                                  "invalid", "some_future_kind"])
def test_issue_kinds_map_to_rules(kind: str, monkeypatch: pytest.MonkeyPatch) -> None:
    sink = Sink()
    schema = SchemaChecker(sink, "pi-0.73")
    monkeypatch.setattr(schema, "_validate", lambda obj, d, dialect: [SchemaIssue(kind, "$.x", "msg")])
    schema.feed(1.5, 7, "c2a", {"type": "get_state"})
    [finding] = sink.take()
    expected = kind if kind != "some_future_kind" else "invalid"
    assert (finding.rule, finding.frame, finding.dir, finding.path, finding.t) == \
        (f"schema.{expected}", 7, "c2a", "$.x", 1.5)


def test_valid_frames_give_no_schema_findings() -> None:
    frames = [C(cmd("prompt", "p", message="hi", images=[{"type": "image", "data": "aGk=", "mimeType": "image/png"}])),
              A(ok("prompt", "p")), A(ev("agent_start"))]
    for dialect in ("auto", "pi-0.73", "pi-0.84"):
        assert [f for f in check(*frames, dialect=dialect) if f.group == "schema"] == [], dialect


def test_findings_carry_the_json_path() -> None:
    findings = check(C(cmd("set_steering_mode", "a", mode="bogus")), dialect="pi-0.73")
    [f] = [f for f in findings if f.rule == "schema.bad_enum"]
    assert f.path == "$.mode" and "bogus" in f.message


def test_unknown_field_is_info_unless_strict() -> None:
    frames = [C(cmd("get_state", "a", bogus=1))]
    [loose] = [f for f in check(*frames) if f.rule == "schema.unknown_field"]
    [strict] = [f for f in check(*frames, strict_fields=True) if f.rule == "schema.unknown_field"]
    assert (loose.severity, strict.severity) == ("info", "warning")


def test_fixed_dialect_is_used_from_the_first_frame() -> None:
    c = Checker(dialect="pi-0.84")
    assert (c.dialect, c.dialect_reason) == ("pi-0.84", "chosen with --dialect")
    [frame] = to_frames([C(cmd("set_thinking_level", "a", level="max"))])
    assert c.feed(frame) == []  # "max" exists in pi >= 0.84
    c73 = Checker(dialect="pi-0.73")
    assert [f.rule for f in c73.feed(frame)] == ["schema.bad_enum"]


def test_unknown_dialect_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown dialect"):
        Checker(dialect="pi-9")


def test_auto_detects_and_says_why() -> None:
    c = Checker()
    assert c.dialect == "auto" and "not detected" in c.dialect_reason
    for frame in to_frames([A(ev("agent_start")), A(ev("agent_settled"))]):
        c.feed(frame)
    assert c.dialect == "pi-0.84" and "agent_settled" in c.dialect_reason


def test_undecided_auto_reports_only_what_every_dialect_agrees_on() -> None:
    # "max" is valid in pi-0.84 and omp, invalid in pi-0.73: not reported before detection.
    assert hits(check(C(cmd("set_thinking_level", "a", level="max"))), "schema.bad_enum") == []
    # "bogus" is invalid everywhere.
    assert hits(check(C(cmd("set_thinking_level", "a", level="bogus"))), "schema.bad_enum") == [1]
    # After omp's ready frame, omp's schema decides alone.
    ready = A(ev("ready", protocolVersion=1, supportedProtocolVersions=[1], maxFrameBytes=1,
                 maxReassembledFrameBytes=1))
    assert hits(check(ready, C(cmd("branch", "b"))), "schema.missing_field") == [2]


def test_response_data_is_validated() -> None:
    findings = check(C(cmd("set_steering_mode", "a", mode="all")),
                     A(ok("get_state", "s", {"steeringMode": "bogus"})), dialect="pi-0.73")
    assert any(f.rule == "schema.bad_enum" and f.frame == 2 and f.path == "$.data.steeringMode" for f in findings)


def test_traits() -> None:
    assert set(known_dialects()) >= {"pi-0.73", "pi-0.84", "omp"}
    assert traits_of("omp").blank_lines_skipped and traits_of("omp").retry_in_run and not traits_of("omp").settles
    assert traits_of("pi-0.84").settles and not traits_of("pi-0.73").settles
    assert not traits_of("pi-0.99").blank_lines_skipped


_SOURCE_IMAGE = {"type": "image", "source": {"type": "base64", "mediaType": "image/png", "data": "aGk="}}
"""The Feb-2026 doc's image form: valid in pi-feb2026 only."""
_OLD_PROMPT = C(cmd("prompt", "p", message="hi", images=[_SOURCE_IMAGE]))


def test_undecided_messages_name_no_dialect() -> None:
    [undecided] = [f for f in check(C(cmd("nope", "a"))) if f.rule == "schema.unknown_type"]
    assert undecided.message == "unknown command type 'nope' in any dialect"
    [fixed] = [f for f in check(C(cmd("nope", "a")), dialect="pi-0.84") if f.rule == "schema.unknown_type"]
    assert fixed.message == "unknown command type 'nope' in pi-0.84"


@pytest.mark.parametrize("decider,dialect,expected", [
    (A(ev("agent_settled")), "pi-0.84", [1]),
    (A(ev("auto_compaction_start", reason="threshold")), "pi-feb2026", []),
])
def test_client_frames_are_checked_again_once_the_dialect_is_known(decider, dialect, expected) -> None:  # type: ignore[no-untyped-def]
    c = Checker()
    first, answer, decides = to_frames([_OLD_PROMPT, A(ok("prompt", "p")), decider])
    assert [f for f in c.feed(first) + c.feed(answer) if f.group == "schema"] == []  # some dialect accepts it
    late = [f for f in c.feed(decides) if f.rule == "schema.missing_field"]
    assert c.dialect == dialect and [f.frame for f in late][:1] == expected
    for f in late:
        assert (f.dir, f.t) == ("c2a", decides.t) and f"once frame 3 showed the dialect {dialect}" in f.message
    assert hits(c.finish(1.0), "schema.missing_field") == []  # reported once


def test_deferred_client_frames_are_bounded() -> None:
    filler = [C(cmd("get_state", f"g{i}")) for i in range(DEFERRED_CAP - 1)]
    findings = check(_OLD_PROMPT, C(cmd("prompt", "q", message="hi", images=[_SOURCE_IMAGE])), *filler,
                     A(ev("agent_settled")))
    assert sorted(set(hits(findings, "schema.missing_field"))) == [2]  # frame 1 fell out of the window


def test_findings_on_a_response_point_at_its_request() -> None:
    for dialect in ("auto", "pi-0.73"):
        findings = check(C(cmd("get_state", "s")), C(cmd("get_state", "t")),
                         A(ok("get_state", "t", {"steeringMode": "bogus"})), dialect=dialect)
        [f] = [f for f in findings if f.rule == "schema.bad_enum"]
        assert (f.frame, f.related) == (3, 2), dialect
    unknown = [f for f in check(A(ok("get_state", "x", {"steeringMode": "bogus"}))) if f.group == "schema"]
    assert unknown and all(f.related is None for f in unknown)  # answers nothing


def test_detect_dialect_in_a_first_pass() -> None:
    frames = to_frames([C(cmd("get_state", "s")), A(b"not json"), C(ev("agent_settled")), A(ev("agent_start")),
                        A(ev("agent_settled")), A(ev("ready"))])
    dialect, reason = detect_dialect(frames)  # type: ignore[misc]
    assert dialect == "pi-0.84" and reason.startswith("frame 5: ") and "agent_settled" in reason
    assert detect_dialect(frames[:4]) is None
    c = Checker(dialect=dialect, dialect_reason=reason)
    assert (c.dialect, c.dialect_reason) == (dialect, reason)
