"""The sample recordings (recordings/, made by scripts/make-samples) and the demo's bundled one."""

from __future__ import annotations

import json

from pathlib import Path

import pytest

from rpcspy.checker import Checker
from rpcspy.events import Finding
from rpcspy.recording import open_recording
from rpcspy.recording.format import ExitEntry, FrameEntry

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = sorted((ROOT / "recordings").glob("*.jsonl"))
CLEAN = [p for p in SAMPLES if "misuse" not in p.name]


def check(path: Path) -> list[Finding]:
    rec = open_recording(path)
    checker = Checker()
    found: list[Finding] = []
    last_t, code = 0.0, None
    for entry in rec.entries():
        if isinstance(entry, FrameEntry):
            found += checker.feed(entry.to_frame())
            last_t = entry.t
        elif isinstance(entry, ExitEntry):
            code = entry.code
    return found + checker.finish(last_t, exit_code=code)


def test_there_are_samples_of_each_agent() -> None:
    names = {p.name.split("-")[0] + "-" + p.name.split("-")[1] for p in SAMPLES}
    assert {"pi-0.73.1", "pi-0.87.1", "omp-18.2.3"} <= names


@pytest.mark.parametrize("path", [*SAMPLES, ROOT / "rpcspy" / "data" / "demo.jsonl"], ids=lambda p: p.name)
def test_sample_is_a_whole_recorded_session(path: Path) -> None:
    rec = open_recording(path)
    assert rec.kind == "rpcspy" and rec.header.source  # made through the proxy, then by `rpcspy fixture`
    entries = list(rec.entries())
    assert not rec.problems
    assert {e.dir for e in entries if isinstance(e, FrameEntry)} >= {"c2a", "a2c"}
    assert isinstance(entries[-1], ExitEntry) and entries[-1].code == 0


@pytest.mark.parametrize("path", CLEAN, ids=lambda p: p.name)
def test_clean_samples_have_nothing_above_info(path: Path) -> None:
    assert [(f.rule, f.frame) for f in check(path) if f.severity != "info"] == []


def test_misuse_sample_is_flagged_where_the_client_misbehaved() -> None:
    (path,) = [p for p in SAMPLES if "misuse" in p.name]
    def client_id(data: bytes) -> str:
        try:
            return json.loads(data).get("id", "?")
        except ValueError:
            return data.decode()

    frames = {f.seq: f for f in open_recording(path).frames()}
    flagged = {(f.rule, client_id(frames[f.frame].data)) for f in check(path)
               if f.severity != "info" and f.frame and frames[f.frame].dir == "c2a"}
    assert flagged == {("framing.crlf", "crlf"), ("framing.not_json", "this is not json"),
                       ("schema.unknown_type", "u1"), ("schema.bad_enum", "q1"),
                       ("misuse.prompt_while_streaming", "p2")}
