"""OTLP export to a real receiver (oteltap on a loopback port): offline and live, as a user runs them."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from rpcspy.events import Note
from rpcspy.recording import open_recording
from tests.otel.receiver import Receiver
from tests.paths import REPO

RPCSPY = [sys.executable, "-m", "rpcspy"]
SAMPLE = REPO / "recordings" / "pi-1.5.2-basic.jsonl"
PARENT = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
pytest.importorskip("opentelemetry.exporter.otlp.proto.http", reason="the otel extra is in the test extra")


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("OTEL_") and k != "TRACEPARENT"}
    return {**env, "PYTHONPATH": str(REPO), **extra}


def attrs(span: Any) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for kv in span.attributes:
        v = kv.value
        kind = v.WhichOneof("value")
        out[kv.key] = list(x.string_value for x in v.array_value.values) if kind == "array_value" else getattr(v, kind)
    return out


def ids(spans: list[Any]) -> list[tuple[str, str, str, str]]:
    return sorted((s.trace_id.hex(), s.span_id.hex(), s.parent_span_id.hex(), s.name) for s in spans)


def export(receiver: Receiver, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*RPCSPY, "export", *args, "--format", "otlp", "--endpoint", receiver.url],
                          capture_output=True, text=True, timeout=120, env=env or _env())


def test_offline_export_of_a_real_recording_is_idempotent(receiver: Receiver) -> None:
    done = export(receiver, str(SAMPLE))
    assert done.returncode == 0, done.stderr
    assert "14 span(s)" in done.stderr and "14 span(s) exported" in done.stderr
    first = receiver.wait(14)
    names = sorted(s.name for s in first)
    assert names.count("invoke_agent pi") == 3 and names.count("chat fake-model") == 4
    assert "execute_tool bash" in names and "rpcspy.session pi" in names
    by_id = {s.span_id: s for s in first}
    root = [s for s in first if not s.parent_span_id]
    assert [s.name for s in root] == ["rpcspy.session pi"]
    for s in first:
        if s.name.startswith(("chat", "execute_tool")):
            assert by_id[s.parent_span_id].name == "invoke_agent pi"
        if s.name.startswith("invoke_agent"):
            assert by_id[s.parent_span_id] is root[0]
    chat = next(s for s in first if s.name == "chat fake-model")
    a = attrs(chat)
    assert a["gen_ai.operation.name"] == "chat" and a["gen_ai.usage.input_tokens"] == 12
    assert a["gen_ai.response.finish_reasons"] in (["stop"], ["toolUse"])
    assert "gen_ai.output.messages" not in a  # no content unless asked
    receiver.clear()
    assert export(receiver, str(SAMPLE)).returncode == 0
    assert ids(receiver.wait(14)) == ids(first)  # the same spans again: a backend stores them once


def test_traceparent_parents_the_session(receiver: Receiver) -> None:
    done = export(receiver, str(SAMPLE), env=_env(TRACEPARENT=PARENT))
    assert done.returncode == 0, done.stderr
    spans = receiver.wait(14)
    assert {s.trace_id.hex() for s in spans} == {"0af7651916cd43dd8448eb211c80319c"}
    session = next(s for s in spans if s.name == "rpcspy.session pi")
    assert session.parent_span_id.hex() == "b7ad6b7169203331"


def test_sdk_disabled_sends_nothing(receiver: Receiver) -> None:
    done = export(receiver, str(SAMPLE), env=_env(OTEL_SDK_DISABLED="true"))
    assert done.returncode == 0 and "OTEL_SDK_DISABLED" in done.stderr
    assert receiver.settle() == []


def test_content_when_asked_is_redacted(receiver: Receiver, tmp_path: Path) -> None:
    rec = tmp_path / "secret.jsonl"
    secret = '"message": "token: ghp_abcdefghijklmnopqrstuvwxyz0123456789"'
    rec.write_bytes(SAMPLE.read_bytes().replace(b'"message": "hello"', secret.encode()))
    done = export(receiver, str(rec), "--content")
    assert done.returncode == 0, done.stderr
    spans = receiver.wait(14)
    run = next(s for s in spans if s.name == "invoke_agent pi" and "gen_ai.input.messages" in attrs(s)
               and "token" in attrs(s)["gen_ai.input.messages"])
    assert "ghp_" not in attrs(run)["gen_ai.input.messages"] and "<redacted>" in attrs(run)["gen_ai.input.messages"]


def test_unreachable_endpoint_fails_with_status_1(tmp_path: Path) -> None:
    from tests.otel.receiver import free_port

    done = subprocess.run([*RPCSPY, "export", str(SAMPLE), "--format", "otlp", "--endpoint",
                           f"http://127.0.0.1:{free_port()}"], capture_output=True, text=True, timeout=120,
                          env=_env(OTEL_EXPORTER_OTLP_TIMEOUT="1000"))
    assert done.returncode == 1
    assert "not exported" in done.stderr and "Traceback" not in done.stderr


def test_usage_errors_exit_2() -> None:
    for args, said in ((["--format", "otlp", "-o", "x"], "do not apply"), (["--content"], "--format otlp"),
                       (["--format", "otlp", "--type", "prompt"], "do not apply")):
        done = subprocess.run([*RPCSPY, "export", str(SAMPLE), *args], capture_output=True, text=True, timeout=60,
                              env=_env())
        assert done.returncode == 2 and said in done.stderr, (args, done.stderr)
    bad = subprocess.run([*RPCSPY, "export", str(SAMPLE), "--format", "otlp"], capture_output=True, text=True,
                         timeout=60, env=_env(OTEL_EXPORTER_OTLP_PROTOCOL="http/json"))
    assert bad.returncode == 2 and "http/json" in bad.stderr


BLOCK_OTEL = """
import sys
class Block:
    def find_spec(self, name, path=None, target=None):
        if name == "opentelemetry" or name.startswith("opentelemetry."):
            raise ModuleNotFoundError(name)
sys.meta_path.insert(0, Block())
from rpcspy.cli import main
sys.argv = ["rpcspy", *sys.argv[1:]]
main()
"""


@pytest.mark.parametrize("args", [["export", str(SAMPLE), "--format", "otlp"],
                                  ["--otel", "--no-record", "--", sys.executable, "-c", "pass"]])
def test_without_the_extra_the_option_exits_2_with_the_install_line(args: list[str]) -> None:
    done = subprocess.run([sys.executable, "-c", BLOCK_OTEL, *args], capture_output=True, text=True, timeout=60,
                          env=_env())
    assert done.returncode == 2, done.stderr
    assert "pip install 'rpcspy[otel]'" in done.stderr and "Traceback" not in done.stderr


def _client_frames() -> bytes:
    out = []
    for line in SAMPLE.read_bytes().split(b"\n"):  # LF only: frames hold raw U+2028
        if not line:
            continue
        entry = json.loads(line)
        if entry.get("kind") == "frame" and entry.get("dir") == "c2a" and "json" in entry:
            out.append(json.dumps(entry["json"]).encode() + b"\n")
    return b"".join(out)


def _proxied(rec: Path, *opts: str, env: dict[str, str]) -> subprocess.CompletedProcess[bytes]:
    """A session proxied live: the recording's agent side played by `rpcspy replay`, its client frames sent."""
    return subprocess.run([*RPCSPY, "-o", str(rec), *opts, "--", *RPCSPY, "replay", str(SAMPLE)],
                          input=_client_frames(), capture_output=True, timeout=180, env=env)


def _notes(rec: Path) -> list[Note]:
    return [e for e in open_recording(str(rec)).entries() if isinstance(e, Note) and e.text.startswith("otel:")]


def test_live_session_exports_as_it_runs(receiver: Receiver, tmp_path: Path) -> None:
    plain = _proxied(tmp_path / "plain.jsonl", env=_env())
    live = _proxied(tmp_path / "live.jsonl", "--otel", env=_env(OTEL_EXPORTER_OTLP_ENDPOINT=receiver.url,
                                                                TRACEPARENT=PARENT))
    assert live.returncode == plain.returncode == 0, live.stderr
    assert live.stdout == plain.stdout  # the client reads the same bytes
    spans = receiver.wait(14)
    names = sorted(s.name for s in spans)
    assert names.count("invoke_agent rpcspy") == 3 and names.count("chat fake-model") == 4
    assert {s.trace_id.hex() for s in spans} == {"0af7651916cd43dd8448eb211c80319c"}
    notes = _notes(tmp_path / "live.jsonl")
    assert [n.text for n in notes][0] == "otel: traceparent " + PARENT
    assert notes[-1].level == "info" and notes[-1].text.startswith("otel: 14 span(s) exported")
    receiver.clear()  # the live recording, exported later, gives the same spans (its TRACEPARENT recorded)
    assert export(receiver, str(tmp_path / "live.jsonl")).returncode == 0
    assert ids(receiver.wait(14)) == ids(spans)


def test_live_session_with_the_collector_down_forwards_all_and_records_the_loss(tmp_path: Path) -> None:
    from tests.otel.receiver import free_port

    plain = _proxied(tmp_path / "plain.jsonl", env=_env())
    down = _proxied(tmp_path / "down.jsonl", "--otel", env=_env(
        OTEL_EXPORTER_OTLP_ENDPOINT=f"http://127.0.0.1:{free_port()}", OTEL_EXPORTER_OTLP_TIMEOUT="1000"))
    assert down.returncode == 0 and down.stdout == plain.stdout
    notes = _notes(tmp_path / "down.jsonl")
    assert notes[-1].level == "warning" and "14 not exported" in notes[-1].text
    assert b"not exported" in down.stderr
