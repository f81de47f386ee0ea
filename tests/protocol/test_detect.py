"""DialectDetector on each corpus and on the individual signals."""

from __future__ import annotations

import pytest

from rpcspy.protocol import DialectDetector
from tests.protocol.corpus import NOT_JSON, frames

# Scenarios whose agent frames cannot tell pi 0.73 from pi 0.87 (a get_state and a crash).
UNDECIDABLE = {"05_null_frame_crash", "06_eof_without_trailing_newline"}


def _detect(corpus: str) -> dict[str, tuple[str, bool, str]]:
    by_file: dict[str, DialectDetector] = {}
    for f in frames(corpus):
        det = by_file.setdefault(f.file, DialectDetector())
        if f.obj is not NOT_JSON:
            det.feed(f.obj, f.dir)
    return {name: (d.dialect, d.sure, d.reason) for name, d in by_file.items()}


@pytest.mark.parametrize("corpus, expected", [("pi-0.73.1", "pi-0.73"), ("pi-0.87.1", "pi-0.84"),
                                               ("omp-18.2.3", "omp")])
def test_each_transcript_is_detected_as_its_dialect(corpus: str, expected: str) -> None:
    results = _detect(corpus)
    assert len(results) >= 1
    for name, (dialect, sure, reason) in results.items():
        if name in UNDECIDABLE or (corpus == "pi-0.73.1" and name in {"04_framing_and_errors",
                                                                      "40_models_and_thinking"}):
            # no distinguishing frame: pi 0.73 stays the unsure default
            assert (dialect, sure) == ("pi-0.73", False), name
            assert "assuming" in reason
        else:
            assert (dialect, sure) == (expected, True), (name, reason)


def test_feed_reports_the_dialect_once() -> None:
    det = DialectDetector()
    assert det.feed({"type": "agent_start"}, "a2c") is None
    assert det.feed({"type": "ready", "protocolVersion": 1}, "a2c") == "omp"
    assert det.feed({"type": "agent_settled"}, "a2c") is None
    assert (det.dialect, det.sure, det.reason) == ("omp", True, "omp `ready` frame")


def test_client_frames_and_non_objects_decide_nothing() -> None:
    det = DialectDetector()
    assert det.feed({"type": "ready"}, "c2a") is None
    assert det.feed(None, "a2c") is None and det.feed([1], "a2c") is None
    assert det.feed({"type": 5}, "a2c") is None
    assert (det.dialect, det.sure) == ("pi-0.73", False)


USAGE = {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 0, "cost": {}}


@pytest.mark.parametrize("frame, dialect, words", [
    ({"type": "message_update", "usage": USAGE, "assistantMessageEvent": {"type": "text_start"}},
     "pi-0.84", "delta-only"),
    ({"type": "message_update", "message": {}, "assistantMessageEvent": {"type": "text_start", "partial": {}}},
     "pi-0.73", "full `message` and `partial`"),
    ({"type": "message_update", "message": {"role": "assistant"}, "assistantMessageEvent": {"type": "text_start"}},
     "omp", "delta projection"),
    ({"type": "message_start", "message": {"role": "x"}, "messageId": "msg-1"}, "omp", "messageId"),
    ({"type": "agent_settled"}, "pi-0.84", "agent_settled"),
    ({"type": "agent_end", "messages": [], "willRetry": False}, "pi-0.84", "willRetry"),
    ({"type": "agent_end", "messages": [], "isTerminal": True}, "omp", "isTerminal"),
    ({"type": "agent_end", "messages": [{"role": "system", "content": ""}]}, "pi-0.84", "system"),
    ({"type": "message_start", "message": {"role": "assistant", "stopReason": "pending"}}, "pi-0.84", "pending"),
    ({"type": "message_end", "message": {"role": "user", "attribution": "user"}}, "omp", "attribution"),
    ({"type": "auto_compaction_start", "reason": "threshold"}, "pi-feb2026", "Feb-2026"),
    ({"type": "response", "command": "get_tree", "success": True, "data": {}}, "pi-0.84", "get_tree"),
    ({"id": "u", "type": "response", "command": "nope", "success": False, "error": "Unknown command: nope"},
     "pi-0.84", "echoes the request id"),
    ({"type": "response", "command": "get_state", "success": True, "data": {"queuedMessageCount": 0}},
     "omp", "queuedMessageCount"),
])
def test_signals(frame: dict, dialect: str, words: str) -> None:
    det = DialectDetector()
    assert det.feed(frame, "a2c") == dialect
    assert words in det.reason


@pytest.mark.parametrize("frame", [
    {"type": "response", "command": "nope", "success": False, "error": "Unknown command: nope"},
    {"type": "queue_update", "steering": [], "followUp": []},
    {"type": "message_start", "message": {"role": "user", "content": []}},
    {"type": "response", "command": "get_state", "success": True, "data": {"pendingMessageCount": 0}},
])
def test_frames_common_to_several_dialects_decide_nothing(frame: dict) -> None:
    det = DialectDetector()
    assert det.feed(frame, "a2c") is None and not det.sure


# --- pi >= 0.99: dispositions, and refining an earlier pi-0.84 decision -----------------------
DISPOSED = {"type": "response", "id": "p1", "command": "prompt", "success": True, "data": {"disposition": "started"}}
OLD_PROMPT_OK = {"type": "response", "id": "p1", "command": "prompt", "success": True}
ENTRIES = {"type": "response", "id": "e", "command": "get_entries", "success": True,
           "data": {"entries": [], "leafId": None}}


def test_a_disposition_decides_pi_099() -> None:
    det = DialectDetector()
    assert det.feed(DISPOSED, "a2c") == "pi-0.99"
    assert (det.sure, det.refinable) == (True, False) and "disposition" in det.reason


def test_pi_084_evidence_is_refined_by_a_later_disposition() -> None:
    det = DialectDetector()
    assert det.feed(ENTRIES, "a2c") == "pi-0.84"
    assert det.refinable
    assert det.feed({"type": "agent_start"}, "a2c") is None
    assert det.feed(DISPOSED, "a2c") == "pi-0.99"
    assert (det.dialect, det.refinable) == ("pi-0.99", False)
    assert det.reason == "`prompt` response with a `disposition`: pi >= 0.99"


def test_a_prompt_answered_without_disposition_confirms_pi_084() -> None:
    det = DialectDetector()
    det.feed(ENTRIES, "a2c")
    assert det.feed(OLD_PROMPT_OK, "a2c") is None
    assert (det.dialect, det.refinable) == ("pi-0.84", False)
    assert det.feed(DISPOSED, "a2c") is None and det.dialect == "pi-0.84"


def test_agent_settled_with_aborted_is_pi_099_at_once() -> None:
    det = DialectDetector()
    assert det.feed({"type": "agent_settled", "aborted": False}, "a2c") == "pi-0.99"
    det = DialectDetector()
    assert det.feed({"type": "agent_settled"}, "a2c") == "pi-0.84" and det.refinable
