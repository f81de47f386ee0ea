"""The transcripts (tests/data) of real pi 0.73.1, pi 0.87.1 and omp 18.2.3 traffic.

Every finding above ``info`` must be listed here (rule, frame seq, and bytes the frame
contains): the clean parts of every transcript give none, and each deliberate misuse is
flagged at the frame that commits it. The structured/ copies are used for their timing.
"""

from __future__ import annotations

import glob
import os
import re

import pytest

from rpcspy.checker import Checker, detect_dialect
from rpcspy.events import Finding, Frame, Note
from rpcspy.recording import open_recording
from rpcspy.recording.entries import events
from tests.paths import DATA


def session_findings(path: str, dialect: str = "auto") -> tuple[list[Finding], dict[int, Frame]]:
    frames: list[Frame] = []
    exit_code = None
    for event in events(open_recording(path).entries()):
        if isinstance(event, Frame):
            frames.append(event)
        elif isinstance(event, Note) and (m := re.match(r"exit code: (-?\d+)", event.text)):
            exit_code = int(m[1])
    checker = Checker(dialect=dialect)
    out: list[Finding] = []
    for frame in frames:
        out += checker.feed(frame)
    out += checker.finish(frames[-1].t if frames else 0.0, exit_code=exit_code)
    return out, {f.seq: f for f in frames}


# Shared expectations: the 0.73.1 and 0.87.1 runs of a scenario send the same client lines.
_FRAMING_04 = [
    ("framing.crlf", 2, b'{"id":"crlf"'), ("framing.blank_line", 4, b""), ("framing.blank_line", 6, b"   "),
    ("framing.crlf", 8, b""), ("framing.blank_line", 8, b""), ("framing.not_json", 10, b"not json"),
    ("framing.not_json", 12, b'"trunc"'), ("schema.unknown_type", 14, b'"nope"'),
    ("schema.unknown_type", 16, b'"nope2"'), ("schema.missing_field", 18, b'"notype"'),
    ("framing.not_object", 20, b"42"), ("framing.not_object", 22, b'"just a string"'),
    ("framing.not_object", 24, b"[]"), ("framing.not_object", 26, b"true"),
    ("schema.wrong_type", 30, b'"id":5'), ("schema.wrong_type", 32, b'"id":null'),
    ("framing.not_json", 50, b'"u2028ws"'), ("framing.invalid_utf8", 52, b'"badutf8"'),
    ("schema.missing_field", 57, b'"pm"'), ("schema.wrong_type", 59, b'"message":123'),
    ("schema.missing_field", 61, b'"sm"'), ("schema.missing_field", 63, b'"ssn"'),
    ("schema.missing_field", 65, b'"bashm"'),
]

EXPECTED: dict[str, list[tuple[str, int, bytes]]] = {
    "transcripts/01_basic_text_prompt": [],
    "transcripts/02_tool_call": [],
    "transcripts/03_thinking": [],
    "transcripts/04_framing_and_errors": [
        *_FRAMING_04,
        ("correlation.idless_error", 15, b'"command":"nope"'),   # pi 0.73 drops the id of "unk"
        ("correlation.idless_error", 19, b"Unknown command: undefined"),  # ... and of "notype"
        ("schema.bad_enum", 67, b'"bogus"'), ("schema.bad_enum", 69, b'"mode":42'),
        ("schema.bad_enum", 71, b'"ultra"'), ("schema.wrong_type", 73, b'"yes"'),
        # get_state echoes what was persisted: the agent frame is out of schema too
        ("schema.bad_enum", 76, b'"st_after"'), ("schema.wrong_type", 76, b'"st_after"'),
        ("correlation.ui_unknown_id", 77, b'"nope"'), ("schema.missing_field", 78, b'{"type":"extension_ui_response"}'),
        ("correlation.ui_unknown_id", 79, b'"r9"'), ("schema.unknown_type", 80, b'"rr"'),
        ("correlation.idless_error", 81, b"Unknown command: response"),
        ("schema.bad_enum", 83, b'"end"'), ("schema.wrong_type", 83, b'"end"'),
    ],
    "transcripts/05_null_frame_crash": [
        ("misuse.null_frame", 4, b"null"),
        ("correlation.unanswered", 14, b'"after"'),  # pi crashed on the null line
    ],
    "transcripts/06_eof_without_trailing_newline": [("framing.truncated", 4, b'"last"')],
    "transcripts/07_eof_while_streaming": [],
    "transcripts/10_streaming_steer_followup_queue": [
        ("misuse.prompt_while_streaming", 13, b'"p2"'), ("schema.bad_enum", 27, b'"bogus"'),
    ],
    "transcripts/12_steer_and_follow_up_while_idle": [],
    "transcripts/13_abort_mid_stream": [],
    "transcripts/20_bash_and_abort_bash": [],
    "transcripts/30_session_ops_no_session": [],
    "transcripts/40_models_and_thinking": [],
    "transcripts/42_auto_retry_success": [],
    "transcripts/50_compact_manual": [],
    "transcripts/60_extension_ui": [
        ("correlation.ui_unknown_id", 18, b'"wrong-id"'), ("correlation.ui_duplicate", 22, b'"confirmed":false'),
        ("correlation.ui_wrong_shape", 30, b'"confirmed":true'),
        ("misuse.queue_extension_command", 190, b'"st_ext"'), ("misuse.queue_extension_command", 192, b'"fu_ext"'),
        ("correlation.unanswered", 222, b'"after_bye"'),  # sent after the extension shut pi down
    ],
    "transcripts/70_images": [  # pi 0.73 stores malformed images verbatim and echoes them back
        ("schema.missing_field", 17, b'"source":'), ("schema.missing_field", 21, b'"source":'),
        ("schema.missing_field", 22, b'"source":'), ("schema.missing_field", 31, b'"source":'),
        ("schema.wrong_type", 32, b'"images":"nope"'), ("schema.wrong_type", 36, b'"n","o","p","e"'),
        ("schema.wrong_type", 37, b'"n","o","p","e"'), ("schema.wrong_type", 46, b'"n","o","p","e"'),
        ("schema.missing_field", 50, b'"source":'), ("schema.wrong_type", 50, b'"n","o","p","e"'),
    ],
    "transcripts/O1_omp_18.2.3_basic": [
        ("framing.blank_line", 7, b""), ("framing.not_json", 8, b"not json"),
        ("schema.unknown_type", 10, b'"nope"'), ("correlation.idless_error", 11, b"Unknown command: nope"),
        ("framing.crlf", 12, b'"crlf"'), ("framing.not_object", 14, b"42"),
        ("misuse.prompt_while_streaming", 78, b'"p4"'), ("misuse.null_frame", 91, b"null"),
    ],
    "transcripts087/01_basic_text_prompt": [],
    "transcripts087/02_tool_call": [],
    "transcripts087/03_thinking": [],
    "transcripts087/04_framing_and_errors": [
        *_FRAMING_04,  # pi 0.87 echoes the id of unknown commands: no idless_error
        ("schema.bad_enum", 68, b'"bogus"'), ("schema.bad_enum", 70, b'"mode":42'),
        ("schema.bad_enum", 72, b'"ultra"'), ("schema.wrong_type", 74, b'"yes"'),
        ("schema.bad_enum", 77, b'"st_after"'), ("schema.wrong_type", 77, b'"st_after"'),
        ("correlation.ui_unknown_id", 78, b'"nope"'), ("schema.missing_field", 79, b'{"type":"extension_ui_response"}'),
        ("correlation.ui_unknown_id", 80, b'"r9"'), ("schema.unknown_type", 81, b'"rr"'),
        ("schema.unknown_type", 83, b'"nope3"'), ("schema.wrong_type", 87, b'"excludeFromContext":"yes"'),
        ("schema.bad_enum", 91, b'"end"'), ("schema.wrong_type", 91, b'"end"'),
    ],
    "transcripts087/05_null_frame_crash": [
        ("misuse.null_frame", 4, b"null"), ("correlation.unanswered", 14, b'"after"'),
    ],
    "transcripts087/06_eof_without_trailing_newline": [("framing.truncated", 4, b'"last"')],
    "transcripts087/07_eof_while_streaming": [],
    "transcripts087/10_streaming_steer_followup_queue": [
        ("misuse.prompt_while_streaming", 15, b'"p2"'), ("schema.bad_enum", 29, b'"bogus"'),
    ],
    "transcripts087/12_steer_and_follow_up_while_idle": [],
    "transcripts087/13_abort_mid_stream": [],
    "transcripts087/20_bash_and_abort_bash": [],
    "transcripts087/30_session_ops_no_session": [],
    "transcripts087/40_models_and_thinking": [("schema.bad_enum", 28, b'"bogus"')],
    "transcripts087/42_auto_retry_success": [],
    "transcripts087/50_compact_manual": [],
    "transcripts087/60_extension_ui": [
        ("correlation.ui_unknown_id", 18, b'"wrong-id"'), ("correlation.ui_duplicate", 22, b'"confirmed":false'),
        ("correlation.ui_wrong_shape", 30, b'"confirmed":true'),
        ("misuse.queue_extension_command", 200, b'"st_ext"'), ("misuse.queue_extension_command", 202, b'"fu_ext"'),
        ("correlation.unanswered", 233, b'"after_bye"'),
    ],
    "transcripts087/70_images": [  # pi 0.87 rejects bad prompt images but stores bad steer images
        ("schema.missing_field", 20, b'"source":'), ("schema.wrong_type", 22, b'"images":"nope"'),
        ("schema.missing_field", 72, b'"no mimeType"'), ("schema.missing_field", 106, b'"steer with old image"'),
        ("schema.missing_field", 165, b'"source":'), ("schema.missing_field", 166, b'"source":'),
        ("schema.missing_field", 175, b'"source":'), ("schema.missing_field", 178, b'"source":'),
    ],
}



def _compact(data: bytes) -> bytes:
    """The harness wrote client JSON with spaces after separators; pi writes none."""
    return data.replace(b'": ', b'":').replace(b'", "', b'","')


def _key(path: str) -> str:
    return f"{path.split('/')[-3]}/{os.path.basename(path)[:-6]}"


PATHS = sorted(glob.glob(f"{DATA}/transcripts/structured/*.jsonl") +
               glob.glob(f"{DATA}/transcripts087/structured/*.jsonl"))


def test_every_transcript_has_expectations() -> None:
    assert PATHS, "transcripts missing from tests/data"
    assert {_key(p) for p in PATHS} == set(EXPECTED)


@pytest.mark.parametrize("mode", ["live", "offline"])
@pytest.mark.parametrize("path", PATHS, ids=_key)
def test_transcript_findings(path: str, mode: str) -> None:
    """live: the dialect detected while checking; offline: detected first, as `rpcspy check` does."""
    found = detect_dialect(open_recording(path).frames()) if mode == "offline" else None
    findings, frames = session_findings(path, found[0] if found else "auto")
    key = _key(path)
    got = sorted({(f.rule, f.frame or 0) for f in findings if f.severity != "info"})
    expected = EXPECTED[key]
    assert got == sorted({(rule, seq) for rule, seq, _ in expected}), got
    for rule, seq, content in expected:
        assert content in _compact(frames[seq].data), (rule, seq, frames[seq].data[:120])


@pytest.mark.parametrize("path", [p for p in PATHS if "O1" not in p], ids=_key)
def test_transcripts_need_no_dialect_hint(path: str) -> None:
    """Detection picks the right pi version wherever an agent event decides it."""
    checker = Checker()
    for frame in open_recording(path).frames():
        checker.feed(frame)
    if checker.dialect != "auto":
        assert checker.dialect == ("pi-0.84" if "transcripts087" in path else "pi-0.73"), checker.dialect_reason


def test_omp_is_detected_from_its_ready_frame() -> None:
    checker = Checker()
    for frame in open_recording(f"{DATA}/transcripts/structured/O1_omp_18.2.3_basic.jsonl").frames():
        checker.feed(frame)
    assert checker.dialect == "omp" and "ready" in checker.dialect_reason


@pytest.mark.parametrize("name", ["07_eof_while_streaming"])
@pytest.mark.parametrize("folder", ["transcripts", "transcripts087"])
def test_eof_while_streaming_is_info(folder: str, name: str) -> None:
    findings, _ = session_findings(f"{DATA}/{folder}/structured/{name}.jsonl")
    [cut] = [f for f in findings if f.rule == "lifecycle.run_cut_off"]
    assert cut.severity == "info" and cut.frame == 4


def test_raw_transcripts_read_alike() -> None:
    """The raw (untimed) transcripts give the same non-info findings as the structured ones."""
    for name in ("04_framing_and_errors", "60_extension_ui", "10_streaming_steer_followup_queue"):
        raw, _ = session_findings(f"{DATA}/transcripts/{name}.jsonl")
        timed, _ = session_findings(f"{DATA}/transcripts/structured/{name}.jsonl")
        assert {f.rule for f in raw if f.severity != "info"} == {f.rule for f in timed if f.severity != "info"}


def test_frames_before_detection_are_checked() -> None:
    """70_images without its first prompt: the old `source`-form image prompt (frame 17) comes before
    the frame that tells pi 0.73 (24). Live, the client frame is checked again once the dialect is
    known; offline the dialect is detected first, so the agent's echoes (21, 22) are flagged too."""
    path = f"{DATA}/transcripts/structured/70_images.jsonl"
    frames = [f for f in open_recording(path).frames() if not 2 <= f.seq <= 16]

    def missing(dialect: str) -> list[int]:
        checker = Checker(dialect=dialect)
        out = [f for frame in frames for f in checker.feed(frame)]
        return sorted({f.frame for f in out if f.rule == "schema.missing_field" and f.frame <= 31})  # type: ignore

    assert missing("auto") == [17, 31]
    found = detect_dialect(frames)
    assert found is not None and found[0] == "pi-0.73" and found[1].startswith("frame 24: ")
    assert missing(found[0]) == [17, 21, 22, 31]
