"""Chaos replay: the spec, the planner (pure, seeded) and the faults on a real replay's output."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rpcspy.recording import open_recording
from rpcspy.replay.chaos import (
    FAULTS,
    IDLESS_ERROR,
    STRAY_SETTLED,
    Chaos,
    ChaosSpecError,
    parse_spec,
    split_points,
)

ROOT = Path(__file__).parents[2]
RESPONSE = b'{"id":"1","type":"response","command":"get_state","success":true,"data":{}}'
UPDATE = b'{"type":"message_update","assistantMessageEvent":{"type":"text_delta","delta":"hi"}}'
START, END = b'{"type":"agent_start"}', b'{"type":"agent_end","messages":[]}'


def test_spec_parses_every_fault() -> None:
    spec = parse_spec("seed=7, latency=50ms,jitter=0.5,drop=0.1,dup=1,idless-error=0.2,stall=2s@0.5,"
                      "oversize=0.3:512K,split=0.4,u2028=0.5,settled=0.6,reorder=0.7")
    assert (spec.seed, spec.latency, spec.jitter, spec.drop, spec.dup) == (7, 0.05, 0.5, 0.1, 1.0)
    assert (spec.idless_error, spec.stall, spec.stall_p, spec.oversize, spec.oversize_bytes) == (0.2, 2.0, 0.5, 0.3, 512 << 10)
    assert (spec.split, spec.u2028, spec.settled, spec.reorder) == (0.4, 0.5, 0.6, 0.7)
    assert set(FAULTS) == {"seed", "latency", "jitter", "drop", "dup", "idless-error", "stall", "oversize", "split",
                           "u2028", "settled", "reorder"}


@pytest.mark.parametrize(("text", "message"), [
    ("explode=1", "unknown fault 'explode'"), ("drop", "drop: needs a value"), ("drop=2", "not within 0..1"),
    ("latency=fast", "not a duration"), ("seed=x", "not an integer"), ("oversize=0.1:huge", "not a size"),
])
def test_bad_specs_say_what_is_wrong(text: str, message: str) -> None:
    with pytest.raises(ChaosSpecError, match=message):
        parse_spec(text)


def plan_all(spec: str, frames: list[bytes]) -> tuple[list[list[bytes]], list[dict]]:
    chaos = Chaos(parse_spec(spec))
    plans = [chaos.plan(f) for f in frames]
    return [p.frames for p in plans], [f.to_json() for f in chaos.faults]


def test_each_response_fault_does_what_it_says() -> None:
    assert plan_all("drop=1", [RESPONSE, UPDATE]) == ([[], [UPDATE]], [{"frame": 1, "fault": "drop", "type": "response"}])
    assert plan_all("dup=1", [RESPONSE])[0] == [[RESPONSE, RESPONSE]]
    assert plan_all("idless-error=1", [RESPONSE])[0] == [[RESPONSE, IDLESS_ERROR]]
    assert "id" not in json.loads(IDLESS_ERROR)
    chaos = Chaos(parse_spec("reorder=1,latency=0.25"))
    held, event = chaos.plan(RESPONSE), chaos.plan(UPDATE)
    assert held.hold and held.delay == 0.25 and not event.hold and event.delay == 0


def test_stray_settled_only_inside_a_run() -> None:
    frames, faults = plan_all("settled=1", [UPDATE, START, UPDATE, END, UPDATE])
    assert frames == [[UPDATE], [START], [UPDATE, STRAY_SETTLED], [END], [UPDATE]]
    assert [f["frame"] for f in faults] == [3]


def test_u2028_and_oversize_keep_the_frame_valid_json() -> None:
    (frames,), _ = plan_all("u2028=1,oversize=1:1K", [UPDATE])
    out = frames[0]
    assert "\u2028".encode() in out and "\u2029".encode() in out and b"\\u2028" not in out
    obj = json.loads(out)
    assert obj["rpcspyChaosText"] == "line\u2028separator\u2029" and len(obj["rpcspyChaosPad"]) == 1024
    assert obj["assistantMessageEvent"]["delta"] == "hi"


def test_stall_and_split() -> None:
    chaos = Chaos(parse_spec("stall=3s@1,split=1"))
    p = chaos.plan(UPDATE)
    assert p.delay == 3 and p.split
    assert b"".join(split_points(UPDATE)) == UPDATE and len(split_points(UPDATE)) == 3


frame_lists = st.lists(st.sampled_from([RESPONSE, UPDATE, START, END, b"not json"]), max_size=40)


@given(frame_lists, st.integers(0, 2**16))
def test_same_seed_same_faults_and_every_frame_stays_json(frames: list[bytes], seed: int) -> None:
    spec = f"seed={seed},drop=0.2,dup=0.2,idless-error=0.2,split=0.2,u2028=0.2,settled=0.2,reorder=0.2,oversize=0.1:64"
    first, second = plan_all(spec, frames), plan_all(spec, frames)
    assert first == second
    for original, out in zip(frames, first[0], strict=True):
        for f in out:
            assert f == original or json.loads(f)


def test_chaos_replay_reports_every_fault_and_writes_them(tmp_path: Path) -> None:
    rec = ROOT / "recordings" / "pi-0.87.1-basic.jsonl"
    new, report = tmp_path / "new.jsonl", tmp_path / "report.json"
    me = [sys.executable, "-m", "rpcspy"]
    spec = "seed=1,dup=1,idless-error=1,u2028=0.3,split=0.5"
    p = subprocess.run([*me, "replay", "--client", str(rec), "--speed", "0", "--timeout", "10", "-o", str(new), "--",
                        *me, "replay", "--speed", "0", "--chaos", spec, "--report", str(report), str(rec)],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    rep = json.loads(report.read_text())
    assert rep["chaos"] == spec and rep["final"]
    kinds = [f["fault"] for f in rep["faults"]]
    responses = [json.loads(f.data) for f in open_recording(rec).frames() if f.dir == "a2c"
                 and json.loads(f.data).get("type") == "response"]
    assert kinds.count("dup") == kinds.count("idless-error") == len(responses)
    assert "split" in kinds and "u2028" in kinds
    live = [f.data for f in open_recording(new).frames() if f.dir == "a2c"]
    assert sum(1 for d in live if d == IDLESS_ERROR) == len(responses)
    assert sum(1 for d in live if "\u2028".encode() in d) >= kinds.count("u2028")
    stderr = b"\n".join(f.data for f in open_recording(new).frames() if f.dir == "err").decode()
    assert f"chaos ({spec}): {len(kinds)} fault(s) injected" in stderr  # the fake agent's stderr at exit


def test_faults_reach_the_report_before_a_write_the_client_never_reads(tmp_path: Path) -> None:
    import time

    report = tmp_path / "r.json"
    proc = subprocess.Popen([sys.executable, "-m", "rpcspy", "replay", "--speed", "0", "--report", str(report),
                             "--scenario", "oversize", "--chaos", "oversize=1:4M"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    try:
        proc.stdin.write(b'{"id":"p","type":"prompt","message":"hello"}\n')
        proc.stdin.flush()
        deadline = time.monotonic() + 60
        faults: list = []
        while not faults and time.monotonic() < deadline:  # stdout is never read: the replay blocks writing
            time.sleep(0.1)
            try:
                faults = json.loads(report.read_text()).get("faults", [])
            except (OSError, ValueError):
                pass
        assert faults and faults[0]["fault"] == "oversize" and proc.poll() is None
    finally:
        proc.kill()
        proc.wait(10)
