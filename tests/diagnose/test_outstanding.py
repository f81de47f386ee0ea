"""What is outstanding, from hand-made sessions: one test per kind of item."""

from __future__ import annotations

from tests.diagnose.helpers import RUN, SETTLE, A, C, kinds, why


def test_clean_session_has_nothing_outstanding() -> None:
    d = why(C({"id": "p", "type": "prompt", "message": "hi"}), A({"id": "p", "type": "response", "command": "prompt",
            "success": True}), *[A(e) for e in RUN + SETTLE])
    assert d.outstanding == [] and not d.stuck
    assert d.context and "agent spoke last" in d.context[-1]


def test_command_without_response_and_client_timeout() -> None:
    d = why(C({"id": "s", "type": "get_state"}, t=1.0), A({"type": "agent_start"}, t=40.0), at=45.0)
    assert kinds(d.outstanding) == ["command", "run"]
    item = d.outstanding[0]
    assert item.frames == (1,)
    assert "`get_state` (id 's', frame 1) has had no response for 44.0 s" in item.text
    assert "longer than a 30.0 s client timeout" in item.text
    assert d.stuck


def test_unknown_command_answered_without_id_is_matched_by_name() -> None:
    d = why(C({"id": "u", "type": "nope"}), A({"type": "response", "command": "nope", "success": False,
                                                "error": "Unknown command: nope"}))
    assert d.outstanding == []


def test_prompt_started_but_no_run() -> None:
    d = why(C({"id": "p", "type": "prompt", "message": "hi"}),
            A({"id": "p", "type": "response", "command": "prompt", "success": True, "data": {"disposition": "started"}}))
    assert kinds(d.outstanding) == ["prompt"]
    assert "'started'" in d.outstanding[0].text and "no agent_start" in d.outstanding[0].text


def test_handled_prompt_starts_nothing_and_a_silent_client_is_a_pitfall() -> None:
    d = why(C({"id": "p", "type": "prompt", "message": "/x"}, t=1.0),
            A({"id": "p", "type": "response", "command": "prompt", "success": True,
               "data": {"disposition": "handled"}}, t=1.1), at=20.0)
    assert d.outstanding == []
    assert kinds(d.pitfalls) == ["pitfall.handled_wait"]
    assert "no run starts" in d.pitfalls[0].text


def test_queued_prompt_is_outstanding_until_the_agent_settles() -> None:
    start = [C({"id": "p", "type": "prompt", "message": "a"}),
             A({"id": "p", "type": "response", "command": "prompt", "success": True}), *[A(e) for e in RUN],
             C({"id": "q", "type": "prompt", "message": "b", "streamingBehavior": "followUp"}),
             A({"id": "q", "type": "response", "command": "prompt", "success": True,
                "data": {"disposition": "queued"}})]
    d = why(*start)
    assert kinds(d.outstanding) == ["run", "queued"]
    assert "frame 7" in d.outstanding[1].text
    assert why(*start, *[A(e) for e in SETTLE]).outstanding == []


def test_run_without_agent_end_cut_off_by_eof() -> None:
    d = why(C({"id": "p", "type": "prompt", "message": "hi"}),
            A({"id": "p", "type": "response", "command": "prompt", "success": True}), *[A(e) for e in RUN],
            eof=True, exit_code=0)
    assert kinds(d.outstanding) == ["run"]
    text = d.outstanding[0].text
    assert "run started at frame 3 for `prompt` (id 'p', frame 1)" in text
    assert "exited with code 0" in text and "cuts a run in progress off at stdin EOF" in text


def test_run_ended_without_settle_pi_084() -> None:
    d = why(A({"type": "agent_settled"}), *[A(e) for e in RUN], A({"type": "turn_end"}),
            A({"type": "agent_end", "messages": [], "willRetry": True}))
    assert kinds(d.outstanding) == ["settle"]
    assert "agent_settled has not come" in d.outstanding[0].text and "willRetry" in d.outstanding[0].text


def test_pi_073_run_is_over_at_agent_end() -> None:
    d = why(*[A(e) for e in RUN], A({"type": "turn_end"}), A({"type": "agent_end", "messages": []}))
    assert d.outstanding == []


def test_dialog_the_agent_waits_on_and_its_answer() -> None:
    ask = A({"type": "extension_ui_request", "id": "d1", "method": "confirm", "title": "Sure?"})
    d = why(ask)
    assert kinds(d.outstanding) == ["dialog"]
    assert "`confirm` dialog 'Sure?'" in d.outstanding[0].text
    assert why(ask, C({"type": "extension_ui_response", "id": "d1", "confirmed": True})).outstanding == []
    timed = why(A({"type": "extension_ui_request", "id": "d1", "method": "select", "timeout": 500}, t=1.0), at=5.0)
    assert timed.outstanding == [] and "timed out unanswered" in timed.context[0]


def test_extension_command_prompt_waits_on_its_dialog() -> None:
    d = why(C({"id": "p", "type": "prompt", "message": "/ask"}),
            A({"type": "extension_ui_request", "id": "d1", "method": "input", "title": "Name"}))
    assert kinds(d.outstanding) == ["command", "dialog"]
    assert "answers it when the `input` dialog 'Name' (frame 2) is answered" in d.outstanding[0].text


def test_omp_host_tool_call_and_cancel() -> None:
    call = A({"type": "host_tool_call", "id": "h1", "toolCallId": "t", "toolName": "lookup", "arguments": {}})
    assert kinds(why(A({"type": "ready"}), call).outstanding) == ["host"]
    assert why(A({"type": "ready"}), call, A({"type": "host_tool_cancel", "id": "x", "targetId": "h1"})).outstanding == []

    update = C({"type": "host_tool_update", "id": "h1", "partialResult": {}})  # progress: answers the agent
    assert kinds(why(A({"type": "ready"}), call, update).outstanding) == ["host"]


def test_pairing_is_the_one_model_parse_errors_and_idless_successes() -> None:
    """A parse error answers the line that was not JSON, not an id-less command; an id-less success
    answers no command with an id (only an error may drop its command's id)."""
    parse = A({"type": "response", "command": "parse", "success": False, "error": "Failed to parse command"})
    d = why(C({"type": "get_state"}), C(b"not json"), parse)
    assert [i.frames for i in d.outstanding] == [(1,)]
    assert why(C({"type": "get_state"}), C(b"[1]"), A({"type": "response", "success": False})).outstanding != []
    answered = A({"type": "response", "command": "get_state", "success": True, "data": {}})
    assert [i.frames for i in why(C({"id": "s", "type": "get_state"}), answered).outstanding] == [(1,)]
    unknown = A({"type": "response", "command": "frob", "success": False, "error": "Unknown command: frob"})
    assert why(C({"id": "f", "type": "frob"}), unknown).outstanding == []


def test_steer_queued_until_delivered_as_a_user_message() -> None:
    start = [*[A(e) for e in RUN], C({"id": "s", "type": "steer", "message": "stop"}),
             A({"id": "s", "type": "response", "command": "steer", "success": True})]
    assert kinds(why(*start).outstanding) == ["run", "queued"]
    delivered = A({"type": "message_start", "message": {"role": "user", "content": []}})
    assert kinds(why(*start, delivered).outstanding) == ["run"]
    handled = [*[A(e) for e in RUN], C({"id": "s", "type": "steer", "message": "x"}),
               A({"id": "s", "type": "response", "command": "steer", "success": True,
                  "data": {"disposition": "handled"}})]
    assert kinds(why(*handled).outstanding) == ["run"]


def test_queue_update_is_the_authority_on_queues() -> None:
    d = why(*[A(e) for e in RUN], A({"type": "queue_update", "steering": ["a", "b"], "followUp": ["c"]}))
    assert "2 steering and 1 follow-up" in d.outstanding[-1].text


def test_compaction_and_retry_in_progress() -> None:
    d = why(A({"type": "compaction_start", "reason": "manual"}, t=1.0), A({"type": "auto_retry_start"}, t=2.0),
            at=3.0)
    assert kinds(d.outstanding) == ["compaction", "retry"]
    assert "compaction (manual) has been in progress since frame 1 (2.0 s)" in d.outstanding[0].text


def test_omp_prompt_open_until_prompt_result() -> None:
    frames = [A({"type": "ready"}), C({"id": "p", "type": "prompt", "message": "hi"}),
              A({"type": "message_start", "messageId": "m", "message": {"role": "user", "content": []}}),
              A({"id": "p", "type": "response", "command": "prompt", "success": True}),
              A({"type": "agent_start"}), A({"type": "agent_end", "messages": []})]
    assert kinds(why(*frames).outstanding) == ["prompt"]
    closed = A({"type": "prompt_result", "id": "p", "agentInvoked": True, "status": "completed",
                "sessionSettled": False})
    d = why(*frames, closed)
    assert kinds(d.outstanding) == ["settle"] and "session_settled has not come" in d.outstanding[0].text
    assert why(*frames, closed, A({"type": "session_settled"})).outstanding == []


def test_at_limits_the_moment() -> None:
    frames = [C({"id": "s", "type": "get_state"}, t=1.0), A({"id": "s", "type": "response", "command": "get_state",
                                                             "success": True}, t=2.0)]
    import msgspec

    from rpcspy.diagnose.explain import diagnose_entries
    from rpcspy.recording.format import FrameEntry

    entries = [FrameEntry(seq=i + 1, t=f.t, dir=f.dir, json=msgspec.Raw(f.data)) for i, f in enumerate(frames)]
    assert kinds(diagnose_entries(entries, at=1.5).outstanding) == ["command"]
    assert kinds(diagnose_entries(entries, frame=1).outstanding) == ["command"]
    assert diagnose_entries(entries).outstanding == []


def test_big_frames_are_read_as_an_envelope() -> None:
    from rpcspy.diagnose.tracker import BIG, envelope

    filler = "x" * (BIG + 10)
    big = {"id": "g", "type": "response", "command": "get_messages", "success": True,
           "data": {"messages": [{"role": "user", "content": filler}], "disposition": "started"},
           "message": {"role": "assistant", "content": filler}}
    import json

    data = json.dumps(big).encode()
    assert envelope(data) == {"id": "g", "type": "response", "command": "get_messages", "success": True,
                              "data": {"disposition": "started"}, "message": {"role": "assistant"}}
    d = why(C({"id": "g", "type": "get_messages"}), A(data))
    assert d.outstanding == [], "the big response answered its command"
    assert envelope(b"[1, 2]") == [1, 2] and envelope(b"nope") is None


def test_unanswered_commands_are_capped(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    import rpcspy.protocol.pairing as pairing

    monkeypatch.setattr(pairing, "WAITING_CAP", 3)
    monkeypatch.setattr(pairing, "IDLESS_CAP", 3)
    d = why(*[C({"id": f"c{i}", "type": "get_state"}) for i in range(5)], *[C({"type": "get_state"}) for _ in range(5)])
    assert [i.frames[0] for i in d.outstanding] == [3, 4, 5, 8, 9, 10], "the oldest are forgotten, the rest kept"


def test_running_tool() -> None:
    start = A({"type": "tool_execution_start", "toolCallId": "t1", "toolName": "bash", "args": {}}, t=1.0)
    update = A({"type": "tool_execution_update", "toolCallId": "t1", "toolName": "bash", "args": {},
                "partialResult": {}}, t=2.0)
    d = why(*[A(e) for e in RUN], start, update, at=11.0)
    assert kinds(d.outstanding) == ["run", "tool"]
    assert d.outstanding[1].text == ("tool `bash` (call 't1', frame 5) has been running for 10.0 s "
                                     "(last update frame 6): the run goes on when it ends")
    end = A({"type": "tool_execution_end", "toolCallId": "t1", "toolName": "bash", "result": {}, "isError": False})
    assert kinds(why(*[A(e) for e in RUN], start, update, end).outstanding) == ["run"]


def test_live_omp_ready_after_a_blank_line_leaves_it_waiting_for_nothing() -> None:
    """Live, the dialect is learnt from the frames: the blank line sent before omp's `ready` was taken
    for pi's (a `parse` error due); `ready` says omp, which skips it, so the errors answer the lines after."""
    parse = {"type": "response", "command": "parse", "success": False}
    d = why(C(b""), A({"type": "ready"}), C(b"xx"), A({**parse, "error": "Failed to parse"}),
            C({"type": "parse"}), A({**parse, "error": "Unknown command: parse"}))
    assert d.dialect == "omp" and d.outstanding == []
