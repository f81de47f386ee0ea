"""The sample recordings (recordings/, made by scripts/make-samples) and the demo's bundled one."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from rpcspy.checker import Checker
from rpcspy.events import Exit, Finding
from rpcspy.recording import open_recording
from rpcspy.recording.format import FrameEntry

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = sorted((ROOT / "recordings").glob("*.jsonl"))
CLEAN = [p for p in SAMPLES if "misuse" not in p.name]
(MISUSE,) = [p for p in SAMPLES if "misuse" in p.name]
DEMO = ROOT / "rpcspy" / "data" / "demo.jsonl"
ALL = [*SAMPLES, DEMO]
DIALECTS = {"pi-0.73.1": "pi-0.73", "pi-0.87.1": "pi-0.84", "pi-1.5.2": "pi-0.99", "pi-1.6.0": "pi-0.99", "omp-18.2.3": "omp"}
RAW_TEMP_DIR = re.compile(rb"/tmp/tmp[a-z0-9_]{8}")  # tempfile.mkdtemp's names; fixture renames them tmpN


def agent_of(path: Path) -> str:
    return next(name for name in DIALECTS if path.name.startswith(name + "-"))


def check(path: Path) -> tuple[list[Finding], Checker]:
    """Every finding of an auto-dialect checker fed the whole recording, and the checker."""
    checker = Checker(dialect="auto")
    found: list[Finding] = []
    last_t, code = 0.0, None
    for entry in open_recording(path).entries():
        if isinstance(entry, FrameEntry):
            found += checker.feed(entry.to_frame())
            last_t = entry.t
        elif isinstance(entry, Exit):
            code = entry.code
    return found + checker.finish(last_t, exit_code=code), checker


def messages(path: Path, dir_: str) -> list[dict[str, Any]]:
    """The JSON objects sent in one direction."""
    out = []
    for frame in open_recording(path).frames():
        if frame.dir == dir_:
            try:
                value = json.loads(frame.data)
            except ValueError:
                continue
            if isinstance(value, dict):
                out.append(value)
    return out


def test_there_are_samples_of_each_agent() -> None:
    assert {agent_of(p) for p in SAMPLES} == set(DIALECTS)
    assert {p.name for p in SAMPLES} >= {"pi-0.73.1-basic.jsonl", "pi-0.87.1-basic.jsonl", "omp-18.2.3-basic.jsonl",
                                         "pi-0.73.1-abort.jsonl", "pi-0.87.1-abort.jsonl", "pi-0.73.1-misuse.jsonl"}


@pytest.mark.parametrize("path", ALL, ids=lambda p: p.name)
def test_sample_is_a_whole_recorded_session(path: Path) -> None:
    rec = open_recording(path)
    assert rec.kind == "rpcspy"
    assert rec.header.mode == "proxy" and rec.header.source  # made through the proxy, then by `rpcspy fixture`
    entries = list(rec.entries())
    assert not rec.problems
    assert {e.dir for e in entries if isinstance(e, FrameEntry)} >= {"c2a", "a2c"}
    assert isinstance(entries[-1], Exit) and (entries[-1].code, entries[-1].signal) == (0, None)
    assert path.stat().st_size < 200 * 1024


@pytest.mark.parametrize("path", ALL, ids=lambda p: p.name)
def test_sample_frames_name_no_machine_temp_dirs(path: Path) -> None:
    """The temporary HOME/cwd of the recording run became fixture placeholders in every frame."""
    rec = open_recording(path)
    assert re.fullmatch(r"/tmp/tmp\d+/tmp\d+/project", rec.header.cwd)  # the placeholder of the agent's cwd
    assert RAW_TEMP_DIR.search(b"/tmp/tmpk3_x9q0z/home")  # what an unreplaced one looks like
    assert [f.seq for f in rec.frames() if RAW_TEMP_DIR.search(f.data)] == []


@pytest.mark.parametrize("path", CLEAN, ids=lambda p: p.name)
def test_clean_samples_have_nothing_above_info(path: Path) -> None:
    found, checker = check(path)
    assert [(f.rule, f.severity, f.frame) for f in found if f.severity != "info"] == []
    assert checker.dialect == DIALECTS[agent_of(path)]


def test_misuse_sample_is_flagged_where_the_client_misbehaved() -> None:
    def client_id(data: bytes) -> str:
        try:
            return json.loads(data).get("id", "?")
        except ValueError:
            return data.decode()

    found, checker = check(MISUSE)
    frames = {f.seq: f for f in open_recording(MISUSE).frames()}
    flagged = {(f.rule, f.severity, client_id(frames[f.frame].data)) for f in found
               if f.severity != "info" and f.frame is not None and frames[f.frame].dir == "c2a"}
    assert flagged == {
        ("framing.crlf", "warning", "crlf"),
        ("framing.not_json", "error", "this is not json"),
        ("schema.unknown_type", "error", "u1"),
        ("schema.bad_enum", "error", "q1"),
        ("misuse.prompt_while_streaming", "warning", "p2"),
    }
    assert frames[next(f.frame for f in found if f.rule == "framing.crlf")].cr
    assert checker.dialect == "pi-0.73"


@pytest.mark.parametrize("path", CLEAN, ids=lambda p: p.name)
def test_every_command_is_answered(path: Path) -> None:
    sent = [m["id"] for m in messages(path, "c2a")]
    answered = {m.get("id") for m in messages(path, "a2c") if m.get("type") == "response"}
    assert sent and set(sent) <= answered


def test_demo_shows_streamed_text_a_tool_call_and_get_state() -> None:
    """What `rpcspy demo` replays: the pi 0.73.1 basic session."""
    assert DEMO.read_bytes() == (ROOT / "recordings" / "pi-0.73.1-basic.jsonl").read_bytes()
    sent = messages(DEMO, "c2a")
    got = messages(DEMO, "a2c")
    assert [m["type"] for m in sent][:2] == ["get_state", "prompt"]
    state = next(m for m in got if m.get("command") == "get_state")
    assert state["success"] and state["data"]["model"]["id"] == "fake-model"
    updates = [m["assistantMessageEvent"] for m in got if m.get("type") == "message_update"]
    text = "".join(e["delta"] for e in updates if e["type"] == "text_delta")
    assert "Hello \u2028world!" in text and "Tool said: hello-from-tool" in text
    assert any(e["type"] == "thinking_delta" for e in updates)
    (start,) = [m for m in got if m.get("type") == "tool_execution_start"]
    assert start["toolName"] == "bash" and start["args"] == {"command": "echo hello-from-tool"}
    end = next(m for m in got if m.get("type") == "tool_execution_end")
    assert end["isError"] is False and "hello-from-tool" in json.dumps(end["result"])


@pytest.mark.parametrize("path", [p for p in SAMPLES if p.name.endswith("-abort.jsonl")], ids=lambda p: p.name)
def test_abort_samples_steer_then_abort_a_streaming_reply(path: Path) -> None:
    got = messages(path, "a2c")
    responses = {m["id"]: m for m in got if m.get("type") == "response"}
    assert responses["st1"]["success"] and responses["a1"]["success"]
    assert responses["s1"]["data"]["isStreaming"] is False
    stops = [m["message"]["stopReason"] for m in got
             if m.get("type") == "message_end" and m["message"].get("role") == "assistant"]
    assert stops == ["aborted"]
