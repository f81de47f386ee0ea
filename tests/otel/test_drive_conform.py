"""--otel on drive (a script against a replayed pi, exported as it runs) and conform's case traces."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from rpcspy.conform.script import Transcript, Verdict
from rpcspy.events import Finding, Frame
from rpcspy.otel.conform import case_spans
from tests.otel.receiver import Receiver
from tests.paths import REPO

RPCSPY = [sys.executable, "-m", "rpcspy"]
PI087 = [*RPCSPY, "replay", "--speed", "0", "--match", "type",
         str(REPO / "tests" / "golden" / "inputs" / "pi087_01_basic_text_prompt.jsonl")]
pytest.importorskip("opentelemetry.exporter.otlp.proto.http", reason="the otel extra is in the test extra")


def test_drive_exports_the_session(receiver: Receiver, tmp_path: Path) -> None:
    steps = tmp_path / "steps.jsonl"
    steps.write_text('{"id":"s","type":"get_state"}\n{"id":"p1","type":"prompt","message":"hello"}\n')
    done = subprocess.run([*RPCSPY, "drive", str(steps), "-o", str(tmp_path / "rec.jsonl"), "--otel", "--", *PI087],
                          capture_output=True, text=True, timeout=120, cwd=tmp_path,
                          env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(REPO), "XDG_RUNTIME_DIR": str(tmp_path),
                               "OTEL_EXPORTER_OTLP_ENDPOINT": receiver.url, "OTEL_SERVICE_NAME": "ci"})
    assert done.returncode == 0, done.stderr
    names = [s.name for s in receiver.wait(4)]
    assert "invoke_agent rpcspy" in names and "rpcspy.command prompt" in names
    notes = [json.loads(line) for line in (tmp_path / "rec.jsonl").read_bytes().split(b"\n")
             if b'"otel: ' in line]
    assert notes and "exported" in notes[-1]["text"]


def test_otel_content_needs_otel(tmp_path: Path) -> None:
    done = subprocess.run([*RPCSPY, "--otel-content", "--no-record", "--", sys.executable, "-c", "pass"],
                          capture_output=True, text=True, timeout=60, env={"PYTHONPATH": str(REPO)})
    assert done.returncode == 2 and "--otel-content goes with --otel" in done.stderr


def test_a_conform_case_is_one_trace_with_its_verdict() -> None:
    frames = [Frame(1, 0.1, "c2a", b'{"id":"p","type":"prompt","message":"hi"}'),
              Frame(2, 0.2, "a2c", b'{"id":"p","type":"response","command":"prompt","success":true}'),
              Frame(3, 0.3, "a2c", b'{"type":"agent_start"}'),
              Frame(4, 0.4, "a2c", b'{"type":"agent_end","messages":[]}')]
    finding = Finding(0, 0.0, "lifecycle.no_settle", "warning", "lifecycle", "no settle", frame=4, dir="a2c")
    spans = case_spans("run.settle", Verdict("deviation", "no agent_settled"),
                       Transcript(frames=frames, exit_code=-15, findings=[finding]), ["pi", "--mode", "rpc"],
                       started=1_700_000_000.0)
    session = spans[-1]
    assert session.name == "rpcspy.session pi" and session.parent_id is None
    assert session.attributes["rpcspy.conform.case"] == "run.settle"
    assert session.attributes["rpcspy.conform.verdict"] == "deviation"
    assert session.attributes["rpcspy.exit_code"] == 143 and session.status == "error"
    run = next(s for s in spans if s.name == "invoke_agent pi")
    assert [e.attributes["rpcspy.finding.rule"] for e in run.events] == ["lifecycle.no_settle"]


@pytest.mark.parametrize("agent_spec", ["pi-1.5.2"], indirect=True)
def test_conform_sends_each_case_as_a_trace(agent_spec, receiver: Receiver) -> None:  # type: ignore[no-untyped-def]
    done = subprocess.run([*RPCSPY, "conform", "--otel", "--case", "id.every", "--case", "id.parse_error", "--",
                           *agent_spec.argv_prefix, "--mode", "rpc"], capture_output=True, text=True, timeout=300,
                          env=agent_spec.environ(PYTHONPATH=str(REPO), OTEL_EXPORTER_OTLP_ENDPOINT=receiver.url))
    assert done.returncode == 0, done.stderr
    spans = receiver.settle(1.0)
    sessions = [s for s in spans if s.name == "rpcspy.session pi"]
    cases = {kv.value.string_value for s in sessions for kv in s.attributes if kv.key == "rpcspy.conform.case"}
    assert cases == {"id.every", "id.parse_error"}
    assert len({s.trace_id for s in sessions}) == 2  # one trace a case
    assert "rpcspy.command (invalid)" in {s.name for s in spans}
