"""Extension UI dialogs: answers by id and shape, timeouts, omp cancel."""

from __future__ import annotations

import pytest

from tests.checker.helpers import A, C, check, ui_req, ui_resp

UI = ("correlation.ui_unknown_id", "correlation.ui_duplicate", "correlation.ui_fire_and_forget",
      "correlation.ui_wrong_shape", "correlation.ui_late", "correlation.ui_unanswered")


def ui(findings: list) -> list:  # type: ignore[type-arg]
    return [(f.rule, f.frame) for f in findings if f.rule in UI]


@pytest.mark.parametrize("method,fields,answer", [
    ("select", {"title": "t", "options": ["A", "B"]}, {"value": "B"}),
    ("input", {"title": "t", "placeholder": "p"}, {"value": "name"}),
    ("editor", {"title": "t", "prefill": "x"}, {"value": "a\nb"}),
    ("confirm", {"title": "t", "message": "m"}, {"confirmed": False}),
    ("confirm", {"title": "t", "message": "m"}, {"cancelled": True}),
    ("input", {"title": "t"}, {"cancelled": True, "value": "ignored"}),
])
def test_well_formed_answers(method: str, fields: dict, answer: dict) -> None:
    assert ui(check(A(ui_req("q", method, **fields)), C(ui_resp("q", **answer)))) == []


@pytest.mark.parametrize("method,answer", [
    ("input", {"confirmed": True}),      # T60 c4b
    ("select", {"value": 3}),
    ("confirm", {"value": "yes"}),
    ("editor", {"cancelled": False}),
])
def test_wrong_shapes(method: str, answer: dict) -> None:
    findings = check(A(ui_req("q", method, title="t", message="m", options=["a"])), C(ui_resp("q", **answer)))
    [f] = [f for f in findings if f.rule == "correlation.ui_wrong_shape"]
    assert (f.frame, f.related) == (2, 1) and f"`{method}`" in f.message


@pytest.mark.parametrize("method", ["notify", "setStatus", "setWidget", "setTitle", "set_editor_text"])
def test_fire_and_forget_requests_expect_no_answer(method: str) -> None:
    assert ui(check(A(ui_req("n", method)))) == []
    assert ui(check(A(ui_req("n", method)), C(ui_resp("n", value="x")))) == [("correlation.ui_fire_and_forget", 2)]


def test_timed_out_dialog_is_unanswered_in_its_own_terms() -> None:
    """T60 c1: select with timeout 800 ms, never answered: pi resolves it silently (to undefined): a host that
    forwards only `notify` gets this for every dialog, so it is said, at info."""
    req = A(ui_req("s", "select", title="t", options=["A"], timeout=800), t=2.0)
    [f] = [f for f in check(req) if f.rule == "correlation.ui_unanswered"]
    assert f.severity == "info"
    assert "timeout of 0.80 s expired the agent resolved it to `undefined`, as if nothing had been chosen" in f.message
    confirm = A(ui_req("c", "confirm", title="t", message="m", timeout=500), t=2.0)
    [f] = [f for f in check(confirm) if f.rule == "correlation.ui_unanswered"]
    assert "`false`, as if the user had declined" in f.message


def test_a_timed_out_dialog_no_longer_blocks_and_is_said_once_live() -> None:
    from rpcspy.checker import Checker
    from tests.checker.helpers import to_frames

    checker = Checker(unanswered_after=30.0)
    found = []
    for frame in to_frames([A(ui_req("c", "confirm", title="t", message="m", timeout=500), t=1.0)]):
        found += checker.feed(frame)
    found += checker.tick(2.0) + checker.tick(3.0) + checker.finish(4.0)
    assert [f.rule for f in found if f.rule.startswith("correlation.ui")] == ["correlation.ui_unanswered"]


def test_every_dialog_cancelled_at_once_is_a_host_that_never_asks() -> None:
    """Several pi hosts answer every dialog `cancelled` at once: permission prompts then look declined."""
    items = [A(ui_req("a", "confirm", title="Allow bash?", message="m"), t=1.0), C(ui_resp("a", cancelled=True), t=1.003),
             A(ui_req("b", "select", title="Which?", options=["x"]), t=2.0), C(ui_resp("b", cancelled=True), t=2.001)]
    [f] = [f for f in check(*items) if f.rule == "correlation.ui_auto_cancelled"]
    assert (f.severity, f.frame, f.related, f.dir) == ("warning", 2, 1, "c2a")
    assert "all 2 dialogs" in f.message and "declined" in f.message
    # one answered by a person, or one cancelled slowly: the host does show dialogs
    slow = [*items[:3], C(ui_resp("b", cancelled=True), t=3.5)]
    chosen = [*items[:3], C(ui_resp("b", value="x"), t=2.002)]
    timed_out = [*items[:2], A(ui_req("b", "select", title="Which?", options=["x"], timeout=100), t=2.0)]
    for other in (slow, chosen, timed_out):
        assert "correlation.ui_auto_cancelled" not in {f.rule for f in check(*other)}
    # a raw transcript has no times: not judged
    untimed = [A(ui_req("a", "confirm", title="t", message="m"), t=0.0), C(ui_resp("a", cancelled=True), t=0.0)]
    assert "correlation.ui_auto_cancelled" not in {f.rule for f in check(*untimed)}


def test_late_answer_after_the_timeout() -> None:
    items = [A(ui_req("s", "select", title="t", options=["A"], timeout=800), t=2.0),
             C(ui_resp("s", value="A"), t=3.0)]
    [f] = [f for f in check(*items) if f.rule == "correlation.ui_late"]
    assert f.severity == "info" and f.related == 1 and "0.80 s" in f.message


def test_omp_cancel_closes_the_dialog() -> None:
    items = [A(ui_req("d", "confirm", title="t", message="m")), A(ui_req("c", "cancel", targetId="d"))]
    assert ui(check(*items)) == []
    assert ui(check(items[0])) == [("correlation.ui_unanswered", 1)]


def test_answers_without_a_string_id_are_left_to_the_schema() -> None:
    findings = check(C({"type": "extension_ui_response", "value": "x"}), C(ui_resp(5, value="x")))
    assert ui(findings) == []
    assert {f.rule for f in findings} >= {"schema.missing_field", "schema.wrong_type"}
