"""Client pitfalls the frames show, one hand-made session each."""

from __future__ import annotations

from tests.diagnose.helpers import RUN, SETTLE, A, C, kinds, why


def test_abort_answered_after_agent_settled() -> None:
    d = why(*[A(e) for e in RUN], C({"id": "a", "type": "abort"}), *[A(e) for e in SETTLE],
            A({"id": "a", "type": "response", "command": "abort", "success": True}))
    assert kinds(d.pitfalls) == ["pitfall.settle_passed"]
    assert d.pitfalls[0].frames == (5, 8, 9)
    assert "after the agent_settled" in d.pitfalls[0].text
    assert d.outstanding == []


def test_abort_answered_before_the_settle_is_no_pitfall() -> None:
    d = why(*[A(e) for e in RUN], C({"id": "a", "type": "abort"}),
            A({"id": "a", "type": "response", "command": "abort", "success": True}), *[A(e) for e in SETTLE])
    assert d.pitfalls == []


def test_response_later_than_the_client_timeout() -> None:
    frames = [C({"id": "c", "type": "compact"}, t=1.0),
              A({"id": "c", "type": "response", "command": "compact", "success": True}, t=46.0)]
    d = why(*frames)
    assert kinds(d.pitfalls) == ["pitfall.late_response"]
    assert "after 45.0 s (frame 2)" in d.pitfalls[0].text
    assert why(*frames, client_timeout=60.0).pitfalls == []


def test_jsonrpc_shaped_client_frame() -> None:
    d = why(C({"jsonrpc": "2.0", "id": 1, "method": "prompt", "params": {"message": "hi"}}),
            A({"id": 1, "type": "response", "success": False, "error": "Unknown command: undefined"}))
    assert kinds(d.pitfalls) == ["pitfall.jsonrpc"]
    assert '`"type": "prompt"`' in d.pitfalls[0].text
    # an answer is no JSON-RPC frame (never asked for, it is a stray answer: tests/diagnose/test_verdicts.py)
    assert "pitfall.jsonrpc" not in kinds(why(C({"type": "extension_ui_response", "id": "x", "value": "m"})).pitfalls)


def test_omp_success_then_error_for_one_id() -> None:
    d = why(A({"type": "ready"}), C({"id": "p", "type": "prompt", "message": "x"}),
            A({"id": "p", "type": "response", "command": "prompt", "success": True}),
            A({"id": "p", "type": "response", "command": "prompt", "success": False, "error": "busy"}))
    assert kinds(d.pitfalls) == ["pitfall.success_then_error"]
    assert d.pitfalls[0].frames == (2, 3, 4)
    assert d.outstanding == []  # the error took the prompt back


def test_omp_frame_over_its_cap_without_v2() -> None:
    ready = A({"type": "ready", "maxFrameBytes": 1048576})
    error = A({"type": "rpc_frame_error", "originalType": "tool_execution_end", "error": "RPC frame exceeded"})
    d = why(ready, error)
    assert kinds(d.pitfalls) == ["pitfall.over_cap"] and "`tool_execution_end`" in d.pitfalls[0].text
    late = A({"id": "g", "type": "response", "command": "get_messages", "success": False,
              "error": "RPC response exceeded the transport limit"})
    assert kinds(why(ready, C({"id": "g", "type": "get_messages"}), late).pitfalls) == ["pitfall.over_cap"]
    v2 = [C({"id": "n", "type": "negotiate_protocol", "protocolVersion": 2}),
          A({"id": "n", "type": "response", "command": "negotiate_protocol", "success": True})]
    assert why(ready, *v2, error).pitfalls == []


def test_prompt_dropped_back_to_back() -> None:
    d = why(C({"id": "p1", "type": "prompt", "message": "a"}), C({"id": "p2", "type": "prompt", "message": "b"}),
            A({"id": "p1", "type": "response", "command": "prompt", "success": True}),
            A({"id": "p2", "type": "response", "command": "prompt", "success": True}),
            *[A(e) for e in RUN + SETTLE])
    assert kinds(d.pitfalls) == ["pitfall.dropped_prompt"]
    assert d.outstanding == []


def test_null_frame_explains_a_crash() -> None:
    d = why(C(b"null"), C({"id": "s", "type": "get_state"}), exit_code=1)
    assert kinds(d.pitfalls) == ["pitfall.null_frame"] and "pi crashes on it" in d.pitfalls[0].text
    assert kinds(d.outstanding) == ["command"] and "exited with code 1" in d.context[0]
