"""One firing and one non-firing frame list per rule (used by test_rules.py).

``CASES[rule] = Case(fires, quiet, at)``: ``fires`` must report ``rule`` at frame
``at``; ``quiet`` is a close variant that must not report it at all.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from tests.checker.helpers import (
    A,
    C,
    F,
    assistant,
    cmd,
    err,
    ev,
    ok,
    run_close,
    run_open,
    text,
    tool_call,
    ui_req,
    ui_resp,
    upd,
)


@dataclass
class Case:
    fires: list[F]
    quiet: list[F]
    at: int
    kw: dict[str, Any] = field(default_factory=dict)


def _asst_stream(*updates: dict, final: dict | None = None, start: dict | None = None) -> list[F]:
    final = final or assistant(text("ab"))
    return [*run_open(), A(ev("message_start", message=start or assistant(stop="pending"))),
            *[A(u) for u in updates], A(ev("message_end", message=final)), *run_close(final)]


_TEXT_START = 6  # seq of the first update: run_open() is 4 frames, then message_start
_BIG = "x" * 70_000
_HUGE = "x" * 1_100_000
_DEEP = b"[" * 5000 + b"]" * 5000
_GC = [C(cmd("get_commands", "g")),
       A(ok("get_commands", "g", {"commands": [{"name": "boom", "source": "extension", "sourceInfo": {}}]}))]
_PROMPT_RUN = [C(cmd("prompt", "p1", message="hi")), A(ok("prompt", "p1")), *run_open()]
_READY = ev("ready", protocolVersion=1, supportedProtocolVersions=[1, 2], maxFrameBytes=1048576,
            maxReassembledFrameBytes=67108864)

CASES: dict[str, Case] = {
    # framing
    "framing.not_json": Case([C(b"not json")], [C(cmd("get_state", "a"))], 1),
    "framing.not_object": Case([C(b"42"), A(b"[1]")], [C(b'{"type":"get_state"}')], 1),
    "framing.blank_line": Case([C(b"  ")], [C(b' {"type":"get_state"} ')], 1),
    "framing.crlf": Case([C(b'{"type":"get_state"}', cr=True)], [C(b'{"type":"get_state"}')], 1),
    "framing.bom": Case([C(b'\xef\xbb\xbf{"type":"get_state"}')],
                        [C(b'{"type":"set_session_name","name":"\xef\xbb\xbf"}')], 1),
    "framing.invalid_utf8": Case([C(b'{"type":"set_session_name","name":"x\xff"}')],
                                 [C('{"type":"set_session_name","name":"x\u00e9"}'.encode())], 1),
    "framing.truncated": Case([C(b'{"type":"get_state"}', nl=False)], [C(b'{"type":"get_state"}')], 1),
    "framing.line_separator": Case([A(b'{"type":"session_info_changed","name":"a\xe2\x80\xa8b"}')],
                                   [A(b'{"type":"session_info_changed","name":"a\\u2028b"}')], 1),
    "framing.over_64k": Case([A(ev("session_info_changed", name=_BIG))],
                             [A(ev("session_info_changed", name=_BIG[:60_000]))], 1),
    "framing.over_1m": Case([A(ev("session_info_changed", name=_HUGE))],
                            [A(ev("session_info_changed", name=_BIG))], 1),
    "framing.too_deep": Case([C(b'{"id":"d","type":"prompt","message":"hi","images":' + _DEEP + b"}")],
                             [C(b'{"id":"d","type":"prompt","message":"hi","images":' + _DEEP[4800:-4800] + b"}")], 1),
    # schema
    "schema.unknown_type": Case([C(cmd("nope", "a"))], [C(cmd("get_state", "a"))], 1),
    "schema.unknown_agent_type": Case([A(ev("agent_settled")), A(ev("tomorrows_event", n=1))],
                                      [A(ev("agent_settled")), A(ev("agent_start"))], 2),
    "schema.missing_field": Case([C(cmd("prompt", "a"))], [C(cmd("prompt", "a", message="hi"))], 1),
    "schema.wrong_type": Case([C(cmd("prompt", "a", message=123))], [C(cmd("prompt", "a", message="123"))], 1),
    "schema.bad_enum": Case([C(cmd("set_steering_mode", "a", mode="bogus"))],
                            [C(cmd("set_steering_mode", "a", mode="all"))], 1),
    "schema.unknown_field": Case([C(cmd("get_state", "a", bogus=1))], [C(cmd("get_state", "a"))], 1),
    # correlation
    "correlation.unknown_id": Case([A(ok("get_state", "zz"))], [C(cmd("get_state", "zz")), A(ok("get_state", "zz"))], 1),
    "correlation.duplicate_response": Case([C(cmd("get_state", "a")), A(ok("get_state", "a")), A(ok("get_state", "a"))],
                                           [C(cmd("get_state", "a")), A(ok("get_state", "a"))], 3),
    "correlation.unanswered": Case([C(cmd("get_state", "a"))], [C(cmd("get_state", "a")), A(ok("get_state", "a"))], 1),
    "correlation.command_mismatch": Case([C(cmd("get_state", "a")), A(ok("get_messages", "a"))],
                                         [C(cmd("get_state", "a")), A(ok("get_state", "a"))], 2),
    "correlation.echoed_type": Case([C({"id": "x", "type": 5}),
                                     A({"id": "x", "type": "response", "command": 5, "success": False,
                                        "error": "Unknown command: 5"})],
                                    [C({"id": "x", "type": "nope"}), A(err("nope", "x", "Unknown command: nope"))], 2),
    "correlation.idless_error": Case([C(cmd("nope", "u")), A(err("nope", error="Unknown command: nope"))],
                                     [C(cmd("nope")), A(err("nope", error="Unknown command: nope"))], 2),
    "correlation.unexpected_response": Case([A(err("parse"))], [C(b"not json"), A(err("parse"))], 1),
    "correlation.reused_id": Case([C(cmd("get_state", "a")), C(cmd("get_messages", "a"))],
                                  [C(cmd("get_state", "a")), A(ok("get_state", "a")), C(cmd("get_messages", "a"))], 2),
    "correlation.ui_unknown_id": Case([C(ui_resp("zz", value="x"))],
                                      [A(ui_req("q", "select", title="t", options=["x"])), C(ui_resp("q", value="x"))], 1),
    "correlation.ui_duplicate": Case([A(ui_req("q", "confirm", title="t", message="m")),
                                      C(ui_resp("q", confirmed=True)), C(ui_resp("q", confirmed=False))],
                                     [A(ui_req("q", "confirm", title="t", message="m")), C(ui_resp("q", confirmed=True))], 3),
    "correlation.ui_fire_and_forget": Case([A(ui_req("n", "notify", message="m")), C(ui_resp("n", value="x"))],
                                           [A(ui_req("n", "input", title="t")), C(ui_resp("n", value="x"))], 2),
    "correlation.ui_wrong_shape": Case([A(ui_req("c", "confirm", title="t", message="m")), C(ui_resp("c", value="yes"))],
                                       [A(ui_req("c", "confirm", title="t", message="m")), C(ui_resp("c", cancelled=True))], 2),
    "correlation.ui_late": Case([A(ui_req("s", "select", title="t", options=["a"], timeout=100), t=1.0),
                                 C(ui_resp("s", value="a"), t=1.5)],
                                [A(ui_req("s", "select", title="t", options=["a"], timeout=100), t=1.0),
                                 C(ui_resp("s", value="a"), t=1.05)], 2),
    "correlation.ui_unanswered": Case([A(ui_req("s", "editor", title="t"))],
                                      [A(ui_req("s", "select", title="t", options=["a"], timeout=100)),
                                       C(ui_resp("s", value="a"))], 1),
    "correlation.ui_auto_cancelled": Case([A(ui_req("c", "confirm", title="rm -rf?", message="m"), t=1.0),
                                           C(ui_resp("c", cancelled=True), t=1.002)],
                                          [A(ui_req("c", "confirm", title="rm -rf?", message="m"), t=1.0),
                                           C(ui_resp("c", cancelled=True), t=2.5)], 2),
    # lifecycle
    "lifecycle.event_with_id": Case([A({"type": "agent_start", "id": "x"})], [A(ev("agent_start"))], 1),
    "lifecycle.run_unbalanced": Case([A(ev("agent_end", messages=[]))],
                                     [A(ev("agent_start")), A(ev("agent_end", messages=[]))], 1),
    "lifecycle.turn_unbalanced": Case([A(ev("agent_start")), A(ev("turn_end", message=assistant(), toolResults=[]))],
                                      [*run_open(), *run_close()], 2),
    "lifecycle.message_unbalanced": Case([A(ev("agent_start")), A(ev("turn_start")), A(upd("text_start", 0))],
                                         _asst_stream(upd("text_start", 0), upd("text_delta", 0, delta="ab"),
                                                      upd("text_end", 0, content="ab")), 3),
    "lifecycle.tool_unbalanced": Case([A(ev("agent_start")), A(ev("turn_start")),
                                       A(ev("tool_execution_end", toolCallId="c1", toolName="bash",
                                            result={"content": []}, isError=False))],
                                      [A(ev("agent_start")), A(ev("turn_start")),
                                       A(ev("tool_execution_start", toolCallId="c1", toolName="bash", args={})),
                                       A(ev("tool_execution_end", toolCallId="c1", toolName="bash",
                                            result={"content": []}, isError=False))], 3),
    "lifecycle.tool_call_unknown": Case(
        [A(ev("agent_start")), A(ev("turn_start")),
         A(ev("message_end", message=assistant(tool_call("c1", {}), stop="toolUse"))),
         A(ev("tool_execution_start", toolCallId="c2", toolName="bash", args={}))],
        [A(ev("agent_start")), A(ev("turn_start")),
         A(ev("message_end", message=assistant(tool_call("c1", {}), stop="toolUse"))),
         A(ev("tool_execution_start", toolCallId="c1", toolName="bash", args={}))], 4),
    "lifecycle.compaction_unbalanced": Case(
        [A(ev("compaction_end", reason="manual", aborted=False, willRetry=False))],
        [A(ev("compaction_end", reason="overflow", aborted=False, willRetry=False, errorMessage="x"))], 1),
    "lifecycle.retry_unbalanced": Case(
        [A(ev("auto_retry_end", success=True, attempt=1))],
        [A(ev("agent_start")), A(ev("agent_end", messages=[])),
         A(ev("auto_retry_start", attempt=1, maxAttempts=3, delayMs=1, errorMessage="e")),
         A(ev("agent_start")), A(ev("auto_retry_end", success=True, attempt=1)), A(ev("agent_end", messages=[]))], 1),
    "lifecycle.settled_while_running": Case([A(ev("agent_start")), A(ev("agent_settled"))],
                                            [A(ev("agent_start")), A(ev("agent_end", messages=[], willRetry=False)),
                                             A(ev("agent_settled"))], 2),
    "lifecycle.run_cut_off": Case([A(ev("agent_start"))], [A(ev("agent_start")), A(ev("agent_end", messages=[]))], 1),
    "lifecycle.run_abandoned": Case(
        [*_PROMPT_RUN, C(cmd("compact", "c")), A(ok("compact", "c", {"summary": "s", "firstKeptEntryId": "e",
                                                                     "tokensBefore": 0}))],
        [*_PROMPT_RUN, C(cmd("compact", "c")), *run_close(),
         A(ok("compact", "c", {"summary": "s", "firstKeptEntryId": "e", "tokensBefore": 0}))], 7,
        {"dialect": "pi-0.73"}),
    # stream
    "stream.text_mismatch": Case(
        _asst_stream(upd("text_start", 0), upd("text_delta", 0, delta="a"), upd("text_end", 0, content="ab")),
        _asst_stream(upd("text_start", 0), upd("text_delta", 0, delta="a"), upd("text_delta", 0, delta="b"),
                     upd("text_end", 0, content="ab")), _TEXT_START + 2),
    "stream.toolcall_mismatch": Case(
        _asst_stream(upd("toolcall_start", 0), upd("toolcall_delta", 0, delta='{"a":'), upd("toolcall_delta", 0, delta="1}"),
                     upd("toolcall_end", 0, toolCall=tool_call("c1", {"a": 2})),
                     final=assistant(tool_call("c1", {"a": 2}), stop="toolUse")),
        _asst_stream(upd("toolcall_start", 0), upd("toolcall_delta", 0, delta='{"a":'), upd("toolcall_delta", 0, delta="2}"),
                     upd("toolcall_end", 0, toolCall=tool_call("c1", {"a": 2})),
                     final=assistant(tool_call("c1", {"a": 2}), stop="toolUse")), _TEXT_START + 3),
    "stream.block_order": Case(
        _asst_stream(upd("text_delta", 0, delta="ab"), upd("text_end", 0, content="ab")),
        _asst_stream(upd("text_start", 0), upd("text_delta", 0, delta="ab"), upd("text_end", 0, content="ab")),
        _TEXT_START),
    "stream.block_not_closed": Case(
        _asst_stream(upd("text_start", 0), upd("text_delta", 0, delta="ab")),
        _asst_stream(upd("text_start", 0), upd("text_delta", 0, delta="ab"), final=assistant(text("ab"), stop="aborted")),
        _TEXT_START + 2),
    "stream.final_mismatch": Case(
        _asst_stream(upd("text_start", 0), upd("text_delta", 0, delta="ab"), upd("text_end", 0, content="ab"),
                     final=assistant(text("abX"))),
        _asst_stream(upd("text_start", 0), upd("text_delta", 0, delta="ab"), upd("text_end", 0, content="ab")),
        _TEXT_START + 3),
    # misuse
    "misuse.jsonrpc_frame": Case([C({"jsonrpc": "2.0", "id": 1, "method": "get_state"})], [C(cmd("get_state", "a"))], 1),
    "misuse.omp_over_cap": Case(
        [A(_READY), A(ev("rpc_frame_error", originalType="agent_end", error="RPC frame exceeded the transport limit"))],
        [A(_READY), C(cmd("negotiate_protocol", "n", protocolVersion=2)), A(ok("negotiate_protocol", "n")),
         A(ev("rpc_frame_error", originalType="agent_end", error="RPC frame exceeded the transport limit"))], 2),
    "lifecycle.response_after_settle": Case([*_PROMPT_RUN, C(cmd("abort", "a")), *run_close(), A(ok("abort", "a"))],
                                            [*_PROMPT_RUN, C(cmd("abort", "a")), A(ok("abort", "a")), *run_close()],
                                            10),
    "misuse.null_frame": Case([C(b"null")], [C(b'"null"')], 1),
    "misuse.prompt_while_starting": Case(
        [C(cmd("prompt", "p1", message="a")), C(cmd("prompt", "p2", message="b"))],
        [C(cmd("prompt", "p1", message="a")), A(ok("prompt", "p1")), A(ev("agent_start")),
         C(cmd("prompt", "p2", message="b", streamingBehavior="followUp"))], 2),
    "misuse.prompt_while_streaming": Case(
        [*_PROMPT_RUN, C(cmd("prompt", "p2", message="b")), A(err("prompt", "p2", "Agent is already processing."))],
        [*_PROMPT_RUN, C(cmd("prompt", "p2", message="b", streamingBehavior="steer")), A(ok("prompt", "p2"))], 7),
    "misuse.queued_while_idle": Case([C(cmd("steer", "s", message="later")),
                                      A(ok("steer", "s", {"disposition": "queued"}))],
                                     [C(cmd("prompt", "p", message="hi")), A(ok("prompt", "p")), A(ev("agent_start")),
                                      C(cmd("steer", "s", message="now")),
                                      A(ok("steer", "s", {"disposition": "queued"}))], 1, {"dialect": "pi-0.99"}),
    "misuse.queue_extension_command": Case(
        [*_GC, C(cmd("steer", "s", message="/boom now"))],
        [*_GC, C(cmd("steer", "s", message="/other now"))], 3),
}

SPECIAL: dict[str, str] = {
    **{f"acp.{name}": "tests/checker/test_acp_rules.py::test_each_rule_fires" for name in (
        "unknown_id", "duplicate_response", "notification_with_id", "request_without_id", "capability",
        "protocol_version", "before_initialize", "unknown_session", "unknown_tool_call", "tool_status_backwards",
        "prompt_during_permission", "cancel_not_honoured", "permission_not_cancelled", "bad_error", "unanswered")},
    "checker.internal_error": "tests/checker/test_engine.py::test_internal_error_is_a_finding",
    "checker.gap": "tests/checker/test_gap.py::test_gap_is_a_warning_with_its_size",
    "correlation.forgotten":
        "tests/checker/test_bounded.py::test_unanswered_commands_are_bounded_and_the_forgetting_is_said",
    "schema.invalid": "tests/checker/test_schema.py::test_issue_kinds_map_to_rules",
    "recording.truncated": "tests/checker/test_recording.py::test_a_killed_session_is_flagged_by_check_and_show",
    "recording.unreadable_line": "tests/checker/test_recording.py::test_damaged_lines_are_findings_with_their_line",
    "recording.no_frames": "tests/checker/test_recording.py::test_an_empty_recording_is_flagged",
    "recording.no_exit": "tests/checker/test_recording.py::test_a_killed_session_is_flagged_by_check_and_show",
}
"""Rules whose firing needs more than a frame list, and the test that covers them."""
